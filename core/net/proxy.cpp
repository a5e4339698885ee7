#include "net/proxy.h"

#include <arpa/inet.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <vector>

#include "util/bytes.h"

namespace anthro::net {

namespace {

// %XX in a URL's user or password, as curl decodes them; nullopt for a broken escape.
std::optional<std::string> percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= s.size()) return std::nullopt;
    auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, value, 16);
    if (ec != std::errc() || end != s.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

Error bad_proxy(std::string_view origin, const std::string& why) {
  return make_error(ErrorClass::Usage, std::string(origin) + ": " + why);
}

// The proxy in the environment for a target, and the variable it came from.
std::optional<std::pair<std::string, std::string>> proxy_variable(bool tls) {
  const char* names[2][4] = {{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"},
                             {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}};
  for (const char* name : names[tls ? 1 : 0])
    if (const char* value = std::getenv(name); value && *value) return std::make_pair(std::string(name), std::string(value));
  return std::nullopt;
}

std::string no_proxy_list() {
  for (const char* name : {"no_proxy", "NO_PROXY"})
    if (const char* value = std::getenv(name); value && *value) return value;
  return {};
}

// An IPv4 or IPv6 address's bytes; empty when `text` is neither.
std::vector<unsigned char> address_bytes(std::string_view text) {
  const std::string s(text);
  unsigned char buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return {buf, buf + 4};
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) return {buf, buf + 16};
  return {};
}

// `host` within `entry`'s network ("10.0.0.0/8", "::1"); false when `entry` is no address.
bool address_matches(std::string_view entry, const std::vector<unsigned char>& host) {
  std::string_view net = entry;
  int bits = -1;
  if (auto slash = entry.find('/'); slash != std::string_view::npos) {
    net = entry.substr(0, slash);
    auto [end, ec] = std::from_chars(entry.data() + slash + 1, entry.data() + entry.size(), bits);
    if (ec != std::errc() || end != entry.data() + entry.size() || bits < 0) return false;
  }
  const auto network = address_bytes(net);
  if (network.empty() || network.size() != host.size()) return false;
  if (bits < 0) return network == host;
  if (bits > static_cast<int>(network.size() * 8)) return false;
  for (int i = 0; i < bits; ++i) {
    const unsigned mask = 0x80u >> (i % 8);
    if ((network[i / 8] & mask) != (host[i / 8] & mask)) return false;
  }
  return true;
}

bool entry_exempts(std::string_view entry, std::string_view host) {
  if (entry.size() >= 2 && entry.front() == '[' && entry.back() == ']') entry = entry.substr(1, entry.size() - 2);
  if (const auto address = address_bytes(host); !address.empty()) return address_matches(entry, address);
  if (!entry.empty() && entry.front() == '.') entry.remove_prefix(1);
  if (entry.empty()) return false;
  const std::string e = ascii_lower(entry), h = ascii_lower(host);
  return h == e || (h.size() > e.size() && h.ends_with(e) && h[h.size() - e.size() - 1] == '.');
}

}  // namespace

std::string authority_of(std::string_view host, std::uint16_t port) {
  std::string h(host);
  return (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(port);
}

std::string ProxyServer::url() const {
  return "http://" + (user.empty() ? std::string() : user + "@") + authority_of(host, port);
}

std::string ProxyServer::authorization() const {
  if (user.empty()) return {};
  const std::string plain = user + ":" + password;
  std::string out(4 * ((plain.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()));
  out.resize(static_cast<std::size_t>(n));
  return "Basic " + out;
}

Result<ProxyServer> parse_proxy_url(std::string_view url, std::string_view origin, bool password_allowed) {
  std::string_view rest = url;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    if (ascii_lower(rest.substr(0, scheme)) != "http")
      return bad_proxy(origin, "\"" + std::string(rest.substr(0, scheme)) + "://\" proxies are not supported (http:// only)");
    rest.remove_prefix(scheme + 3);
  }
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (rest.substr(slash) != "/") return bad_proxy(origin, "a proxy URL has no path");
    rest = rest.substr(0, slash);
  }
  ProxyServer out;
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    std::string_view password;
    if (auto colon = userinfo.find(':'); colon != std::string_view::npos) {
      if (!password_allowed)
        return bad_proxy(origin, "a password never comes on the command line; give it with --proxy-password-env NAME");
      password = userinfo.substr(colon + 1);
      userinfo = userinfo.substr(0, colon);
    }
    auto user = percent_decoded(userinfo);
    auto pass = percent_decoded(password);
    if (!user || !pass) return bad_proxy(origin, "a broken %-escape in the user or password");
    if (user->empty()) return bad_proxy(origin, "an empty user name before '@'");
    out.user = *user;
    out.password = *pass;
  }
  std::string_view port_text;
  if (rest.starts_with('[')) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return bad_proxy(origin, "an IPv6 host without its ']'");
    out.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() != ':') return bad_proxy(origin, "text after the IPv6 host's ']'");
    if (!rest.empty()) port_text = rest.substr(1);
  } else if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    out.host = std::string(rest.substr(0, colon));
    port_text = rest.substr(colon + 1);
  } else {
    out.host = std::string(rest);
  }
  if (out.host.empty()) return bad_proxy(origin, "no proxy host");
  for (char c : out.host)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '"' || c == '\\')
      return bad_proxy(origin, "the proxy host holds a space or control byte");
  if (!port_text.empty() || rest.ends_with(':')) {
    unsigned port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
      // (not echoed: in "http://user:password" with no '@' the password stands where a port would)
      return bad_proxy(origin, "the proxy port is not a number from 1 to 65535");
    out.port = static_cast<std::uint16_t>(port);
  }
  return out;
}

bool no_proxy_exempts(std::string_view list, std::string_view host) {
  std::size_t i = 0;
  while (i < list.size()) {
    const std::size_t end = std::min(list.find_first_of(", \t", i), list.size());
    std::string_view entry = list.substr(i, end - i);
    i = end + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry_exempts(entry, host)) return true;
  }
  return false;
}

Result<std::optional<ProxyRoute>> proxy_route(const ProxySetting& setting, std::string_view host, bool tls, bool http_target) {
  using Source = ProxySetting::Source;
  if (setting.source == Source::Off) return std::optional<ProxyRoute>();
  if (no_proxy_exempts(no_proxy_list(), host)) return std::optional<ProxyRoute>();
  ProxyRoute route;
  route.way = http_target && !tls ? ProxyWay::Forward : ProxyWay::Tunnel;
  if (setting.source == Source::Given) {
    route.server = setting.given;
    return std::optional<ProxyRoute>(route);
  }
  auto variable = proxy_variable(tls);
  if (!variable) return std::optional<ProxyRoute>();
  auto server = parse_proxy_url(variable->second, variable->first, true);
  if (!server) return server.error();
  route.server = *server;
  return std::optional<ProxyRoute>(route);
}

}  // namespace anthro::net
