// The server side of one anthro-v1 connection: negotiation, frames, and one generator
// coroutine per stream that plays the simulated model's reply plan, faults included.
#include <cstring>
#include <map>
#include <memory>
#include <span>

#include "endpoint/server_state.h"
#include "metrics/request_result.h"
#include "model/faults.h"
#include "net/deadline.h"
#include "protocol/streams.h"
#include "protocol/stream_decoder.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

Result<Bytes> answer_offer(const ServerState& state, ByteView offer_bytes, FrameKeys& keys) {
  if (auto refusal = check_offer(offer_bytes)) return make_error(to_string(refusal->reason), refusal->detail);
  Blob offer = *decode_blob(offer_bytes);
  // The X25519 that checks zero-shared also keys the frames: one scalar multiplication a connection.
  auto derived = server_frame_keys(state.server_private, offer);
  if (!derived) return derived.error();
  keys = *derived;
  Blob answer = offer;
  answer.role = kRoleAnswer;
  answer.max_streams = std::min(offer.max_streams, state.config.max_streams);
  answer.default_max_tokens = std::min(offer.default_max_tokens, state.config.default_max_tokens);
  answer.flags = offer.flags & kFlagStreaming;  // the simulated model has no speculation or caching
  answer.aead = (offer.aead & kSuiteAes256Gcm) ? kSuiteAes256Gcm : kSuiteChaCha20Poly1305;
  answer.x25519_public = state.server_public;
  random_bytes(answer.random.data(), answer.random.size());
  return encode_blob(answer);
}

RequestDecision decide_request(ServerState& state, const RequestBody& request, std::uint32_t default_max_tokens) {
  // The parsed top-level member only: a key elsewhere in the JSON (metadata, another field's
  // value) is not a key; a REQUEST naming api_key twice never gets here (400 from the parser).
  if (!credential_accepted(request.api_key, state.config.required_api_key))
    return {StreamRefusal{401, 0, "unauthorized: api_key missing or wrong"}, {}};
  std::string prompt = prompt_text(request.system, request.messages);
  if (auto refusal = refuse_request(state.config, request.model, prompt))
    return {StreamRefusal{static_cast<std::uint16_t>(refusal->code), 0, refusal->message}, {}};
  ReplyRequest rr{request.model, prompt, request.effective_max_tokens(default_max_tokens), state.request_number++,
                  state.replay ? meta_of_request(request.json).probe : std::nullopt};
  ReplyPlan plan = state.plan(ProfileId::AnthroV1, state.model, rr);
  if (plan.overload) return {StreamRefusal{429, plan.retry_after_ms, "overloaded: retry after the scheduler's estimate"}, {}};
  return {std::nullopt, std::move(plan)};
}

namespace {

struct StreamState {
  StreamState(const asio::any_io_executor& ex, std::uint32_t id, std::uint8_t flags) : id(id), flags(flags), timer(ex) {}
  std::uint32_t id;
  std::uint8_t flags;
  RequestBody request;
  bool cancelled = false;
  asio::steady_timer timer;  // the generator's sleeps; cancelled to wake it for CANCEL
};

class Connection : public std::enable_shared_from_this<Connection>, public Drainable {
 public:
  Connection(std::unique_ptr<ByteStream> stream, ServerState& state, std::unique_ptr<ExtensionState> ext,
             Admission admission)
      : stream_(std::move(stream)), state_(state), ext_(std::move(ext)), admission_(admission),
        writer_(*stream_, state.config.send_timeout_s),
        streams_(1), deadline_(*stream_), started_(Clock::now()), streams_done_(stream_->socket().get_executor()) {}

  // (Defined before its uses: its type is deduced.) The completion handler of every coroutine
  // a connection spawns.
  auto on_failure() {
    return report_failure([self = shared_from_this()](const std::string& what) { self->internal_error(what); });
  }

  awaitable<void> run() {
    auto self = shared_from_this();
    state_.live.insert(this);
    auto failure = co_await failure_of(converse());
    if (failure) internal_error(*failure);
    co_await writer_.flush();
    finish();
  }

