// Opening a client's TCP connection: directly, or through a forward proxy (net/proxy.h) — a
// CONNECT tunnel, or the proxy itself for an http:// target whose requests are then written in
// absolute form.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "net/asio.h"
#include "net/proxy.h"

namespace anthro::net {

// What opening a connection cost: the TCP connect (to the proxy when there is one) and the
// CONNECT's round trip through it.
struct Reached {
  double connect_ms = 0;
  std::optional<double> tunnel_ms;
};

struct Dial {
  std::string host;  // the target's, without brackets
  std::uint16_t port = 0;
  const ProxyRoute* route = nullptr;  // null: direct
  double timeout_s = 60;  // the proxy's answer to CONNECT
  std::function<void(tcp::socket&)> prepare;  // socket options, before each connect attempt
  const bool* cancelled = nullptr;  // checked between addresses
};

// Resolves and connects `socket` to the target, or to its proxy, trying each address in turn,
// then opens the tunnel when the route says so. Nothing when it is open; else why, worded for
// the user: the name that did not resolve, the address that refused, or the proxy's status line.
awaitable<std::optional<std::string>> dial(tcp::socket& socket, const Dial& d, Reached& reached);

// "60", "0.5": a timeout in seconds as the user wrote it, for messages.
std::string seconds_text(double s);

}  // namespace anthro::net
