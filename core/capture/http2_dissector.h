// HTTP/2 (RFC 9113) in a captured connection's application bytes: TLS with ALPN h2 opened with
// the key log, or cleartext with prior knowledge. The client's connection preface, every
// frame's header (type, flags, stream, length) checked against the receiver's limits, header
// blocks decoded with nghttp2's HPACK inflater (one per direction, as each side's encoder
// keeps its own table), and each stream's request and reply read at HttpDissector's message
// level — the same HttpReplyRecorder — so an exchange's record does not depend on the version.
// Every frame is hostile: a bad one ends the reading of the connection with a reason naming the
// frame, its stream and its byte offset.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "capture/http_dissector.h"

struct nghttp2_hd_inflater;

namespace anthro {

struct Http2Frame {
  Direction dir = Direction::ClientToServer;
  double ts = 0;
  std::uint64_t offset = 0;  // of its header in its direction's bytes (after the preface)
  std::uint8_t type = 0, flags = 0;
  std::uint32_t stream_id = 0, length = 0;
  std::string_view payload;  // its bytes, valid during the on_frame call only
};

// "DATA", "HEADERS", ... ; "0xNN" for a type RFC 9113 does not define.
std::string http2_frame_type_name(std::uint8_t type);

class Http2Dissector {
 public:
  struct Events : HttpDissector::Events {
    std::function<void(const Http2Frame&)> on_frame;
  };
  static constexpr std::size_t kMaxHeaderBlock = 256u << 10;  // one HEADERS + CONTINUATIONs, compressed
  static constexpr std::size_t kMaxHeaderList = 1u << 20;     // its fields decoded
  static constexpr std::size_t kMaxOpenStreams = 1024;
  static constexpr std::size_t kMaxRequestBody = 4u << 20;

  explicit Http2Dissector(Events events);
  ~Http2Dissector();
  Http2Dissector(const Http2Dissector&) = delete;
  Http2Dissector& operator=(const Http2Dissector&) = delete;

  void feed(Direction dir, ByteView data, double ts, std::uint64_t packet);
  void close(Direction dir, double ts);
  void finish();

  std::uint64_t frames() const { return frames_; }
  std::uint64_t requests() const { return http_.requests(); }
  std::uint64_t probe_requests() const { return http_.probe_requests(); }
  std::uint64_t sse_events() const { return http_.sse_events(); }
  // Why the connection stopped being read; empty while it reads.
  const std::string& error() const { return error_; }

 private:
  struct Side {
    std::string pending;            // bytes of an incomplete frame
    std::uint64_t offset = 0;       // bytes of this direction read so far
    bool preface_read = false;      // the client's preface; the server has none
    nghttp2_hd_inflater* inflater = nullptr;
    std::uint32_t max_frame = 16384;  // what the receiver of this side's frames allows (its SETTINGS)
    // A header block being gathered (HEADERS or PUSH_PROMISE, then CONTINUATIONs).
    std::optional<std::uint32_t> block_stream;
    std::string block;
    bool block_ends_stream = false, block_is_push = false;
  };

 public:
  struct Stream;  // one stream's request and reply (in the .cpp)

 private:
  Side& side(Direction dir) { return dir == Direction::ClientToServer ? client_ : server_; }
  bool read_preface(double ts);
  void read_frames(Direction dir, double ts);
  void frame(Direction dir, const Http2Frame& f, std::string_view payload);
  void header_fragment(Direction dir, const Http2Frame& f, std::string_view payload);
  void settings(Direction dir, const Http2Frame& f, std::string_view payload);
  void header_block(Direction dir, std::uint32_t stream_id, bool end_stream, bool push, double ts);
  void request_head(std::uint32_t id, net::HttpFields fields, bool end_stream, double ts);
  void reply_head(std::uint32_t id, const net::HttpFields& fields, bool end_stream, double ts);
  void data(Direction dir, std::uint32_t id, std::string_view bytes, bool end_stream, double ts);
  void reset(Direction dir, std::uint32_t id, std::uint32_t code, double ts);
  void open_exchange(Stream& s);
  void end_stream(std::uint32_t id, double ts);
  void fail(Direction dir, std::uint64_t offset, const std::string& why);

  Events events_;
  HttpDissector http_;
  Side client_, server_;
  std::map<std::uint32_t, std::unique_ptr<Stream>> streams_;
  std::uint64_t frame_offset_ = 0;  // of the frame being read, for errors
  std::uint32_t last_request_stream_ = 0;  // the highest stream a request opened
  std::optional<double> client_closed_, server_closed_;
  double feeding_ts_ = 0;
  std::uint64_t packet_ = 0;
  std::uint64_t frames_ = 0;
  std::string error_;
};

}  // namespace anthro