 private:
  awaitable<void> converse() {
    bool refused = admission_ == Admission::Refuse;
    deadline_.arm(refused ? refusal_timeout_s(state_.config) : state_.config.handshake_timeout_s);
    bool negotiated = co_await negotiate();
    if (!negotiated && deadline_.expired()) {
      ++state_.counters.handshake_failures;
      ++state_.counters.timeouts;
    }
    if (negotiated && refused) co_await refuse();
    else if (negotiated) co_await read_loop();
    if (negotiated && deadline_.expired()) ++state_.counters.timeouts;
    // The peer's reader closing is not a cancel (spec §5): streams play out before we close.
    while (!live_streams_.empty() && !writer_.failed() && !closing_) co_await streams_done_.wait();
  }

  // A coroutine threw: the log hears why, the peer an ERROR 500 on stream 0, and the
  // connection closes, instead of the coroutine vanishing and the peer waiting forever.
  void internal_error(const std::string& what) {
    state_.log("anthro-v1 connection: internal error: " + what);
    if (!closing_) drain(500, 0, "internal error: " + what);
  }

  awaitable<bool> negotiate() {
    Bytes answer_bytes;
    if (ext_ && !ext_->answer.empty()) {
      answer_bytes = ext_->answer;
      keys_ = ext_->keys;  // derived while answering in the handshake
    } else {
      std::uint8_t preface[kPrefaceSize];
      std::size_t have = 0;
      while (have < kPrefaceSize) {
        std::size_t n = co_await stream_->read_some(preface + have, kPrefaceSize - have);
        if (n == 0) co_return false;
        have += n;
        // An HTTP request (or anything else) is not a preface: close without answering.
        if (std::memcmp(preface, kPrefaceMagic.data(), std::min(have, kPrefaceMagic.size())) != 0) co_return false;
      }
      auto answer = answer_offer(state_, ByteView(preface + 8, kPrefaceSize - 8), keys_);
      if (!answer) {
        ++state_.counters.handshake_failures;
        co_return false;
      }
      answer_bytes = *answer;
      Bytes out(kPrefaceMagic.begin(), kPrefaceMagic.end());
      append(out, answer_bytes);
      writer_.send(std::move(out));
    }
    negotiated_ = negotiated_from(*decode_blob(answer_bytes));
    streams_ = StreamTable(negotiated_.max_streams);
    s2c_.emplace(negotiated_.suite, keys_.s2c);
    deadline_.arm(state_.config.idle_timeout_s);
    co_return true;
  }

  // Beyond max_connections: the connection-level ERROR 503 with its reason, then a close
  // that lets the peer read it.
  awaitable<void> refuse() {
    end_connection(503, kRefusalRetryMs, refusal_text(state_.config));
    co_await writer_.flush();
    deadline_.disarm();
    co_await close_gracefully(*stream_, refusal_timeout_s(state_.config));
  }

  awaitable<void> read_loop() {
    std::vector<FrameEvent> events;
    DirectionDecoder decoder(Direction::ClientToServer, PrefaceMode::None,
                             DecoderEvents{nullptr, [&](FrameEvent& e) { events.push_back(std::move(e)); }, nullptr},
                             nullptr);
    decoder.set_key({negotiated_.suite, keys_.c2s});
    decoder.set_header_context(HeaderContext{negotiated_.token, negotiated_.flags});
    // Not zeroed: value-initialising 64 KiB cost ~65 k instructions a connection (callgrind).
    auto read_buffer = std::make_unique_for_overwrite<std::uint8_t[]>(64 * 1024);
    std::span<std::uint8_t> buf(read_buffer.get(), 64 * 1024);
    while (!closing_) {
      std::size_t n = co_await stream_->read_some(buf.data(), buf.size());
      if (n == 0) break;
      if (live_streams_.empty()) deadline_.arm(state_.config.idle_timeout_s);  // idle counts from the last read
      auto t0 = Clock::now();
      decoder.feed(ByteView(buf.data(), n));
      if (!events.empty()) state_.metrics.frame_decoded(seconds_since(t0) / static_cast<double>(events.size()));
      for (auto& e : events) {
        handle(e);
        if (closing_) break;
      }
      events.clear();
    }
  }

