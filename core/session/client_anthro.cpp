// The anthro-v1 requests of a session: REQUEST, tokens as they arrive, CANCEL, RESPONSE.
#include <memory>
#include <span>

#include "protocol/stream_decoder.h"
#include "session/client.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

RequestSpec SessionClient::request_spec(const RequestOptions& options) const {
  RequestSpec spec;
  spec.model = config_.model;
  spec.messages = options.messages.value_or(config_.messages);
  spec.max_tokens = options.max_tokens ? options.max_tokens : config_.max_tokens;
  spec.stream = config_.stream;
  spec.system = config_.system;
  if (!config_.api_key.empty()) spec.api_key = config_.api_key;
  spec.metadata_json = options.metadata_json;
  return spec;
}

// The fullest the receive buffer got: what was just read plus what still waits in the kernel.
// A ring that fills makes TCP advertise a zero window (ring-buffer-stall). The kernel is asked
// on big reads (a backlog: a server whose writes wait coalesces its frames into full TLS
// records), always for a reader slowed on purpose, and on every 64th read; a syscall on every
// token's read would cost about as much as the read itself.
void SessionClient::note_ring(RequestResult& r, std::size_t just_read) {
  constexpr std::size_t kBacklogRead = 4096;
  bool look = just_read >= kBacklogRead || config_.read_delay_ms > 0 || r.ring_capacity == 0 || ++ring_reads_ % 64 == 0;
  if (!look) return;
  boost::system::error_code ec;
  auto& socket = stream_->socket();
  std::size_t waiting = socket.available(ec);
  if (ec) return;
  r.ring_high_water = std::max<std::uint64_t>(r.ring_high_water, waiting + just_read);
  if (r.ring_capacity == 0) {
    asio::socket_base::receive_buffer_size size;
    socket.get_option(size, ec);
    // Linux doubles SO_RCVBUF for its bookkeeping; half of it holds data.
    if (!ec) r.ring_capacity = static_cast<std::uint64_t>(size.value()) / 2;
  }
}

// Not a coroutine when there is nothing to add to the stream's read: one frame fewer a read.
awaitable<std::size_t> SessionClient::read_some(std::uint8_t* data, std::size_t size) {
  if (config_.read_delay_ms <= 0 && !config_.on_bytes) return stream_->read_some(data, size);
  return observed_read_some(data, size);
}

awaitable<std::size_t> SessionClient::observed_read_some(std::uint8_t* data, std::size_t size) {
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
  f.rec.cancel_sent(steady_now_s());  // as the write starts, like the REQUEST
  return frame;
}

