// A blocking HTTP/2 peer over TLS (ALPN h2) that writes frames built by hand, so a test can
// send what no polite client would: PINGs without reading, a zero flow-control window, a
// body trickled a byte at a time. Frames and HPACK as RFC 9113 §4 and RFC 7541 §6.2.2
// (literal fields without indexing, no Huffman) lay them out.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <optional>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace anthro::test {

namespace h2 {

enum : std::uint8_t { kData = 0, kHeaders = 1, kSettings = 4, kPing = 6, kGoaway = 7, kWindowUpdate = 8 };
enum : std::uint8_t { kEndStream = 1, kAck = 1, kEndHeaders = 4 };

inline std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, const std::string& payload) {
  std::string f;
  const auto n = static_cast<std::uint32_t>(payload.size());
  f += static_cast<char>(n >> 16);
  f += static_cast<char>(n >> 8);
  f += static_cast<char>(n);
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  stream &= 0x7f'ff'ff'ffu;
  for (int shift : {24, 16, 8, 0}) f += static_cast<char>(stream >> shift);
  return f + payload;
}

// A SETTINGS frame; each pair an identifier and its value.
inline std::string settings(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& values) {
  std::string p;
  for (auto [id, v] : values) {
    p += static_cast<char>(id >> 8);
    p += static_cast<char>(id);
    for (int shift : {24, 16, 8, 0}) p += static_cast<char>(v >> shift);
  }
  return frame(kSettings, 0, 0, p);
}

// Field names and values under 127 bytes, literal without indexing.
inline std::string hpack(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    out += '\0';
    out += static_cast<char>(name.size());
    out += name;
    out += static_cast<char>(value.size());
    out += value;
  }
  return out;
}

inline std::string request_headers(std::uint32_t stream, const std::string& method, const std::string& path,
                                   bool end_stream, std::vector<std::pair<std::string, std::string>> extra = {}) {
  std::vector<std::pair<std::string, std::string>> fields{
      {":method", method}, {":scheme", "https"}, {":path", path}, {":authority", "localhost"}};
  fields.insert(fields.end(), extra.begin(), extra.end());
  return frame(kHeaders, kEndHeaders | (end_stream ? kEndStream : 0), stream, hpack(fields));
}

inline const std::string kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

}  // namespace h2

class H2RawPeer {
 public:
  struct Frame {
    std::uint8_t type = 0, flags = 0;
    std::uint32_t stream = 0;
    std::string payload;
  };

  explicit H2RawPeer(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    ctx_ = SSL_CTX_new(TLS_client_method());
    static const unsigned char alpn[] = "\x02h2";
    SSL_CTX_set_alpn_protos(ctx_, alpn, sizeof alpn - 1);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    // A write the server does not take returns instead of blocking for good.
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    ::signal(SIGPIPE, SIG_IGN);  // a write after the server closed fails instead
    const unsigned char* chosen = nullptr;
    unsigned chosen_len = 0;
    if (SSL_connect(ssl_) == 1) SSL_get0_alpn_selected(ssl_, &chosen, &chosen_len);
    connected_ = chosen_len == 2 && std::string(reinterpret_cast<const char*>(chosen), 2) == "h2";
    // Short waits, so the loops below keep their own time.
    set_timeout(SO_SNDTIMEO, 0.05);
    set_timeout(SO_RCVTIMEO, 0.05);
  }
  ~H2RawPeer() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
    if (fd_ >= 0) ::close(fd_);
  }
  H2RawPeer(const H2RawPeer&) = delete;
  H2RawPeer& operator=(const H2RawPeer&) = delete;

  bool connected() const { return connected_; }
  bool closed() const { return closed_; }

  // The client preface and a SETTINGS frame with `values`.
  bool start(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& values = {}) {
    return send(h2::kPreface + h2::settings(values));
  }

  // All of `bytes`, waiting at most `patience_s` while the server takes none. False once the
  // connection failed or stalled that long; `sent` counts what went.
  bool send(const std::string& bytes, double patience_s = 5) {
    std::size_t at = 0;
    auto stalled_since = std::chrono::steady_clock::now();
    while (at < bytes.size() && !closed_) {
      std::size_t n = 0;
      if (SSL_write_ex(ssl_, bytes.data() + at, bytes.size() - at, &n) == 1) {
        at += n;
        sent_ += n;
        stalled_since = std::chrono::steady_clock::now();
        continue;
      }
      if (SSL_get_error(ssl_, 0) != SSL_ERROR_WANT_WRITE) closed_ = true;
      else if (seconds_since(stalled_since) > patience_s) return false;
    }
    return !closed_;
  }
  std::size_t sent() const { return sent_; }

  // The next frame, or nullopt when the connection closed or `within_s` passed (timed_out()).
  std::optional<Frame> read_frame(double within_s = 5) {
    auto t0 = std::chrono::steady_clock::now();
    timed_out_ = false;
    for (;;) {
      if (in_.size() >= 9) {
        std::size_t len = (std::uint8_t(in_[0]) << 16) | (std::uint8_t(in_[1]) << 8) | std::uint8_t(in_[2]);
        if (in_.size() >= 9 + len) {
          Frame f{std::uint8_t(in_[3]), std::uint8_t(in_[4]), 0, in_.substr(9, len)};
          for (int i = 5; i < 9; ++i) f.stream = (f.stream << 8) | std::uint8_t(in_[i]);
          f.stream &= 0x7f'ff'ff'ffu;
          in_.erase(0, 9 + len);
          return f;
        }
      }
      if (closed_) return std::nullopt;
      if (seconds_since(t0) > within_s) {
        timed_out_ = true;
        return std::nullopt;
      }
      char buf[16384];
      std::size_t n = 0;
      if (SSL_read_ex(ssl_, buf, sizeof buf, &n) == 1) in_.append(buf, n);
      else if (SSL_get_error(ssl_, 0) != SSL_ERROR_WANT_READ) closed_ = true;
    }
  }
  bool timed_out() const { return timed_out_; }

  // Frames until `stream` ends (END_STREAM) or the connection closes; nullopt-free list.
  std::vector<Frame> read_stream(std::uint32_t stream, double within_s = 5) {
    std::vector<Frame> out;
    while (auto f = read_frame(within_s)) {
      out.push_back(*f);
      if (f->stream == stream && (f->type == h2::kData || f->type == h2::kHeaders) && (f->flags & h2::kEndStream)) break;
    }
    return out;
  }

  // Reads and drops frames until the server closes; false when it is still open after `within_s`.
  bool closed_within(double within_s) {
    auto t0 = std::chrono::steady_clock::now();
    while (!closed_ && seconds_since(t0) < within_s) read_frame(within_s - seconds_since(t0));
    return closed_;
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  void set_timeout(int option, double seconds) {
    timeval tv{static_cast<time_t>(seconds), static_cast<suseconds_t>((seconds - static_cast<long>(seconds)) * 1e6)};
    ::setsockopt(fd_, SOL_SOCKET, option, &tv, sizeof tv);
  }

  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool connected_ = false, closed_ = false, timed_out_ = false;
  std::string in_;
  std::size_t sent_ = 0;
};

}  // namespace anthro::test
