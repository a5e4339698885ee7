// The --target URLs of cli.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "util/result.h"

namespace anthro {

// The API an HTTP target's path names.
enum class HttpApi { None, Messages, ChatCompletions };

// Which client speaks a target is its profile's: anthro-v1's, a wire format's own
// (session_runner), else the HTTP client.
struct Target {
  ProfileId profile = ProfileId::AnthroV1;  // whose scheme it was written in
  HttpApi api = HttpApi::None;              // the HTTP client's targets only
  bool tls = true;
  std::string host;  // without brackets
  std::uint16_t port = 0;
  std::string path;  // HTTP only
  std::string url;   // as given
  // host:port, an IPv6 host in brackets: HTTP/1.1's Host and HTTP/2's :authority.
  std::string authority() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
  bool own_client() const;  // a wire format's own live client speaks it
  bool http() const;        // the HTTP client speaks it
  // "tls", "lab" or "http", the transport names of the JSON output.
  std::string transport() const { return http() ? "http" : tls ? "tls" : "lab"; }
};

// anthro://host:port, anthro+lab://host:port, http(s)://host[:port]/v1/messages,
// http(s)://host[:port]/v1/chat/completions; IPv6 hosts in brackets.
Result<Target> parse_target(const std::string& url);
// A target of `id`'s own live client (one of its profile's schemes), which bench and
// rollout refuse.
Result<Target> parse_own_target(const std::string& url, ProfileId id);
// What a live session takes: parse_target's targets and those of the formats' own clients.
Result<Target> parse_session_target(const std::string& url);

// The profiles with a live client of their own (Target::own_client), in registry order.
std::vector<const Profile*> own_client_profiles();

// The HTTP baseline an anthro-v1 TLS port also serves (ALPN http/1.1):
// https://host:port/v1/messages; empty for a cleartext target.
std::string http_baseline_url(const Target& t);

}  // namespace anthro
