// The --target URLs of cli.md.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace anthro {

enum class TargetKind { Anthro, Messages, ChatCompletions, LayerZero };

struct Target {
  TargetKind kind = TargetKind::Anthro;
  bool tls = true;
  std::string host;  // without brackets
  std::uint16_t port = 0;
  std::string path;  // HTTP only
  std::string url;   // as given
  // host:port, an IPv6 host in brackets: HTTP/1.1's Host and HTTP/2's :authority.
  std::string authority() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
  // "tls", "lab" or "http", the transport names of the JSON output.
  std::string transport() const {
    return kind == TargetKind::Anthro || kind == TargetKind::LayerZero ? (tls ? "tls" : "lab") : "http";
  }
};

// anthro://host:port, anthro+lab://host:port, http(s)://host[:port]/v1/messages,
// http(s)://host[:port]/v1/chat/completions; IPv6 hosts in brackets.
Result<Target> parse_target(const std::string& url);
// lz://host:port (TLS, ALPN layer-zero) and lz+lab://host:port: the targets of the Layer Zero
// client (layerzero/client.h), which bench and rollout refuse.
Result<Target> parse_layer_zero_target(const std::string& url);
// What a live session takes: parse_target's targets and Layer Zero's.
Result<Target> parse_session_target(const std::string& url);

// The HTTP baseline an anthro-v1 TLS port also serves (ALPN http/1.1):
// https://host:port/v1/messages; empty for a cleartext target.
std::string http_baseline_url(const Target& t);

}  // namespace anthro