  void handle(FrameEvent& e) {
    if (e.decrypted) consecutive_drops_ = 0;
    if (!e.refusal) return handle_body(e);
    switch (live_action(*e.refusal, e.header.frame_type())) {
      case LiveAction::ProtocolErrorAndClose: return protocol_error(std::string(to_string(*e.refusal)) + ": " + e.detail);
      case LiveAction::DropAndCount:
        ++state_.counters.frames_dropped;
        state_.metrics.frame_dropped();
        // Counted here, per frame: the decoder's own count covers a whole read.
        if (++consecutive_drops_ >= kMaxConsecutiveAuthDrops)
          protocol_error("16 consecutive frames failed authentication");
        return;
      case LiveAction::BadRequestOnStream:
        send_error(e.plaintext.size() >= 4 ? load_u32(e.plaintext.data()) : 0, 400, 0, e.detail);
        return;
      case LiveAction::ReportAndSkip:
      case LiveAction::Close: return;
    }
  }

  void handle_body(FrameEvent& e) {
    if (auto* req = std::get_if<RequestBody>(&*e.body)) return start_stream(e.header.flags, std::move(*req));
    if (auto* cancel = std::get_if<CancelBody>(&*e.body)) return on_cancel(cancel->stream_id);
    // Servers receive only REQUEST and CANCEL; anything else is reported and skipped.
  }

  void start_stream(std::uint8_t flags, RequestBody request) {
    if (auto why = streams_.open(request.stream_id)) return protocol_error(*why);
    ++state_.counters.requests;
    state_.metrics.request();
    auto stream = std::make_shared<StreamState>(stream_->socket().get_executor(), request.stream_id, flags);
    stream->request = std::move(request);
    live_streams_[stream->id] = stream;
    deadline_.disarm();  // not idle while a stream is in flight
    co_spawn(stream_->socket().get_executor(), generate(shared_from_this(), stream), on_failure());
  }

  void on_cancel(std::uint32_t id) {
    ++state_.counters.cancels;
    state_.metrics.cancel();
    auto it = live_streams_.find(id);
    if (it == live_streams_.end() || state_.config.model.faults.ignore_cancel) return;  // unknown: ignored
    auto stream = it->second;
    if (auto delay = state_.config.model.faults.slow_cancel_ms) {
      co_spawn(stream_->socket().get_executor(), cancel_later(shared_from_this(), stream, *delay), on_failure());
      return;
    }
    stream->cancelled = true;
    stream->timer.cancel();
  }

  static awaitable<void> cancel_later(std::shared_ptr<Connection>, std::shared_ptr<StreamState> stream, double ms) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    co_await sleep_for(t, ms / 1000.0);
    stream->cancelled = true;
    stream->timer.cancel();
  }

  // Sleeps unless the stream is cancelled meanwhile; false when it was.
  static awaitable<bool> wait(StreamState& s, double ms) {
    if (s.cancelled) co_return false;
    if (ms > 0) co_await sleep_for(s.timer, ms / 1000.0);
    co_return !s.cancelled;
  }

  static awaitable<void> generate(std::shared_ptr<Connection> self, std::shared_ptr<StreamState> s) {
    auto failure = co_await failure_of(self->play(*s));
    self->streams_.close(s->id);
    self->live_streams_.erase(s->id);
    if (self->live_streams_.empty() && !self->finished_) self->deadline_.arm(self->state_.config.idle_timeout_s);
    self->streams_done_.notify();
    if (failure) self->internal_error("stream " + std::to_string(s->id) + ": " + *failure);
  }

