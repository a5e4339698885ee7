// HTTP/2 (RFC 9113) on the TLS port, ALPN h2. nghttp2's server session does the framing, HPACK
// and flow control; each stream's request is answered by answer_http_request, as an HTTP/1.1
// request is, and only the writing differs: HEADERS, a DATA frame per piece, trailing HEADERS.
#include <malloc.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>

#include "endpoint/reply_writer.h"
#include "endpoint/server_state.h"
#include "net/deadline.h"

namespace anthro {

using namespace net;

namespace {

constexpr std::size_t kMaxHeaderBytes = 64 << 10;    // one request's fields, names and values
constexpr std::uint32_t kMaxConcurrentStreams = 100;
using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// One request stream: its request as it arrives, then its reply's body as it is made.
struct H2Stream {
  std::int32_t id = 0;
  HttpRequest request;
  std::size_t header_bytes = 0;
  bool too_big = false;      // the body passed kHttpBodyLimit: answered 413
  std::string pending;       // body bytes nghttp2 has not taken yet
  bool body_done = false;    // the reply's body is complete
  ReplyHeaders trailers;     // sent as trailing HEADERS once the body is out
  bool closed = false;       // nghttp2 closed it (ended, or reset by the peer)
  // Until the request has ended: when its head, or its body at kMinBodyRate, runs out of time.
  std::optional<Clock::time_point> read_due;
  // Since when `pending` has bytes that flow control let none of go (a zero window).
  std::optional<Clock::time_point> stalled_since;
};

// Names in lower case (RFC 9113 §8.2.1); connection-specific fields dropped (§8.2.2).
bool connection_specific(const std::string& name) {
  return name == "connection" || name == "transfer-encoding" || name == "keep-alive" || name == "upgrade" ||
         name == "proxy-connection";
}

// Field lists for nghttp2, which copies them when submitted.
class FieldList {
 public:
  void add(std::string name, std::string value) {
    std::ranges::transform(name, name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (connection_specific(name)) return;
    fields_.emplace_back(std::move(name), std::move(value));
  }
  std::vector<nghttp2_nv> nv() {
    std::vector<nghttp2_nv> out;
    for (auto& [n, v] : fields_)
      out.push_back({reinterpret_cast<std::uint8_t*>(n.data()), reinterpret_cast<std::uint8_t*>(v.data()), n.size(),
                     v.size(), NGHTTP2_NV_FLAG_NONE});
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

class Http2Connection {
 public:
  Http2Connection(ByteStream& stream, ServerState& state, Admission admission)
      : stream_(stream),
        state_(state),
        admission_(admission),
        writer_(stream, state.config.send_timeout_s),
        deadline_(stream),
        idle_since_(Clock::now()),
        done_(stream.socket().get_executor()) {}
  ~Http2Connection() {
    if (session_) nghttp2_session_del(session_);
  }

  awaitable<void> run() {
    if (!start_session()) co_return;
    std::vector<std::uint8_t> buffer(16384);
    rearm();
    for (;;) {
      // Backpressure: a peer that does not take what it asked for (PING ACKs, replies) is not
      // read until it does, and the write's send timeout closes it if it never does.
      co_await writer_.wait_below(state_.config.max_queued_bytes);
      if (writer_.failed()) break;
      std::size_t n = co_await stream_.read_some(buffer.data(), buffer.size());
      if (n == 0 || writer_.failed()) break;
      auto used = nghttp2_session_mem_recv(session_, buffer.data(), n);
      flush();  // a protocol error's GOAWAY too
      if (used < 0) {
        state_.log(std::string("HTTP/2 connection: ") + nghttp2_strerror(static_cast<int>(used)));
        break;
      }
      if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) break;
    }
    if (deadline_.expired()) ++state_.counters.timeouts;
    // The streams still being answered see a closed stream at their next write and end.
    for (auto& [id, s] : streams_) s->closed = true;
    while (live_ > 0) co_await done_.wait();
    co_await writer_.flush();
    if (writer_.timed_out()) ++state_.counters.timeouts;
  }

  // Hands what nghttp2 has to send to the write queue. Never from inside an nghttp2 callback.
  void flush() {
    Bytes out;
    for (;;) {
      const std::uint8_t* data = nullptr;
      auto n = nghttp2_session_mem_send(session_, &data);
      if (n <= 0) break;
      out.insert(out.end(), data, data + n);
    }
    if (!out.empty()) writer_.send(std::move(out));
    filled_ = filled_ || writer_.queued_bytes() > state_.config.max_queued_bytes;
    rearm();
  }

  // The connection's one deadline, at the soonest of: idle since the last stream ended; each
  // request's head or body running out of time; each reply stalled against a zero window
  // for the send timeout. A reply still being made is not the peer's delay.
  void rearm() {
    const EndpointConfig& c = state_.config;
    const bool refused = admission_ == Admission::Refuse;
    std::optional<Clock::time_point> due;
    auto sooner = [&due](Clock::time_point t) { due = due ? std::min(*due, t) : t; };
    if (!streams_.empty() || live_ > 0) idle_since_.reset();
    else if (!idle_since_) idle_since_ = Clock::now();
    double idle_s = refused ? refusal_timeout_s(c) : c.idle_timeout_s;
    if (idle_since_ && idle_s > 0) sooner(*idle_since_ + seconds(idle_s));
    for (auto& [id, s] : streams_) {
      if (s->read_due) sooner(*s->read_due);
      if (s->pending.empty()) s->stalled_since.reset();
      else if (!s->stalled_since) s->stalled_since = Clock::now();
      if (s->stalled_since && c.send_timeout_s > 0) sooner(*s->stalled_since + seconds(c.send_timeout_s));
    }
    if (!due) return deadline_.disarm();
    deadline_.arm(std::max(std::chrono::duration<double>(*due - Clock::now()).count(), 1e-3));
  }

  // The queue passed max_queued_bytes at some point.
  bool filled() const { return filled_; }

  awaitable<void> wait_for_writes() { co_await writer_.wait_below(state_.config.max_queued_bytes); }
  nghttp2_session* session() { return session_; }
  ByteStream& stream() { return stream_; }
  bool failed() const { return writer_.failed(); }

 private:
  bool start_session() {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    int rv = nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    if (rv != 0) {
      state_.log(std::string("HTTP/2: cannot start a session: ") + nghttp2_strerror(rv));
      return false;
    }
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams},
                                         {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxHeaderBytes}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    flush();
    return true;
  }

  static Http2Connection& self(void* user) { return *static_cast<Http2Connection*>(user); }
  // A phase's budget; none (nullopt) when it is 0.
  std::optional<Clock::time_point> due_in(double budget_s) const {
    if (admission_ == Admission::Refuse) budget_s = refusal_timeout_s(state_.config);
    if (budget_s <= 0) return std::nullopt;
    return Clock::now() + seconds(budget_s);
  }

  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto s = std::make_shared<H2Stream>();
    s->id = frame->hd.stream_id;
    s->read_due = self(user).due_in(self(user).state_.config.header_timeout_s);
    nghttp2_session_set_stream_user_data(session, s->id, s.get());
    self(user).streams_[s->id] = std::move(s);
    return 0;
  }

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t namelen,
                       const std::uint8_t* value, std::size_t valuelen, std::uint8_t, void*) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto* s = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (!s) return 0;
    s->header_bytes += namelen + valuelen + 32;  // RFC 9113 §6.5.2's count
    if (s->header_bytes > kMaxHeaderBytes) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // resets the stream
    std::string n(reinterpret_cast<const char*>(name), namelen), v(reinterpret_cast<const char*>(value), valuelen);
    HttpRequest& req = s->request;
    if (n == ":method") req.method = std::move(v);
    else if (n == ":path") req.target = std::move(v);
    else if (n == ":authority") req.headers["host"] = std::move(v);
    else if (n.front() != ':') {  // nghttp2 has checked the name is lower case and legal
      if (req.headers.count(n)) req.repeated.insert(n);
      req.headers[n] = std::move(v);
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                           std::size_t len, void* user) {
    auto* s = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
    if (!s) return 0;
    self(user).body_progress(*s, len);
    if (s->too_big) return 0;
    if (s->request.body.size() + len > kHttpBodyLimit) {
      s->too_big = true;
      s->request.body.clear();
      return 0;
    }
    s->request.body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }

