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
#include "http/rider.h"
#include "metrics/request_result.h"

namespace anthro {

class HttpReplyRecorder {
 public:
  // `messages`: the Messages API (else chat completions); `streamed`: a 200 is read as SSE.
  HttpReplyRecorder(RequestResult& r, RequestRecorder& rec, bool messages, bool streamed);

  std::function<void(std::string_view)> on_text;                 // each token's text
  // Each SSE event once it is read, with the generated tokens it carried.
  std::function<void(const SseEvent&, double t, std::uint32_t tokens)> on_event;

  // `retry_after_ms`: the header's raw value, read when the status is an error.
  void head(int status, std::string_view retry_after_ms);
  // The head as the live client and a capture read it alike. `rider`: the reader of a format
  // riding on the request (http/rider.h), which reads the head (and the body, when it takes it)
  // its own way; null: the API's retry-after-ms, else Retry-After in seconds, and the body as SSE
  // or JSON.
  using HeaderLookup = RiderReply::HeaderLookup;
  void head(int status, const HeaderLookup& header, RiderReply* rider);
  // A chunked body's trailer fields (names lowercased), before end().
  void trailers(const std::vector<std::pair<std::string, std::string>>& fields);
  // Body bytes that arrived at `t`.
  void body(std::string_view piece, double t);
  // The reply read to its end at `t`: the server's end, or a protocol error for a JSON body
  // that does not parse. Call the recorder's finish() afterwards.
  void end(double t);

  // A body kept whole (not SSE, not a rider's): a side request's answer, for one.
  const std::string& kept_body() const { return kept_; }

  // For a rider's reader: the record, its recorder, a token (its text as the client shows it)
  // at `t`, and the Retry-After that head(status, ms) read.
  RequestResult& result() { return r_; }
  RequestRecorder& recorder() { return rec_; }
  void token(double t, std::string_view text);
  const std::optional<std::uint32_t>& retry_after_ms() const { return retry_after_ms_; }

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
  RiderReply* rider_ = nullptr;  // the rider's reader, when the request was a rider's
  bool rider_body_ = false;      // it reads the body
  AnthropicStreamReader anthropic_;
  OpenAiStreamReader openai_;
  SseParser sse_;
};

}  // namespace anthro
