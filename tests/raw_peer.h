// A blocking raw anthro-v1 peer on an endpoint's lab port, using the codec directly: it
// sends exactly the frames a test builds and decodes everything the server sends back.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "endpoint_fixture.h"
#include "lab_client_keys.h"

namespace anthro::test {

inline std::uint16_t port_of(const std::string& url) { return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1))); }

class RawPeer {
 public:
  explicit RawPeer(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{3, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawPeer() { ::close(fd_); }
  bool connected() const { return connected_; }
  int fd() const { return fd_; }  // for a TLS client on the same connection

  void send(ByteView bytes) { (void)!::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  void send(std::string_view text) { send(as_bytes(text)); }

  // Everything the server sends until it closes (or 3 s pass).
  Bytes read_all() {
    Bytes out;
    std::uint8_t buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = n == 0;
        return out;
      }
      out.insert(out.end(), buf, buf + n);
    }
  }
  bool closed() const { return closed_; }

  // What the server sends until `n` bytes came, it closed, or 3 s passed.
  Bytes read_at_least(std::size_t n) {
    Bytes out;
    std::uint8_t buf[4096];
    while (out.size() < n) {
      ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
      if (got <= 0) {
        closed_ = got == 0;
        break;
      }
      out.insert(out.end(), buf, buf + got);
    }
    return out;
  }

  bool negotiate(std::uint16_t ring_kib = kDefaultRingKib) {
    send(keys_.preface(0x1122334455667788ULL, ring_kib));
    Bytes answer(kPrefaceSize);
    std::size_t have = 0;
    while (have < answer.size()) {
      ssize_t n = ::recv(fd_, answer.data() + have, answer.size() - have, 0);
      if (n <= 0) return false;
      have += static_cast<std::size_t>(n);
    }
    return keys_.accept(answer);
  }

  Bytes frame(FrameType type, std::uint8_t flags, const Bytes& plaintext) { return keys_.frame(type, flags, plaintext); }
  Bytes request(std::uint32_t stream_id, std::uint32_t max_tokens = 5) { return keys_.request(stream_id, max_tokens); }

  // A REQUEST whose JSON is given as text, verbatim.
  Bytes raw_request(std::uint32_t stream_id, std::string_view json) {
    return frame(FrameType::Request, kFlagStreaming, encode_raw(stream_id, as_bytes(json)));
  }
  std::vector<FrameEvent> frames(ByteView s2c) const { return keys_.server_frames(s2c); }

  // Everything the server sends until `streams` streams have ended (RESPONSE or ERROR on a
  // stream), the connection closes or it stays silent for 3 s; the bytes go to `s2c` when given.
  std::vector<FrameEvent> read_until_ended(std::size_t streams, Bytes* s2c = nullptr) {
    Bytes all;
    std::vector<FrameEvent> out;
    std::uint8_t buf[65536];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = n == 0;
        break;
      }
      all.insert(all.end(), buf, buf + n);
      out = frames(all);
      std::size_t ended = 0;
      for (const auto& e : out)
        if (e.body && body_stream_id(*e.body) != 0 &&
            (std::holds_alternative<ResponseBody>(*e.body) || std::holds_alternative<ErrorBody>(*e.body)))
          ++ended;
      if (ended >= streams || closed_) break;
    }
    if (s2c) *s2c = std::move(all);
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false, closed_ = false;
  LabClientKeys keys_;
};

}  // namespace anthro::test