  // The request is complete once the client ends its stream: it is answered on its own coroutine.
  static int on_frame(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    bool request_frame = frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA;
    if (!request_frame) return 0;
    auto& c = self(user);
    auto it = c.streams_.find(frame->hd.stream_id);
    if (it == c.streams_.end() || !nghttp2_session_get_stream_user_data(session, frame->hd.stream_id)) return 0;
    if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      // The head is in: the body's clock starts (HTTP/1.1's read_http_request times it alike).
      if (frame->hd.type == NGHTTP2_HEADERS) it->second->read_due = c.due_in(c.state_.config.body_timeout_s);
      return 0;
    }
    it->second->read_due.reset();
    ++c.live_;
    co_spawn(c.stream_.socket().get_executor(), c.answer(it->second), report_failure([&c](const std::string& why) {
               c.state_.log("HTTP/2 stream: " + why);
             }));
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t, void* user) {
    auto& c = self(user);
    auto it = c.streams_.find(stream_id);
    if (it == c.streams_.end()) return 0;
    it->second->closed = true;
    c.streams_.erase(it);
    return 0;
  }

  awaitable<void> answer(std::shared_ptr<H2Stream> s);

  // Each body piece buys time at kMinBodyRate, up to the body timeout ahead.
  void body_progress(H2Stream& s, std::size_t len) {
    if (!s.read_due) return;
    auto limit = due_in(state_.config.body_timeout_s);
    if (!limit) return s.read_due.reset();
    s.read_due = std::min(*s.read_due + seconds(len / kMinBodyRate), *limit);
  }

