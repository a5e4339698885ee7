// The bodies of the HTTP baseline (spec §9): the Anthropic Messages API (`POST /v1/messages`)
// and OpenAI-compatible chat completions (`POST /v1/chat/completions`). Socket-free: JSON and
// SSE text in, JSON and SSE text out. HTTP framing and headers (`x-api-key`, `authorization`:
// secrets, spec §5) belong to the caller; no body written here ever holds the API key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/sse.h"
#include "protocol/body.h"
#include "util/result.h"

namespace anthro {

inline constexpr std::string_view kMessagesPath = "/v1/messages";
inline constexpr std::string_view kChatCompletionsPath = "/v1/chat/completions";
inline constexpr std::string_view kAnthropicVersion = "2023-06-01";

// --- Requests. Parsers fail with reason "invalid_request_error" (the error type both APIs
// answer with) and a detail naming the field, e.g. `"messages[1].content[0].type" ...`.

std::string messages_request_json(const RequestSpec& spec);
// Adds "stream_options": {"include_usage": true} when streaming, so output_tokens is known.
std::string chat_completions_request_json(const RequestSpec& spec);

// `system` may be a string or an array of text blocks; message content a string or an array
// of text blocks (joined). `api_key` stays empty: it travels in a header.
Result<RequestSpec> parse_messages_request(std::string_view body);
// Messages with role "system" (or "developer") become `system`. `include_usage`, when given,
// receives stream_options.include_usage, which decides whether the usage chunk is sent.
Result<RequestSpec> parse_chat_completions_request(std::string_view body,
                                                   bool* include_usage = nullptr);

// --- Non-streaming replies.

std::string messages_response_json(const ResponseSpec& spec);
// The Messages API error body, also the payload of the `error` SSE event.
std::string error_json(std::string_view type, std::string_view message);
// `created` is Unix seconds, passed in so these functions stay free of clocks.
std::string chat_completions_response_json(const ResponseSpec& spec, std::int64_t created);
std::string chat_completions_error_json(std::string_view type, std::string_view message);

// An error body (either API) fails with reason = the error's type and detail = its message.
Result<ResponseSpec> parse_messages_response(std::string_view body);
// OpenAI-compatible servers may leave "usage" out of a whole reply (mock servers, some
// gateways): then `usage_reported`, when given, is set false and the token counts stay 0.
Result<ResponseSpec> parse_chat_completions_response(std::string_view body, bool* usage_reported = nullptr);

// --- Streaming writers: each call returns one complete SSE event. For one reply, call in
// the order of spec §9: message_start, content_block_start, ping, text_delta…,
// content_block_stop, message_delta, message_stop (ping may also come anywhere).
// Text must be whole UTF-8 characters; invalid bytes are written as U+FFFD.

class AnthropicSseWriter {
 public:
  std::string message_start(std::string_view id, std::string_view model,
                            std::uint64_t input_tokens) const;
  std::string content_block_start() const;
  std::string ping() const;
  std::string text_delta(std::string_view text) const;
  std::string content_block_stop() const;
  std::string message_delta(StopReason reason, std::uint64_t output_tokens /* cumulative */) const;
  std::string message_stop() const;
  std::string error(std::string_view type, std::string_view message) const;
};

// Order: role_chunk, text_delta…, finish, usage (only when the request asked), done.
class OpenAiSseWriter {
 public:
  OpenAiSseWriter(std::string id, std::string model, std::int64_t created, bool include_usage);
  std::string role_chunk() const;
  std::string text_delta(std::string_view text) const;
  std::string finish(StopReason reason) const;
  // Empty when the request did not ask for usage.
  std::string usage(std::uint64_t input_tokens, std::uint64_t output_tokens) const;
  std::string done() const;
  std::string error(std::string_view type, std::string_view message) const;

 private:
  std::string id_;
  std::string model_;
  std::int64_t created_;
  bool include_usage_;
};

// --- Streaming readers: SSE events in, updates for timing out (spec §6, §9). Every event
// yields at least one update, so a caller can stamp and log each one.

struct StreamUpdate {
  enum Kind {
    MessageStart,  // message_start, or the first chunk (the role chunk) of an OpenAI stream
    Token,         // any generated token: counts for TTFT
    Stop,          // message_delta, or a chunk with finish_reason
    Usage,         // an OpenAI usage chunk (Anthropic usage rides on Stop)
    Done,          // message_stop or `data: [DONE]`: the stream is over
    Error,
    Ping,
    Ignored
  };
  Kind kind = Ignored;
  // Token: the delta's text (text, thinking or tool-input JSON). Stop: the server's own
  // stop or finish reason. MessageStart: the message id.
  std::string text;
  bool visible_text = false;  // a text delta with non-empty text: counts for TTFOT
  std::optional<StopReason> stop_reason;
  std::optional<std::uint64_t> input_tokens;
  std::optional<std::uint64_t> output_tokens;  // cumulative
  std::string error_type, error_message;
};

class AnthropicStreamReader {
 public:
  std::vector<StreamUpdate> on_event(const SseEvent& event);
  bool done() const { return done_; }

 private:
  bool done_ = false;
};

class OpenAiStreamReader {
 public:
  std::vector<StreamUpdate> on_event(const SseEvent& event);
  bool done() const { return done_; }

 private:
  bool started_ = false;
  bool done_ = false;
};

}  // namespace anthro
