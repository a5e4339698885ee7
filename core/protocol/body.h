// Plaintext bodies of the five frame types (spec §5): parsing with their rules, and encoding.
// JSON bodies keep their original text, so members a tool does not know are never lost.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "protocol/frame.h"
#include "util/result.h"

namespace anthro {

inline constexpr std::size_t kMinRequestBody = 6;
inline constexpr std::size_t kMinResponseBody = 6;
inline constexpr std::size_t kMinTokenBody = 10;
inline constexpr std::size_t kMinCancelBody = 6;
inline constexpr std::size_t kMinErrorBody = 10;

struct ChatMessage {
  std::string role;
  std::string content;
  bool operator==(const ChatMessage&) const = default;
};

struct RequestBody {
  std::uint32_t stream_id = 0;
  std::string json;  // the body's JSON text as sent
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<std::uint32_t> max_tokens;  // as sent; absent means the negotiated default
  bool stream = true;
  std::optional<std::string> system;
  std::optional<double> temperature;
  std::optional<std::string> api_key;  // the top-level member, parsed; a secret (spec §5)
  std::uint32_t effective_max_tokens(std::uint32_t negotiated_default) const {
    return max_tokens.value_or(negotiated_default);
  }
};

enum class StopReason { EndTurn, MaxTokens, Cancelled };
const char* to_string(StopReason reason);

struct Timing {
  std::uint64_t queue_us = 0, context_wait_us = 0, prefill_us = 0, decode_us = 0;
};

// What a RESPONSE says; encode_response writes it, parse_response reads it back.
struct ResponseSpec {
  std::string id;
  std::string model;
  StopReason stop_reason = StopReason::EndTurn;
  std::optional<std::string> content;
  std::uint64_t input_tokens = 0;
  std::uint64_t output_tokens = 0;
  std::optional<Timing> timing;
};

struct ResponseBody : ResponseSpec {
  std::uint32_t stream_id = 0;
  std::string json;  // the body's JSON text as sent
};

// A token's raw bytes. Nearly every token's text fits inline, so opening a frame's body costs
// no allocation (a heap block a token was ~150-200 instructions with its free, callgrind);
// longer texts go to the heap. A contiguous range: it converts to ByteView.
class TokenText {
 public:
  static constexpr std::size_t kInline = 32;
  void assign(ByteView bytes);
  const std::uint8_t* data() const { return size_ <= kInline ? inline_.data() : heap_.data(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::uint8_t* begin() const { return data(); }
  const std::uint8_t* end() const { return data() + size_; }
  bool operator==(ByteView other) const { return std::equal(begin(), end(), other.begin(), other.end()); }

 private:
  std::array<std::uint8_t, kInline> inline_{};
  std::size_t size_ = 0;
  Bytes heap_;  // only when size_ > kInline
};

struct TokenBody {
  std::uint32_t stream_id = 0;
  std::uint32_t token_index = 0;
  std::uint16_t token_count = 1;
  TokenText text;  // raw bytes, kept even when they are not UTF-8
  bool invalid_utf8 = false;
  std::string_view text_view() const { return as_text(text); }
};

enum class CancelReason : std::uint16_t { User = 0, Deadline = 1, Shutdown = 2 };

struct CancelBody {
  std::uint32_t stream_id = 0;
  std::uint16_t raw_reason = 0;
  // Values outside 0-2 are treated as `user` (spec §5).
  CancelReason reason() const {
    return raw_reason <= 2 ? static_cast<CancelReason>(raw_reason) : CancelReason::User;
  }
};

struct ErrorBody {
  std::uint32_t stream_id = 0;
  std::uint16_t code = 0;
  std::uint32_t retry_after_ms = 0;
  Bytes message;
  bool invalid_utf8 = false;
  std::string_view message_view() const { return as_text(message); }
};

using Body = std::variant<RequestBody, ResponseBody, TokenBody, CancelBody, ErrorBody>;

// Frame flags matter to REQUEST (`stream` must equal bit0); all failures have reason "body".
Result<Body> parse_body(FrameType type, std::uint8_t frame_flags, ByteView plaintext);
// parse_body into `out` (empty after an error). A token, nearly every frame, is read in place,
// into `out`'s own when it holds one: no body is built aside and moved in twice.
Result<bool> parse_body_into(FrameType type, std::uint8_t frame_flags, ByteView plaintext, std::optional<Body>& out);
Result<RequestBody> parse_request(ByteView plaintext, std::uint8_t frame_flags);
Result<ResponseBody> parse_response(ByteView plaintext);
// The same through a whole nlohmann document, the way parse_request and parse_response take
// for any body their SAX reader does not read plainly (and for every error's message): for the
// tests and fuzzers that hold both ways to one answer.
Result<RequestBody> parse_request_by_document(ByteView plaintext, std::uint8_t frame_flags);
Result<ResponseBody> parse_response_by_document(ByteView plaintext);
Result<TokenBody> parse_token(ByteView plaintext);
Result<CancelBody> parse_cancel(ByteView plaintext);
Result<ErrorBody> parse_error(ByteView plaintext);
// Inline, with a token's first: it is asked of every frame twice (timeline and index).
inline std::uint32_t body_stream_id(const Body& body) {
  if (const auto* t = std::get_if<TokenBody>(&body)) return t->stream_id;
  return std::visit([](const auto& b) { return b.stream_id; }, body);
}

// Encoders. JSON is written compactly; `extra_json` members (an object's text) are merged in.
struct RequestSpec {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<std::uint32_t> max_tokens;
  bool stream = true;
  std::optional<std::string> system;
  std::optional<double> temperature;
  std::optional<std::string> api_key;
  std::optional<std::string> metadata_json;  // an object's text
};
Bytes encode_request(std::uint32_t stream_id, const RequestSpec& spec);

Bytes encode_response(std::uint32_t stream_id, const ResponseSpec& spec);
Bytes encode_token(std::uint32_t stream_id, std::uint32_t token_index, std::uint16_t token_count,
                   ByteView text);
// The same into `out`, replacing what it held: a server reuses one buffer for every token.
void encode_token(std::uint32_t stream_id, std::uint32_t token_index, std::uint16_t token_count, ByteView text,
                  Bytes& out);
Bytes encode_cancel(std::uint32_t stream_id, CancelReason reason);
Bytes encode_error(std::uint32_t stream_id, std::uint16_t code, std::uint32_t retry_after_ms,
                   std::string_view message);
// A body with only a stream_id and raw bytes after it, for JSON bodies given verbatim.
Bytes encode_raw(std::uint32_t stream_id, ByteView rest);

// A JSON array of {"role", "content"} messages (a session's --messages file).
Result<std::vector<ChatMessage>> parse_messages_json(std::string_view text);

// The JSON text of a REQUEST with every `api_key` member, at any depth, replaced by "***".
// Text that is not JSON comes back unchanged.
std::string redact_request_json(std::string_view json);

}  // namespace anthro
