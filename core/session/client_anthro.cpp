// The anthro-v1 requests of a session: REQUEST, tokens as they arrive, CANCEL, RESPONSE.
#include "protocol/stream_decoder.h"
#include "session/client.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

}  // namespace

RequestSpec SessionClient::request_spec() const {
  RequestSpec spec;
  spec.model = config_.model;
  spec.messages = config_.messages;
  spec.max_tokens = config_.max_tokens;
  spec.stream = config_.stream;
  spec.system = config_.system;
  if (!config_.api_key.empty()) spec.api_key = config_.api_key;
  spec.metadata_json = config_.metadata_json;
  return spec;
}

awaitable<std::size_t> SessionClient::read_some(std::uint8_t* data, std::size_t size) {
  if (config_.read_delay_ms > 0) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    co_await sleep_for(t, config_.read_delay_ms / 1000.0);
  }
  std::size_t n = co_await stream_->read_some(data, size);
  if (n && config_.on_bytes) config_.on_bytes(false, as_text(ByteView(data, n)));
  co_return n;
}

awaitable<bool> SessionClient::write(ByteView bytes) {
  bool ok = co_await stream_->write_all(bytes);
  if (ok && config_.on_bytes) config_.on_bytes(true, as_text(bytes));
  co_return ok;
}

Bytes SessionClient::seal_cancel(InFlight& f) {
  f.cancel_sent = true;
  Bytes frame = seal_frame(f.c2s, FrameType::Cancel, f.flags, negotiated_.token, nonces_.next(),
                           encode_cancel(f.r.stream_id, CancelReason::User));
  f.r.timeline.cancel_written = now_s();  // as the write starts, like the REQUEST
  return frame;
}

awaitable<bool> SessionClient::anthro_request(RequestResult& r, const RequestOptions& options) {
  std::uint32_t stream_id = r.stream_id = next_stream_id_;
  next_stream_id_ += 2;
  RequestSpec spec = request_spec();
  spec.metadata_json = options.metadata_json;
  Aead c2s(negotiated_.suite, keys_.c2s);
  std::uint8_t flags = (config_.stream ? kFlagStreaming : 0) & negotiated_.flags;
  Bytes frame = seal_frame(c2s, FrameType::Request, flags, negotiated_.token, nonces_.next(),
                           encode_request(stream_id, spec));
  InFlight in_flight{r, c2s, flags};
  in_flight_ = &in_flight;  // request_cancel() may now send a CANCEL for this stream
  struct Clear { InFlight*& p; ~Clear() { p = nullptr; } } clear_in_flight{in_flight_};
  // Stamped as the write starts: Asio writes a small message within the call, but resumes
  // this coroutine only when the loop comes round, which under load is later.
  r.timeline.request_written = now_s();
  bool sent = co_await write(frame);
  if (!sent) {
    r.error = closed_for_cancel_ ? "cancelled by the client (connection closed)"
                                 : "cannot send REQUEST: " + stream_->error().message();
    co_return false;
  }
  if (cancel_requested_ && !in_flight.cancel_sent) {  // request_cancel() came during the write
    Bytes cancel = seal_cancel(in_flight);
    bool cancelled = co_await write(cancel);
    if (!cancelled) co_return false;
  }

  std::vector<FrameEvent> events;
  DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::None,
                           DecoderEvents{nullptr, [&](const FrameEvent& e) { events.push_back(e); }, nullptr}, nullptr);
  decoder.set_key({negotiated_.suite, keys_.s2c});
  decoder.set_header_context(HeaderContext{negotiated_.token, negotiated_.flags});
  std::uint32_t expected_index = 0, tokens = 0;
  std::vector<std::uint8_t> buf(64 * 1024);
  asio::steady_timer deadline(co_await asio::this_coro::executor);
  deadline.expires_after(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config_.timeout_s)));
  bool timed_out = false;
  deadline.async_wait([&](boost::system::error_code ec) {
    if (!ec) {
      timed_out = true;
      stream_->close();
    }
  });
  struct Cancel { asio::steady_timer& t; ~Cancel() { t.cancel(); } } cancel_deadline{deadline};

  for (;;) {
    in_flight.reading = true;
    std::size_t n = co_await read_some(buf.data(), buf.size());
    in_flight.reading = false;
    double t = now_s();  // stamped at the socket read, before any parsing
    if (n == 0) {
      r.error = closed_for_cancel_ ? "cancelled by the client (connection closed)"
                : timed_out        ? "no RESPONSE within " + std::to_string(config_.timeout_s) + " s"
                                   : "connection closed before RESPONSE" +
                                  (stream_->error() ? " (" + stream_->error().message() + ")" : std::string());
      co_return false;
    }
    decoder.feed(ByteView(buf.data(), n), t);
    for (auto& e : events) {
      if (e.refusal) {
        if (*e.refusal == FrameReason::Authentication) ++r.auth_failures;
        if (is_header_reason(*e.refusal)) {
          r.error = std::string("protocol error from server: ") + to_string(*e.refusal) + ": " + e.detail;
          co_return false;
        }
        continue;
      }
      if (!e.body || body_stream_id(*e.body) != stream_id) {
        if (auto* err = std::get_if<ErrorBody>(&*e.body); err && err->stream_id == 0) {
          r.error = "connection error " + std::to_string(err->code) + ": " + std::string(err->message_view());
          r.error_code = err->code;
          r.timeline.end = t;
          co_return false;
        }
        continue;  // a frame for another stream is reported and ignored
      }
      if (auto* tok = std::get_if<TokenBody>(&*e.body)) {
        if (tok->token_index > expected_index) ++r.token_gaps;
        if (tok->token_index < expected_index) ++r.token_duplicates;
        expected_index = tok->token_index + tok->token_count;
        if (tok->invalid_utf8) ++r.invalid_utf8_frames;
        r.timeline.tokens.push_back({t, tok->token_count, !tok->text.empty()});
        r.text += tok->text_view();
        tokens += tok->token_count;
        if (config_.on_text) config_.on_text(tok->text_view());
        if (options.cancel_after_tokens && tokens >= *options.cancel_after_tokens && !in_flight.cancel_sent) {
          if (config_.close_without_cancel) {
            in_flight.cancel_sent = true;
            r.error = "closed by the client without CANCEL";
            stream_->close();
            co_return false;
          }
          Bytes cancel = seal_cancel(in_flight);
          bool cancelled = co_await write(cancel);
          if (!cancelled) co_return false;
        }
      } else if (auto* resp = std::get_if<ResponseBody>(&*e.body)) {
        r.timeline.end = t;
        r.stop_reason = resp->stop_reason;
        r.timeline.usage_output_tokens = resp->output_tokens;
        if (resp->content) r.text += *resp->content;
        r.server_timing = resp->timing;
        if (resp->stop_reason == StopReason::Cancelled) r.timeline.cancelled_response = t;
        co_return true;
      } else if (auto* err = std::get_if<ErrorBody>(&*e.body)) {
        r.timeline.end = t;
        r.error_code = err->code;
        r.retry_after_ms = err->retry_after_ms;
        r.error = std::to_string(err->code) + ": " + std::string(err->message_view());
        co_return true;
      }
    }
    events.clear();
  }
}

}  // namespace anthro
