// A server this project did not write, as small as can be: it reads the request head the first
// client to connect sends, answers 500 and closes. For tests of what a client puts on the wire.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "loopback_listener.h"

namespace anthro::test {

class HeadCatcher {
 public:
  HeadCatcher() : thread_([this] { catch_head(); }) {}
  ~HeadCatcher() { head(); }
  std::uint16_t port() const { return listener_.port(); }
  // Once the client is done: what it sent (empty when it never connected, whose accept() the
  // shutdown ends).
  const std::string& head() {
    ::shutdown(listener_.fd(), SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    return head_;
  }

 private:
  void catch_head() {
    int fd = ::accept(listener_.fd(), nullptr, nullptr);
    if (fd < 0) return;
    char buf[4096];
    while (head_.find("\r\n\r\n") == std::string::npos && head_.size() < (1u << 20)) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      head_.append(buf, static_cast<std::size_t>(n));
    }
    head_ = head_.substr(0, head_.find("\r\n\r\n"));
    const char reply[] = "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
    (void)!::send(fd, reply, sizeof reply - 1, MSG_NOSIGNAL);
    ::close(fd);
  }
  LoopbackListener listener_;
  std::string head_;
  std::thread thread_;
};

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

}  // namespace anthro::test
