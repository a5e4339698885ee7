// Forward proxies (cli.md "Proxies"): which one a connection takes, read as curl reads the
// environment. net/dial.h opens the connection through it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anthro::net {

struct ProxyServer {
  std::string host;  // without brackets
  std::uint16_t port = 1080;  // curl's default
  std::string user, password;  // Basic credentials; empty user: none
  // http://[user@]host:port: how results and errors name it (never the password).
  std::string url() const;
  // "Basic …" for Proxy-Authorization; empty without a user.
  std::string authorization() const;
};

// http://[user[:password]@]host[:port][/]; no scheme means http. `password_allowed` is false
// for a command line's URL (the password comes from --proxy-password-env). Errors (Usage)
// name `origin` ("--proxy", "HTTPS_PROXY") and what is wrong, never the password.
Result<ProxyServer> parse_proxy_url(std::string_view url, std::string_view origin, bool password_allowed);

// Whether NO_PROXY's list exempts `host`, as curl reads it: entries split at commas and
// spaces; "*" alone exempts every host; a name matches itself and its subdomains (a leading
// dot is ignored), case aside; an IP address matches itself, or its network in CIDR form.
bool no_proxy_exempts(std::string_view list, std::string_view host);

// How a connection uses its proxy: a CONNECT tunnel (TLS and the cleartext lab schemes), or
// the proxy as the peer that takes absolute-form HTTP requests (http:// targets).
enum class ProxyWay : std::uint8_t { Tunnel, Forward };

// Where the proxy comes from: the environment (the default), none (--no-proxy), or given.
struct ProxySetting {
  enum class Source : std::uint8_t { Environment, Off, Given };
  Source source = Source::Environment;
  ProxyServer given;
};

struct ProxyRoute {
  ProxyServer server;
  ProxyWay way = ProxyWay::Tunnel;
};

// What a connection to `host` takes: TLS targets use https_proxy/HTTPS_PROXY, the others
// http_proxy/HTTP_PROXY (lower case first, then ALL_PROXY), unless NO_PROXY exempts the host;
// `http_target` (an http:// API target) is forwarded, every other one tunnelled. Errors: a
// variable holding no usable proxy URL, named.
Result<std::optional<ProxyRoute>> proxy_route(const ProxySetting& setting, std::string_view host, bool tls, bool http_target);

// host:port with an IPv6 host in brackets.
std::string authority_of(std::string_view host, std::uint16_t port);

}  // namespace anthro::net
