#include "http/reply_recorder.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "http/json_helpers.h"
#include "util/json.h"

namespace anthro {

namespace {

using http_detail::string_member;
using nlohmann::json;

struct ApiError {
  std::string type, message;
};

// The type and message of an API error body (`{"error":{"type":...,"message":...}}`, as both
// the Messages and the Chat Completions APIs write it); the message is the start of the body
// when it is not one.
ApiError api_error(const std::string& body) {
  json doc = parse_or_null(body);
  auto err = doc.is_object() ? doc.find("error") : doc.end();
  ApiError out;
  if (err != doc.end() && err->is_object()) {
    out.type = string_member(*err, "type");
    out.message = string_member(*err, "message");
  }
  if (out.message.empty()) out.message = body.substr(0, 200);
  return out;
}

// The retry-after-ms header; nothing when it is absent or not a number.
std::optional<std::uint32_t> parse_retry_after_ms(std::string_view ms) {
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), value);
  if (ms.empty() || ec != std::errc() || end != ms.data() + ms.size()) return std::nullopt;
  return value;
}

// Retry-After in delta-seconds (RFC 9110 §10.2.3), as milliseconds; nothing for the HTTP-date
// form, which says when rather than how long.
std::optional<std::uint32_t> parse_retry_after_s(std::string_view s) {
  auto seconds = parse_retry_after_ms(s);
  if (!seconds) return std::nullopt;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{*seconds} * 1000, UINT32_MAX));
}

}  // namespace

HttpReplyRecorder::HttpReplyRecorder(RequestResult& r, RequestRecorder& rec, bool messages, bool streamed)
    : r_(r), rec_(rec), messages_(messages), streamed_(streamed), sse_([this](const SseEvent& event) {
        std::uint64_t before = rec_.tokens_seen();
        for (const StreamUpdate& u : messages_ ? anthropic_.on_event(event) : openai_.on_event(event)) {
          switch (u.kind) {
            case StreamUpdate::MessageStart: rec_.message_start(t_); break;
            case StreamUpdate::Token:
              rec_.tokens(t_, 1, u.text, u.visible_text);
              if (on_text) on_text(u.text);
              break;
            case StreamUpdate::Stop:
              if (u.stop_reason) r_.stop_reason = u.stop_reason;
              if (u.output_tokens) rec_.usage(*u.output_tokens);
              break;
            case StreamUpdate::Usage:
              if (u.output_tokens) rec_.usage(*u.output_tokens);
              break;
            case StreamUpdate::Error:
              r_.error = u.error_type + ": " + u.error_message;
              error_type_ = u.error_type;
              break;
            default: break;
          }
        }
        if (on_event) on_event(event, t_, static_cast<std::uint32_t>(rec_.tokens_seen() - before));
      }) {}

void HttpReplyRecorder::head(int status, std::string_view retry_after_ms) {
  status_ = status;
  if (status != 200) retry_after_ms_ = parse_retry_after_ms(retry_after_ms);
}

void HttpReplyRecorder::head(int status, const HeaderLookup& header, RiderReply* rider) {
  rider_ = rider;
  if (rider) {
    rider_body_ = rider->head(status, header, *this);
    return;
  }
  head(status, header("retry-after-ms"));  // Anthropic's and OpenAI's, in milliseconds
  if (status != 200 && !retry_after_ms_) retry_after_ms_ = parse_retry_after_s(header("retry-after"));
}

void HttpReplyRecorder::trailers(const std::vector<std::pair<std::string, std::string>>& fields) {
  if (rider_) rider_->trailers(fields, *this);
}

void HttpReplyRecorder::token(double t, std::string_view text) {
  rec_.tokens(t, 1, text, true);
  if (on_text) on_text(text);
}

void HttpReplyRecorder::body(std::string_view piece, double t) {
  t_ = t;
  if (rider_body_) {
    rider_->body(piece, t, *this);
    return;
  }
  if (status_ == 200 && streamed_) {
    sse_.feed(piece);
    return;
  }
  if (kept_.size() + piece.size() > kMaxKeptBody) too_big_ = true;
  if (!too_big_) kept_.append(piece);
}

void HttpReplyRecorder::end(double t) {
  t_ = t;
  if (too_big_) {
    rec_.ended(RequestEnd::ProtocolError, "reply body larger than " + std::to_string(kMaxKeptBody) + " bytes", t);
    return;
  }
  if (status_ != 200) {
    ApiError error = api_error(kept_);
    error_type_ = std::move(error.type);
    rec_.server_error(t, status_, retry_after_ms_, error.message);
    return;
  }
  if (rider_body_) {
    rider_->end(t, *this);
    return;
  }
  if (!streamed_) {
    bool usage_reported = true;
    auto parsed = messages_ ? parse_messages_response(kept_) : parse_chat_completions_response(kept_, &usage_reported);
    if (!parsed) {
      rec_.ended(RequestEnd::ProtocolError, parsed.error().detail, t);
      return;
    }
    rec_.response(t, parsed->stop_reason, usage_reported ? std::optional<std::uint64_t>(parsed->output_tokens) : std::nullopt,
                  parsed->content.value_or(""));
    return;
  }
  rec_.response(t, r_.stop_reason, std::nullopt, "");
}

}  // namespace anthro