awaitable<bool> SessionClient::anthro_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options) {
  std::uint32_t stream_id = r.stream_id = next_stream_id_;
  next_stream_id_ += 2;
  RequestSpec spec = request_spec(options);
  Aead c2s(negotiated_.suite, keys_.c2s);
  std::uint8_t flags = (config_.stream ? kFlagStreaming : 0) & negotiated_.flags;
  Bytes frame = seal_frame(c2s, FrameType::Request, flags, negotiated_.token, nonces_.next(),
                           encode_request(stream_id, spec));
  InFlight in_flight{r, rec, c2s, flags};
  in_flight_ = &in_flight;  // request_cancel() may now send a CANCEL for this stream
  struct Clear { InFlight*& p; ~Clear() { p = nullptr; } } clear_in_flight{in_flight_};
  // Stamped as the write starts: Asio writes a small message within the call, but resumes
  // this coroutine only when the loop comes round, which under load is later.
  rec.request_sent(steady_now_s(), {options.metadata_json ? probe_of_metadata(*options.metadata_json) : std::nullopt,
                            spec.max_tokens});
  bool sent = co_await write(frame);
  if (!sent) {
    if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
    else rec.ended(RequestEnd::SendFailed, "cannot send REQUEST: " + stream_->error().message());
    co_return false;
  }
  if (cancel_requested_ && !in_flight.cancel_sent) {  // request_cancel() came during the write
    Bytes cancel = seal_cancel(in_flight);
    bool cancelled = co_await write(cancel);
    if (!cancelled) co_return false;
  }

  std::vector<FrameEvent> events;
  // The reply is read from the bodies; each frame's plaintext buffer goes back to the decoder,
  // which opens the next frame into it instead of allocating one a token.
  DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::None,
                           DecoderEvents{nullptr,
                                         [&](FrameEvent& e) {
                                           Bytes buffer = std::move(e.plaintext);
                                           events.push_back(std::move(e));
                                           e.plaintext = std::move(buffer);
                                         },
                                         nullptr},
                           nullptr);
  decoder.set_key({negotiated_.suite, keys_.s2c});
  decoder.set_header_context(HeaderContext{negotiated_.token, negotiated_.flags});
  // Not zeroed: value-initialising 64 KiB cost ~65 k instructions a connection (callgrind).
  auto read_buffer = std::make_unique_for_overwrite<std::uint8_t[]>(64 * 1024);
  std::span<std::uint8_t> buf(read_buffer.get(), 64 * 1024);
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
    double t = steady_now_s();  // stamped at the socket read, before any parsing
    if (n) {
      rec.first_byte(t);
      note_ring(r, n);
    }
    if (n == 0) {
      if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
      else if (timed_out) rec.ended(RequestEnd::Timeout, "no RESPONSE within " + std::to_string(config_.timeout_s) + " s");
      else rec.ended(RequestEnd::ConnectionClosed, "connection closed before RESPONSE" + stream_error());
      co_return false;
    }
    double decode_start = steady_now_s();
    decoder.feed(ByteView(buf.data(), n), t);
    double decode_ms = (steady_now_s() - decode_start) * 1000 / std::max<std::size_t>(events.size(), 1);  // decrypt + verify, per frame
    r.frame_decode_ms.insert(r.frame_decode_ms.end(), events.size(), static_cast<float>(decode_ms));
    for (auto& e : events) {
      if (e.refusal) {
        if (*e.refusal == FrameReason::Authentication) ++r.auth_failures;
        if (is_header_reason(*e.refusal)) {
          rec.ended(RequestEnd::ProtocolError,
                    std::string("protocol error from server: ") + to_string(*e.refusal) + ": " + e.detail);
          co_return false;
        }
        continue;
      }
      if (!e.body || body_stream_id(*e.body) != stream_id) {
        if (auto* err = std::get_if<ErrorBody>(&*e.body); err && err->stream_id == 0) {
          rec.ended(RequestEnd::ConnectionError,
                    "connection error " + std::to_string(err->code) + ": " + std::string(err->message_view()), t);
          r.error_code = err->code;
          if (err->retry_after_ms) r.retry_after_ms = err->retry_after_ms;  // a refusal says when to come back
          co_return false;
        }
        continue;  // a frame for another stream is reported and ignored
      }
      if (auto* tok = std::get_if<TokenBody>(&*e.body)) {
        rec.tokens(t, tok->token_count, tok->text_view(), !tok->text.empty(), tok->token_index, tok->invalid_utf8);
        if (config_.on_text) config_.on_text(tok->text_view());
        if (options.cancel_after_tokens && rec.tokens_seen() >= *options.cancel_after_tokens && !in_flight.cancel_sent) {
          if (config_.close_without_cancel || options.close_without_cancel) {
            in_flight.cancel_sent = true;
            rec.ended(RequestEnd::ClientClosed, "closed by the client without CANCEL");
            stream_->close();
            co_return false;
          }
          Bytes cancel = seal_cancel(in_flight);
          bool cancelled = co_await write(cancel);
          if (!cancelled) co_return false;
        }
      } else if (auto* resp = std::get_if<ResponseBody>(&*e.body)) {
        rec.response(t, resp->stop_reason, resp->output_tokens, resp->content.value_or(""), resp->timing);
        co_return true;
      } else if (auto* err = std::get_if<ErrorBody>(&*e.body)) {
        rec.server_error(t, err->code, err->retry_after_ms, err->message_view());
        co_return true;
      }
    }
    events.clear();
  }
}

}  // namespace anthro
