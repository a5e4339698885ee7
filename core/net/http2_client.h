// One HTTP/2 client connection (RFC 9113) without sockets: requests in, bytes to send out;
// bytes from the server in, each stream's reply as it arrives. nghttp2's client session does
// the framing, HPACK and flow control (WINDOW_UPDATEs go out as the body is read). The live
// client drives it over a TLS stream that selected ALPN h2.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "net/http_io.h"
#include "util/bytes.h"

struct nghttp2_session;

namespace anthro::net {

// A stream's reply as far as it arrived. Names lower case, as HTTP/2 sends them.
struct Http2Reply {
  int status = 0;
  HttpFields headers, trailers;
  std::string body;  // arrived and not yet taken
  bool head_done = false;  // the final (non-1xx) HEADERS
  bool done = false;       // the stream ended: END_STREAM, or reset (reset_code)
  std::uint32_t reset_code = 0;
  std::size_t field_bytes = 0;  // names and values so far, against kMaxFieldBytes

  std::string header(std::string_view name) const;  // the first value, or empty
  std::string take_body();
};

class Http2Client {
 public:
  // A reply's fields beyond this are a protocol error (the stream is reset).
  static constexpr std::size_t kMaxFieldBytes = 64u << 10;

  // Queues the connection preface and SETTINGS.
  Http2Client();
  ~Http2Client();
  Http2Client(const Http2Client&) = delete;
  Http2Client& operator=(const Http2Client&) = delete;

  // Queues a request: `fields` without pseudo-header fields (names lowercased here; fields that
  // are connection-specific in HTTP/1.1 left out), `body` sent as DATA. Its stream id, or -1
  // with error() set.
  std::int32_t submit(std::string_view method, std::string_view authority, std::string_view path,
                      const HttpFields& fields, std::string body);
  // Bytes from the server; false on a connection error (error() says why; a GOAWAY is queued).
  bool feed(ByteView data);
  Bytes take_output();  // what to write now
  Http2Reply* reply(std::int32_t stream);  // nullptr for a stream it never opened or forgot
  void forget(std::int32_t stream);
  // False once either side said GOAWAY or an error ended the connection: no request may start.
  bool usable() const;
  const std::string& error() const { return error_; }

 private:
  struct Callbacks;
  struct Outgoing {
    std::string body;
    std::size_t sent = 0;
  };
  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, Http2Reply> replies_;
  std::map<std::int32_t, Outgoing> bodies_;
  std::string error_;
  bool goaway_ = false;
};

}  // namespace anthro::net