  awaitable<void> play(StreamState& s) {
    const Faults& faults = state_.config.model.faults;
    RequestDecision decision = decide_request(state_, s.request, negotiated_.default_max_tokens);
    if (const auto& refusal = decision.refusal) {
      send_error(s.id, refusal->code, refusal->retry_after_ms, refusal->message);
      co_return;
    }
    const ReplyPlan& plan = decision.plan;
    auto t0 = Clock::now();
    bool live = co_await wait(s, plan.queue_ms + plan.context_wait_ms + plan.prefill_ms);
    state_.metrics.context_wait(plan.context_wait_ms / 1000.0);
    std::string content;
    std::uint32_t sent = 0, index = 0;
    auto first = Clock::now(), last = first;
    TokenSchedule schedule(plan);
    for (std::size_t i = 0; live && i < plan.tokens.size() && !plan.error_due(sent); ++i) {
      const TokenStep& step = plan.tokens[i];
      // The sleep and the queue's wait are awaited here, not through helpers: each coroutine
      // frame is an allocation per token on every stream.
      if (auto due = schedule.due(i, Clock::now()); due && !s.cancelled) co_await sleep_until(s.timer, *due);
      if (!(live = !s.cancelled)) break;
      if (writer_.queued_bytes() > state_.config.max_queued_bytes) co_await writer_.wait_below(state_.config.max_queued_bytes);
      if (writer_.failed() || closing_) co_return;
      auto now = Clock::now();
      if (i == 0) {
        first = now;
        state_.metrics.ttft(seconds_since(t0));
      } else {
        state_.metrics.inter_token(std::chrono::duration<double>(now - last).count());
      }
      last = now;
      std::string text = faults.utf8_surrogate ? to_cesu8(step.text) : step.text;
      if (s.flags & kFlagStreaming) {
        bool corrupt = std::find(plan.corrupt_token.begin(), plan.corrupt_token.end(), i) != plan.corrupt_token.end();
        encode_token(s.id, index, 1, as_bytes(text), token_body_);
        // One token is one frame (token_count counts tokens), so a token the ring cannot hold ends the stream.
        if (token_body_.size() > max_plaintext())
          co_return send_error(s.id, 413, 0, too_big("a STREAM_TOKEN", token_body_.size()));
        Bytes frame = seal(FrameType::StreamToken, s.flags, token_body_, corrupt);
        // A burst queues frames as fast as the socket takes them (bounded by wait_below above),
        // so they leave in big writes that fill a slow reader's ring.
        if (faults.burst) writer_.send(std::move(frame));
        else if (!writer_.send_now(frame)) co_await writer_.write(std::move(frame));
      }
      if (!(s.flags & kFlagStreaming)) content += text;  // a non-streamed RESPONSE carries it all
      ++sent;
      ++index;
      if (std::find(plan.skip_index_after.begin(), plan.skip_index_after.end(), i) != plan.skip_index_after.end()) ++index;
      if (plan.reset_due(sent)) co_return co_await cut();
    }
    if (closing_) co_return;  // after a connection-level ERROR nothing more is sent
    // A replayed stream's own end, when it was not a reply.
    if (live && plan.error_due(sent)) co_return send_error(s.id, plan.error->code, plan.error->retry_after_ms, plan.error->message);
    if (live && plan.reset_due(sent)) co_return co_await cut();
    ResponseSpec response;
    response.id = "msg_" + token_hex(negotiated_.token).substr(0, 8) + "_" + std::to_string(s.id);
    response.model = s.request.model;
    response.stop_reason = s.cancelled ? StopReason::Cancelled : plan.stop_reason;
    if (!(s.flags & kFlagStreaming)) response.content = content;
    response.input_tokens = plan.input_tokens;
    response.output_tokens = sent;
    response.timing = Timing{us(plan.queue_ms), us(plan.context_wait_ms), us(plan.prefill_ms),
                             static_cast<std::uint64_t>(std::chrono::duration<double, std::micro>(last - first).count())};
    Bytes body = encode_response(s.id, response);
    // A RESPONSE is one frame: a whole non-streamed text beyond the ring is refused, never cut.
    if (body.size() > max_plaintext()) co_return send_error(s.id, 413, 0, too_big("the RESPONSE", body.size()));
    Bytes frame = seal(FrameType::Response, s.flags, body);
    co_await writer_.write(std::move(frame));
    if (faults.close_after_response) {
      co_await writer_.flush();
      closing_ = true;
      stream_->close();
    }
  }

  // TCP RST mid-stream: what a dead server leaves.
  awaitable<void> cut() {
    co_await writer_.flush();
    closing_ = true;
    stream_->reset();
  }

  static std::uint64_t us(double ms) { return static_cast<std::uint64_t>(ms * 1000.0); }

  Bytes seal(FrameType type, std::uint8_t flags, const Bytes& plaintext, bool corrupt = false) {
    Bytes frame = writer_.spare();
    seal_frame(*s2c_, type, flags, negotiated_.token, nonces_.next(), plaintext, frame);
    if (corrupt) frame[kHeaderSize + kNonceSize] ^= 0x01;  // a flipped ciphertext bit
    return frame;
  }

