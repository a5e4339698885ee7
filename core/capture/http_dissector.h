// HTTP/1.1 in a captured connection's application bytes (cleartext, or TLS opened with the key
// log): each request paired with its reply in order (keep-alive, pipelining), every message and
// SSE event stamped with the arrival of the packet that carried it, and each exchange a
// RequestResult built by HttpReplyRecorder, as the live HTTP client builds its own.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "capture/connection_reader.h"
#include "capture/http_event.h"
#include "capture/http_rider.h"
#include "metrics/request_result.h"
#include "net/http_io.h"

namespace anthro {

class HttpDissector {
 public:
  struct Events {
    std::function<void(const HttpEvent&)> on_event;
    std::function<void(RequestResult&)> on_exchange;  // a request ended, or the capture did
  };
  // Pipelined requests waiting for their replies, at most: a client sending more is not read further.
  static constexpr std::size_t kMaxOpen = 1024;

  explicit HttpDissector(Events events);
  ~HttpDissector();

  // Bytes of `dir` that arrived at `ts` in packet `packet` (0-based in the file).
  void feed(Direction dir, ByteView data, double ts, std::uint64_t packet);
  // `dir`'s sender closed the connection (FIN or RST).
  void close(Direction dir, double ts);
  // The connection's last bytes were fed: requests still open end (a client that closed
  // mid-reply gave up; otherwise they stay open, as the capture stopped).
  void finish();

  // The message level, which HTTP/2 shares (Http2Dissector): an exchange opened by its parsed
  // request, its reply's head, body pieces and end, then completed. `version`: "HTTP/1.1" or
  // "HTTP/2", as the event texts name it; `id`: the exchange's number (an HTTP/2 stream id).
  struct Exchange;
  struct ExchangeDeleter {
    void operator()(Exchange* x) const;
  };
  using ExchangePtr = std::unique_ptr<Exchange, ExchangeDeleter>;
  using HeaderLookup = std::function<std::string(const char* name)>;
  ExchangePtr open_exchange(const net::HttpRequest& req, std::uint32_t id, double start,
                                          std::uint64_t first_packet, std::string_view version);
  void begin_reply(Exchange& x, int status, const HeaderLookup& header, const std::string& head_text, double ts);
  void reply_body(Exchange& x, std::string_view piece, double ts);
  // `reply_fields`: the reply head's fields again, for the riders' readers (RiderReply::finished).
  void end_reply(Exchange& x, const net::HttpFields& trailers, const HeaderLookup& reply_fields, double ts);
  // The exchange is over (ended, cut, or the capture stopped): its record goes out.
  void complete(ExchangePtr x);
  static bool replying(const Exchange& x);   // its reply's head was read
  static RequestRecorder& recorder(Exchange& x);
  // The packet (0-based) whose bytes are being read, for the exchanges' packet ranges.
  void at_packet(std::uint64_t packet) { last_packet_ = packet; }

  std::uint64_t requests() const { return requests_; }
  std::uint64_t probe_requests() const { return probes_; }
  std::uint64_t sse_events() const { return sse_events_; }
  // Why the connection stopped being read as HTTP; empty while it reads.
  const std::string& error() const { return error_; }

 private:
  void read_requests(std::string_view bytes, double ts, std::uint64_t packet);
  void read_replies(std::string_view bytes, double ts);
  bool start_reply(Exchange& x, double ts);
  void read_chunk_extensions(Exchange& x);
  void end_front_reply(Exchange& x, double ts);
  void complete_front();
  void note_riders(Exchange& x, const net::HttpRequest& req);
  RiderRowSink rider_rows(std::uint32_t exchange, ProfileId rider);
  void end_open(std::optional<double> server_closed);
  void release_held();
  void fail(std::string why);

  Events events_;
  net::HttpRequestReader requests_reader_;
  net::HttpResponseReader reply_reader_;
  std::deque<ExchangePtr> open_;
  // When and in which packet the bytes of the request being read began.
  std::optional<std::pair<double, std::uint64_t>> request_start_;
  // The formats riding on HTTP, one reader each for this connection (capture/http_rider.h).
  std::vector<std::pair<ProfileId, std::unique_ptr<CapturedHttpRider>>> riders_;
  // A finished request a rider holds back until the client's next model request or the
  // connection's end (CapturedHttpRider::holds): the next request may amend it.
  std::optional<RequestResult> held_;
  std::optional<double> client_closed_;  // when the client sent its FIN or RST
  std::uint64_t last_packet_ = 0;
  std::uint32_t next_id_ = 1;
  std::uint64_t requests_ = 0, probes_ = 0, sse_events_ = 0;
  std::string error_;
};

// An HTTP carrier's capture reader (HTTP/1.1's and HTTP/2's, registered from their folders):
// `D` (HttpDissector or Http2Dissector) reads the connection, whose record keeps its counts.
template <class D>
class HttpConnectionReader : public ConnectionReader {
 public:
  explicit HttpConnectionReader(const ConnectionReaderContext& c)
      : info_(c.info), packet_(c.packet), dissector_(events(c.info, c.events)) {
    if (!c.tls) info_.transport = CaptureTransport::Http;
  }
  void feed(Direction dir, ByteView data, double ts) override {
    dissector_.feed(dir, data, ts, packet_);
    info_.http_requests = dissector_.requests();
    info_.http_probe_requests = dissector_.probe_requests();
    info_.sse_events = dissector_.sse_events();
  }
  void close(Direction dir, double ts) override { dissector_.close(dir, ts); }
  void finish() override {
    dissector_.finish();
    info_.http_error = dissector_.error();
  }
  static std::unique_ptr<ConnectionReader> make(const ConnectionReaderContext& c) { return std::make_unique<HttpConnectionReader>(c); }

 private:
  static typename D::Events events(const CaptureConnection& info, const CaptureEvents& out) {
    typename D::Events ev;
    ev.on_event = [&info, &out](const HttpEvent& e) {
      if (out.on_http) out.on_http(info, e);
    };
    ev.on_exchange = [&info, &out](RequestResult& r) {
      if (out.on_http_exchange) out.on_http_exchange(info, r);
    };
    return ev;
  }
  CaptureConnection& info_;
  const std::uint64_t& packet_;
  D dissector_;
};

}  // namespace anthro
