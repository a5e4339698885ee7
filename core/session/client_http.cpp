// The HTTP baseline requests of a session: the Messages API or chat completions, with SSE
// events timed at the socket read that delivered them.
#include <charconv>

#include "http/messages_api.h"
#include "net/http_io.h"
#include "session/client.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

std::string host_header(const Target& t) {
  std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return host + ":" + std::to_string(t.port);
}

// The message of an API error body, or the body itself.
std::string error_message(const std::string& body) {
  auto pos = body.find("\"message\"");
  if (pos == std::string::npos) return body.substr(0, 200);
  auto start = body.find('"', body.find(':', pos) + 1);
  auto end = start == std::string::npos ? start : body.find('"', start + 1);
  return start == std::string::npos || end == std::string::npos ? body.substr(0, 200) : body.substr(start + 1, end - start - 1);
}

// The retry-after-ms header; nothing when it is absent or not a number.
std::optional<std::uint32_t> retry_after_ms(const HttpResponseReader& response) {
  std::string ms = response.header("retry-after-ms");
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), value);
  if (ms.empty() || ec != std::errc() || end != ms.data() + ms.size()) return std::nullopt;
  return value;
}

}  // namespace

awaitable<bool> SessionClient::http_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options) {
  bool messages = target_.kind == TargetKind::Messages;
  RequestSpec spec = request_spec(options);
  spec.api_key.reset();  // the key travels in a header, never in the body
  std::string body = messages ? messages_request_json(spec) : chat_completions_request_json(spec);
  std::string head = "POST " + target_.path + " HTTP/1.1\r\nhost: " + host_header(target_) +
                     "\r\ncontent-type: application/json\r\naccept: " +
                     (config_.stream ? "text/event-stream" : "application/json") + "\r\ncontent-length: " +
                     std::to_string(body.size()) + "\r\n";
  if (messages) head += "anthropic-version: " + std::string(kAnthropicVersion) + "\r\n";
  if (!config_.api_key.empty())
    head += messages ? "x-api-key: " + config_.api_key + "\r\n" : "authorization: Bearer " + config_.api_key + "\r\n";
  std::string request = head + "\r\n" + body;
  rec.request_sent(now_s(), meta_of_request(body));  // as the write starts (see client_anthro.cpp)
  bool sent = co_await write(as_bytes(request));
  if (!sent) {
    if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
    else rec.ended(RequestEnd::SendFailed, "cannot send the request: " + stream_->error().message());
    co_return false;
  }

  HttpResponseReader response;
  AnthropicStreamReader anthropic;
  OpenAiStreamReader openai;
  std::string error_body;
  double t = 0;
  SseParser sse([&](const SseEvent& event) {
    for (const StreamUpdate& u : messages ? anthropic.on_event(event) : openai.on_event(event)) {
      switch (u.kind) {
        case StreamUpdate::MessageStart: rec.message_start(t); break;
        case StreamUpdate::Token:
          rec.tokens(t, 1, u.text, u.visible_text);
          if (config_.on_text) config_.on_text(u.text);
          break;
        case StreamUpdate::Stop:
          if (u.stop_reason) r.stop_reason = u.stop_reason;
          if (u.output_tokens) rec.usage(*u.output_tokens);
          break;
        case StreamUpdate::Usage:
          if (u.output_tokens) rec.usage(*u.output_tokens);
          break;
        case StreamUpdate::Error: r.error = u.error_type + ": " + u.error_message; break;
        default: break;
      }
    }
  });
  std::uint8_t buf[16384];
  while (!response.done()) {
    std::size_t n = co_await read_some(buf, sizeof buf);
    t = now_s();  // stamped at the socket read, before any parsing
    if (n == 0) {
      if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
      else rec.ended(RequestEnd::ConnectionClosed, "connection closed before the response ended" + stream_error());
      co_return false;
    }
    rec.first_byte(t);
    if (!response.feed(std::string_view(reinterpret_cast<const char*>(buf), n))) {
      rec.ended(RequestEnd::ProtocolError, response.error());
      co_return false;
    }
    if (!response.head_done()) continue;
    std::string piece = response.take_body();
    if (response.status() != 200 || !config_.stream) {
      error_body += piece;
      continue;
    }
    sse.feed(piece);
    if (options.cancel_after_tokens && rec.tokens_seen() >= *options.cancel_after_tokens) {
      // HTTP has no CANCEL frame: closing the connection is how a client gives up.
      rec.cancel_sent(now_s());
      rec.ended(RequestEnd::ClientClosed, "closed by the client after " + std::to_string(rec.tokens_seen()) + " tokens");
      stream_->close();
      co_return false;
    }
  }
  if (response.status() != 200) {
    rec.server_error(t, response.status(), retry_after_ms(response), error_message(error_body));
    co_return response.header("connection") != "close";
  }
  if (!config_.stream) {
    auto parsed = messages ? parse_messages_response(error_body) : parse_chat_completions_response(error_body);
    if (!parsed) {
      rec.ended(RequestEnd::ProtocolError, parsed.error().detail, t);
      co_return false;
    }
    rec.response(t, parsed->stop_reason, parsed->output_tokens, parsed->content.value_or(""));
    co_return true;
  }
  rec.response(t, r.stop_reason, std::nullopt, "");
  co_return true;
}

}  // namespace anthro