  void send_frame(FrameType type, std::uint8_t flags, const Bytes& plaintext) {
    writer_.send(seal(type, flags, plaintext));
  }

  // Spec §5: the server never sends a frame whose 16 + payload_length exceeds the client's ring.
  std::size_t max_plaintext() const {
    std::size_t frame = std::min<std::size_t>(std::size_t{negotiated_.ring_buffer_kib} * 1024, kMaxFrame);
    return frame - kHeaderSize - kNonceSize - kTagSize;
  }

  std::string too_big(const char* what, std::size_t plaintext) const {
    return std::string(what) + " would be a frame of " + std::to_string(kHeaderSize + kNonceSize + plaintext + kTagSize) +
           " bytes; the client's ring_buffer_kib " + std::to_string(negotiated_.ring_buffer_kib) +
           " takes frames of at most " + std::to_string(max_plaintext() + kHeaderSize + kNonceSize + kTagSize) +
           " (stream the reply, or offer a bigger ring)";
  }

  void send_error(std::uint32_t stream_id, std::uint16_t code, std::uint32_t retry_after_ms, std::string_view message) {
    // A message too long for the ring is cut at a character boundary, and says so.
    constexpr std::string_view cut_note = " [cut to fit the client's ring]";
    std::size_t room = max_plaintext() - kMinErrorBody;
    std::string text(message);
    if (text.size() > room) {
      std::size_t keep = room - cut_note.size();
      while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // not inside a character
      text.resize(keep);
      text += cut_note;
    }
    send_frame(FrameType::Error, 0, encode_error(stream_id, code, retry_after_ms, text));
  }

  void protocol_error(const std::string& why) {
    ++state_.counters.protocol_errors;
    end_connection(1, 0, "protocol error: " + why);
  }

  // The endpoint is going away (a failover): clients are told to retry elsewhere.
  void drain(std::uint16_t code, std::uint32_t retry_after_ms, const std::string& why) override {
    end_connection(code, retry_after_ms, why);
    co_spawn(stream_->socket().get_executor(), close_when_flushed(shared_from_this()),
             report_failure([&state = state_](const std::string& what) { state.log("anthro-v1 connection: " + what); }));
  }

  static awaitable<void> close_when_flushed(std::shared_ptr<Connection> self) {
    co_await self->writer_.flush();
    self->stream_->close();  // wakes the read loop
  }

  // A connection-level ERROR (stream 0), after which nothing more is sent.
  void end_connection(std::uint16_t code, std::uint32_t retry_after_ms, const std::string& message) {
    if (s2c_) send_error(0, code, retry_after_ms, message);
    closing_ = true;
    for (auto& [_, s] : live_streams_) {
      s->cancelled = true;
      s->timer.cancel();
    }
  }

  void finish() {
    if (writer_.timed_out()) ++state_.counters.timeouts;
    state_.live.erase(this);
    finished_ = true;
    writer_.stop();
    deadline_.disarm();
    stream_->close();
    state_.metrics.connection_closed(seconds_since(started_));
  }

  std::unique_ptr<ByteStream> stream_;
  ServerState& state_;
  std::unique_ptr<ExtensionState> ext_;
  Admission admission_;
  WriteQueue writer_;
  StreamTable streams_;
  Deadline deadline_;  // the handshake's, then the idle time's
  Clock::time_point started_;
  Negotiated negotiated_;
  FrameKeys keys_;
  std::optional<Aead> s2c_;
  NonceSequence nonces_;
  std::map<std::uint32_t, std::shared_ptr<StreamState>> live_streams_;
  Signal streams_done_;
  Bytes token_body_;  // each STREAM_TOKEN's plaintext in turn, sealed before the next is made
  unsigned consecutive_drops_ = 0;
  bool closing_ = false, finished_ = false;
};

}  // namespace

awaitable<void> serve_anthro(std::unique_ptr<ByteStream> stream, ServerState& state,
                             std::unique_ptr<ExtensionState> extension, Admission admission) {
  auto connection = std::make_shared<Connection>(std::move(stream), state, std::move(extension), admission);
  co_await connection->run();
}

}  // namespace anthro
