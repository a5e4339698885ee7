#include "net/dial.h"

#include <charconv>
#include <chrono>
#include <memory>
#include <sstream>

namespace anthro::net {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The proxy's status line, made printable: it goes into one line of the user's error.
std::string printable_line(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 200)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

awaitable<std::vector<tcp::endpoint>> resolve(const std::string& host, std::uint16_t port, boost::system::error_code& ec) {
  ec = {};
  // A numeric host is its own: Asio's resolver runs getaddrinfo on a thread of its own, a hop
  // there and back (two wakeups and a futex) on every connection.
  boost::system::error_code not_numeric;
  auto address = asio::ip::make_address(host, not_numeric);
  if (!not_numeric) co_return std::vector<tcp::endpoint>{tcp::endpoint(address, port)};
  tcp::resolver resolver(co_await asio::this_coro::executor);
  auto results = co_await resolver.async_resolve(host, std::to_string(port), asio::redirect_error(use_awaitable, ec));
  std::vector<tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  co_return endpoints;
}

// The CONNECT request and the proxy's answer, read a byte at a time so that not one byte of
// the tunnel's own is taken from the socket. Nothing when the tunnel is open.
awaitable<std::optional<std::string>> open_tunnel(tcp::socket& socket, const Dial& d) {
  const ProxyServer& proxy = d.route->server;
  const std::string target = authority_of(d.host, d.port);
  std::string request = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n";
  if (!proxy.user.empty()) request += "Proxy-Authorization: " + proxy.authorization() + "\r\n";
  request += "\r\n";
  // The proxy's silence closes the socket. A handler already queued when the answer came finds
  // `done` and leaves the socket (by then the caller's stream's) alone.
  struct Watch {
    bool done = false, expired = false;
  };
  auto watch = std::make_shared<Watch>();
  asio::steady_timer timer(socket.get_executor());
  timer.expires_after(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(d.timeout_s)));
  timer.async_wait([watch, &socket](boost::system::error_code ec) {
    if (ec || watch->done) return;
    watch->expired = true;
    boost::system::error_code ignored;
    socket.close(ignored);
  });
  const std::string where = "proxy " + proxy.url() + " (CONNECT to " + target + ")";
  boost::system::error_code ec;
  co_await asio::async_write(socket, asio::buffer(request), asio::redirect_error(use_awaitable, ec));
  constexpr std::size_t kMaxHead = 16 * 1024;  // a proxy's answer head; beyond it is no proxy
  std::string head;
  while (!ec && !head.ends_with("\r\n\r\n") && head.size() < kMaxHead) {
    char c;
    std::size_t n = co_await socket.async_read_some(asio::buffer(&c, 1), asio::redirect_error(use_awaitable, ec));
    if (n == 1) head += c;
  }
  watch->done = true;
  timer.cancel();
  if (watch->expired) co_return where + ": no answer within " + seconds_text(d.timeout_s) + " s (--timeout-s)";
  if (ec) co_return where + ": " + (head.empty() ? "closed before answering" : "closed mid-answer") + " (" + ec.message() + ")";
  if (!head.ends_with("\r\n\r\n")) co_return where + ": an answer head over 16 KiB";
  const std::string_view line = std::string_view(head).substr(0, head.find("\r\n"));
  int status = 0;
  if (line.size() >= 12 && line.starts_with("HTTP/1.")) std::from_chars(line.data() + 9, line.data() + 12, status);
  if (status < 100) co_return where + ": not an HTTP answer: " + printable_line(line);
  if (status < 200 || status > 299) co_return where + " refused: " + printable_line(line);
  co_return std::nullopt;
}

}  // namespace

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

awaitable<std::optional<std::string>> dial(tcp::socket& socket, const Dial& d, Reached& reached) {
  auto ex = co_await asio::this_coro::executor;
  const bool proxied = d.route != nullptr;
  const std::string& host = proxied ? d.route->server.host : d.host;
  const std::uint16_t port = proxied ? d.route->server.port : d.port;
  const std::string peer = proxied ? "proxy " + d.route->server.url() : authority_of(d.host, d.port);
  boost::system::error_code ec;
  auto endpoints = co_await resolve(host, port, ec);
  if (ec) co_return "cannot resolve " + (proxied ? "proxy " + host : host) + ": " + ec.message();
  auto start = Clock::now();
  for (const auto& endpoint : endpoints) {
    if (d.cancelled && *d.cancelled) break;
    socket = tcp::socket(ex);
    socket.open(endpoint.protocol(), ec);
    if (d.prepare) d.prepare(socket);
    start = Clock::now();
    co_await socket.async_connect(endpoint, asio::redirect_error(use_awaitable, ec));
    if (!ec) break;
  }
  if (d.cancelled && *d.cancelled) co_return "cancelled by the client while connecting";
  if (ec) co_return "cannot connect to " + peer + ": " + ec.message();
  reached.connect_ms = ms_since(start);
  socket.set_option(tcp::no_delay(true), ec);
  if (!proxied || d.route->way != ProxyWay::Tunnel) co_return std::nullopt;
  start = Clock::now();
  if (auto refused = co_await open_tunnel(socket, d))
    co_return d.cancelled && *d.cancelled ? "cancelled by the client while connecting" : *refused;
  reached.tunnel_ms = ms_since(start);
  co_return std::nullopt;
}

}  // namespace anthro::net
