// A server this project did not write, as small as can be: it reads the request the first client
// to connect sends (its head kept), answers with a recorded reply (else a 500) and closes. For
// tests of what a client puts on the wire and how it reads other servers' replies. A reply whose
// head says `transfer-encoding: chunked` has its body sent a chunk an event (a blank line ends
// one), as such servers flush them. Over TLS (HeadCatcher::Tls) it is a server of HTTP/1.1
// only, as many gateways are: it never selects h2.
#pragma once

#include <openssl/ssl.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "loopback_listener.h"
#include "tls_test_identity.h"

namespace anthro::test {

// The head's lines after the request line: each "name: value" as sent.
inline std::vector<std::string> header_lines(const std::string& head) {
  std::vector<std::string> lines;
  for (std::size_t at = head.find("\r\n"); at != std::string::npos;) {
    std::size_t next = head.find("\r\n", at + 2);
    lines.push_back(head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2));
    at = next;
  }
  return lines;
}

class HeadCatcher {
 public:
  static constexpr const char* kServerError =
      "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
  // TLS with a self-signed certificate (a client must not check it). ALPN: http/1.1 selected
  // when the client offers it, or (`select_http1` false) none at all, as an older server.
  struct Tls {
    bool select_http1 = true;
  };
  explicit HeadCatcher(std::string reply = kServerError, std::optional<Tls> tls = std::nullopt)
      : reply_(std::move(reply)), ctx_(tls ? tls_context(*tls) : nullptr), thread_([this] { catch_head(); }) {}
  ~HeadCatcher() {
    head();
    if (ctx_) SSL_CTX_free(ctx_);
  }
  std::uint16_t port() const { return listener_.port(); }
  // Once the client is done: what it sent (empty when it never connected, whose accept() the
  // shutdown ends).
  const std::string& head() {
    ::shutdown(listener_.fd(), SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    return head_;
  }

 private:
  SSL_CTX* tls_context(Tls tls) {
    ::signal(SIGPIPE, SIG_IGN);  // SSL_write to a client that left fails instead
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx, identity_.cert);
    SSL_CTX_use_PrivateKey(ctx, identity_.key);
    if (tls.select_http1) SSL_CTX_set_alpn_select_cb(ctx, select_http1_alpn, nullptr);
    return ctx;
  }
  void catch_head() {
    int fd = ::accept(listener_.fd(), nullptr, nullptr);
    if (fd < 0) return;
    timeval limit{10, 0};  // a client that stops sending ends the exchange, not the test
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (ctx_) {
      ssl_ = SSL_new(ctx_);
      SSL_set_fd(ssl_, fd);
      if (SSL_accept(ssl_) != 1) {
        SSL_free(ssl_);
        ssl_ = nullptr;
        ::close(fd);
        return;
      }
    }
    std::string got;
    char buf[4096];
    auto read_more = [&] {
      ssize_t n = ssl_ ? SSL_read(ssl_, buf, sizeof buf) : ::recv(fd, buf, sizeof buf, 0);
      if (n > 0) got.append(buf, static_cast<std::size_t>(n));
      return n > 0 && got.size() < (1u << 20);
    };
    while (got.find("\r\n\r\n") == std::string::npos && read_more()) {
    }
    head_ = got.substr(0, got.find("\r\n\r\n"));
    // The body too: unread bytes at close() would make the kernel reset the connection, and the
    // reply could be lost with it.
    const std::size_t body_at = head_.size() + 4, length = content_length(head_);
    while (got.size() < body_at + length && read_more()) {
    }
    send_all(fd, wire_reply());
    if (ssl_) SSL_shutdown(ssl_);  // close_notify
    ::shutdown(fd, SHUT_WR);
    while (read_more()) {  // until the client closes
    }
    if (ssl_) SSL_free(ssl_);
    ssl_ = nullptr;
    ::close(fd);
  }
  static std::size_t content_length(const std::string& head) {
    for (const std::string& line : header_lines(head))
      if (line.size() > 15 && strncasecmp(line.c_str(), "content-length:", 15) == 0) return std::stoul(line.substr(15));
    return 0;
  }
  void send_all(int fd, const std::string& bytes) {
    for (std::size_t at = 0; at < bytes.size();) {
      const std::size_t left = bytes.size() - at;
      ssize_t n = ssl_ ? SSL_write(ssl_, bytes.data() + at, static_cast<int>(left))
                       : ::send(fd, bytes.data() + at, left, MSG_NOSIGNAL);
      if (n <= 0) return;
      at += static_cast<std::size_t>(n);
    }
  }
  std::string wire_reply() const {
    const std::size_t end = reply_.find("\r\n\r\n");
    std::string head = reply_.substr(0, end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (end == std::string::npos || head.find("transfer-encoding: chunked") == std::string::npos) return reply_;
    std::string out = reply_.substr(0, end + 4), body = reply_.substr(end + 4);
    char size[32];
    for (std::size_t at = 0; at < body.size();) {
      std::size_t stop = body.find("\n\n", at);
      stop = stop == std::string::npos ? body.size() : stop + 2;
      std::snprintf(size, sizeof size, "%zx\r\n", stop - at);
      out += size + body.substr(at, stop - at) + "\r\n";
      at = stop;
    }
    return out + "0\r\n\r\n";
  }
  LoopbackListener listener_;
  std::string reply_, head_;
  TlsTestIdentity identity_;
  SSL_CTX* ctx_ = nullptr;  // null: cleartext
  SSL* ssl_ = nullptr;      // the connection's, on the catching thread
  std::thread thread_;
};

}  // namespace anthro::test