  ByteStream& stream_;
  ServerState& state_;
  Admission admission_;
  WriteQueue writer_;
  Deadline deadline_;  // rearm() says what it is armed for
  std::optional<Clock::time_point> idle_since_;  // no stream open, none being answered
  bool filled_ = false;  // the queue passed max_queued_bytes
  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, std::shared_ptr<H2Stream>> streams_;
  std::size_t live_ = 0;  // streams being answered
  Signal done_;           // one of them ended
};

// The body nghttp2 asks for: what the stream has, a DATA frame per piece as it was made.
ssize_t read_body(nghttp2_session* session, std::int32_t stream_id, std::uint8_t* buf, std::size_t length,
                  std::uint32_t* flags, nghttp2_data_source* source, void*) {
  auto* s = static_cast<H2Stream*>(source->ptr);
  if (s->pending.empty() && !s->body_done) return NGHTTP2_ERR_DEFERRED;
  std::size_t n = std::min(length, s->pending.size());
  std::memcpy(buf, s->pending.data(), n);
  s->pending.erase(0, n);
  if (n > 0) s->stalled_since.reset();  // the window let some through
  if (!s->pending.empty() || !s->body_done) return static_cast<ssize_t>(n);
  *flags |= NGHTTP2_DATA_FLAG_EOF;
  if (!s->trailers.empty()) {
    FieldList fields;
    for (auto& [name, value] : s->trailers) fields.add(name, value);
    auto nv = fields.nv();
    if (nghttp2_submit_trailer(session, stream_id, nv.data(), nv.size()) == 0) *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
  }
  return static_cast<ssize_t>(n);
}

// answer_http_request as failure_of takes it.
awaitable<void> answered(const HttpRequest& req, ServerState& state, ReplyWriter& out, asio::steady_timer& timer) {
  co_await answer_http_request(req, state, out, timer);
}

