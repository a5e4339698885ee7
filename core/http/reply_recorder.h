// One HTTP reply of the baseline (spec §9) read into a RequestRecorder as its body arrives:
// a streamed 200's SSE events through the API's stream reader, a JSON or error body at its end.
// The live HTTP client and capture analysis both read replies through it, so a request's
// timeline (TTFT at the first generated token, ITL, E2E) means the same from either.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/messages_api.h"
#include "metrics/request_result.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"

namespace anthro {

class HttpReplyRecorder {
 public:
  // `messages`: the Messages API (else chat completions); `streamed`: a 200 is read as SSE.
  HttpReplyRecorder(RequestResult& r, RequestRecorder& rec, bool messages, bool streamed);

  std::function<void(std::string_view)> on_text;                 // each token's text
  // Token-stream ids as they complete, the degraded marker among them (trailing padding is only
  // counted, in the record, when the body ends):
  // `ids` numbered from `first_index` in the body, arrived at `t`.
  std::function<void(std::span<const std::uint32_t> ids, std::size_t first_index, double t)> on_ids;
  // Each SSE event once it is read, with the generated tokens it carried.
  std::function<void(const SseEvent&, double t, std::uint32_t tokens)> on_event;

  // `retry_after_ms`: the header's raw value, read when the status is an error.
  void head(int status, std::string_view retry_after_ms);
  // The head as the live client and a capture read it alike. `token_stream`: the request asked for
  // the token stream's passthrough, whose ids are named through it; then Retry-After counts
  // milliseconds (token stream spec §4.4), a 200 in the token-stream media type is read as ids
  // (each a token; r.token_stream records the body's verdict) and X-Claude-Backpressure is noted.
  using HeaderLookup = std::function<std::string(const char* name)>;
  void head(int status, const HeaderLookup& header, const TokenStreamVocabulary* token_stream);
  // A chunked body's trailer fields (names lowercased), before end().
  void trailers(const std::vector<std::pair<std::string, std::string>>& fields);
  // Body bytes that arrived at `t`.
  void body(std::string_view piece, double t);
  // The reply read to its end at `t`: the server's end, or a protocol error for a JSON body
  // that does not parse. Call the recorder's finish() afterwards.
  void end(double t);

  // A body kept whole (not SSE, not token ids): what a GET /v1/vocab answered, for one.
  const std::string& kept_body() const { return kept_; }

  // A token-stream body's bytes as they came (its whole ids; a partial last one is not kept).
  std::string token_stream_bytes() const;

  // An error reply's `error.type` (its JSON body's, or a streamed error event's); empty when none.
  const std::string& error_type() const { return error_type_; }

  // A non-streamed body (JSON or an error) is kept whole to be parsed; past this it is refused.
  static constexpr std::size_t kMaxKeptBody = 16u << 20;

 private:
  RequestResult& r_;
  RequestRecorder& rec_;
  bool messages_, streamed_;
  int status_ = 0;
  std::optional<std::uint32_t> retry_after_ms_;
  std::string kept_;  // non-SSE body
  std::string error_type_;
  bool too_big_ = false;
  double t_ = 0;
  void read_token_stream(const TokenStreamVocabulary& vocabulary);
  std::optional<TokenStreamBodyDecoder> ids_;
  const TokenStreamVocabulary* vocabulary_ = nullptr;
  std::size_t ids_recorded_ = 0;
  void record_ids(double t);
  void end_token_stream(double t);
  AnthropicStreamReader anthropic_;
  OpenAiStreamReader openai_;
  SseParser sse_;
};

}  // namespace anthro