// One stream's reply as HTTP/2 frames.
class Http2Writer : public ReplyWriter {
 public:
  Http2Writer(Http2Connection& c, std::shared_ptr<H2Stream> s) : c_(c), s_(std::move(s)) {}

  awaitable<bool> respond(int status, std::string content_type, std::string body, ReplyHeaders headers) override {
    if (!content_type.empty()) headers.emplace_back("content-type", std::move(content_type));
    if (status != 204 && status != 304) headers.emplace_back("content-length", std::to_string(body.size()));
    s_->pending = std::move(body);
    s_->body_done = true;
    co_return co_await submit(status, headers, !s_->pending.empty());
  }
  awaitable<bool> start(int status, ReplyHeaders headers) override { co_return co_await submit(status, headers, true); }
  awaitable<bool> piece(std::string data, std::string) override {
    if (s_->closed || c_.failed()) co_return false;
    s_->pending += data;
    nghttp2_session_resume_data(c_.session(), s_->id);
    c_.flush();
    co_await c_.wait_for_writes();
    co_return !s_->closed && !c_.failed();
  }
  awaitable<bool> end(ReplyHeaders trailers) override {
    if (s_->closed || c_.failed()) co_return false;
    s_->trailers = std::move(trailers);
    s_->body_done = true;
    nghttp2_session_resume_data(c_.session(), s_->id);
    c_.flush();
    co_await c_.wait_for_writes();
    co_return !c_.failed();
  }
  void reset() override { c_.stream().reset(); }
  bool started() const override { return started_; }

 private:
  awaitable<bool> submit(int status, const ReplyHeaders& headers, bool with_body) {
    if (s_->closed || c_.failed()) co_return false;
    started_ = true;
    FieldList fields;
    fields.add(":status", std::to_string(status));
    for (const auto& [name, value] : headers) fields.add(name, value);
    auto nv = fields.nv();
    nghttp2_data_provider body{};
    body.source.ptr = s_.get();
    body.read_callback = read_body;
    int rv = nghttp2_submit_response(c_.session(), s_->id, nv.data(), nv.size(), with_body ? &body : nullptr);
    if (rv != 0) co_return false;
    c_.flush();
    co_await c_.wait_for_writes();
    co_return !c_.failed();
  }

  Http2Connection& c_;
  std::shared_ptr<H2Stream> s_;
  bool started_ = false;
};

awaitable<void> Http2Connection::answer(std::shared_ptr<H2Stream> s) {
  Http2Writer out(*this, s);
  asio::steady_timer timer(stream_.socket().get_executor());
  ++state_.counters.http_requests;
  std::optional<std::string> failure;
  ReplyHeaders none;  // (a named variable: GCC 12 miscompiles a braced list inside co_await)
  if (s->too_big) {
    co_await out.respond(413, "text/plain", "request body larger than " + std::to_string(kHttpBodyLimit) + " bytes\n", none);
  } else if (admission_ == Admission::Refuse) {
    co_await refuse_http_request(s->request, state_, out);
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_NO_ERROR, nullptr, 0);
    flush();
  } else {
    failure = co_await failure_of(answered(s->request, state_, out, timer));
  }
  if (failure) {
    state_.log("HTTP/2 stream " + std::to_string(s->id) + ": internal error: " + *failure);
    if (!out.started()) co_await out.respond(500, "application/json", internal_error_body(s->request, *failure), none);
    else if (!s->closed) nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_INTERNAL_ERROR);
    flush();
  }
  --live_;
  rearm();
  done_.notify();
}

}  // namespace

awaitable<void> serve_http2(std::unique_ptr<ByteStream> stream, ServerState& state, Admission admission) {
  bool filled = false;
  {
    Http2Connection connection(*stream, state, admission);
    co_await connection.run();
    filled = connection.filled();
  }
  stream->close();
  // What a full queue took goes back to the system, not only to malloc's free lists: a
  // flood's megabytes would otherwise stay with the process after the connection.
  if (filled) malloc_trim(0);
}

}  // namespace anthro
