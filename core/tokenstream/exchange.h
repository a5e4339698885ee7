// What one token-stream request and its reply showed (../shared/spec/profiles/token-stream.md),
// as a live client or a capture read it: the record its checklist items judge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "metrics/request_result.h"
#include "profile/profile.h"
#include "tokenstream/admission.h"
#include "tokenstream/reject.h"

namespace anthro {

// Kept in RequestResult::extensions under token_stream_id() (token_stream_of, format.h);
// written as the request's "token_stream" member.
struct TokenStreamExchange : RecordExtensionOf<TokenStreamExchange> {
  std::string context_id;                      // X-Claude-Context-ID as sent
  std::uint64_t ids = 0;                       // token ids of the body, the marker included
  std::uint64_t padding = 0;                   // the trailing run of id 0
  std::optional<std::uint64_t> degraded_at;    // index of the first degraded marker
  bool backpressure_announced = false;         // X-Claude-Backpressure: degraded, head or trailer
  std::optional<TokenStreamRejection> refused; // the body broke alignment or padding
  std::optional<std::uint64_t> retry_after_ms; // a 429's Retry-After, read as milliseconds
  // The request header the profile's admission refuses, as the request was sent (the key's
  // tenant unknown): what the server's 400 or 401 is about.
  TokenStreamField request_fault = TokenStreamField::None;
  bool failover = false;  // a 503 with X-Claude-Failover: true: keep the connection, do not retry
  // The client read the binary body as text and reported the JSON parse error that followed
  // (POST /v1/client-errors, a browser app's error report; token stream spec §5.1 row 2).
  bool text_decoding_reported = false;

  std::string_view json_key() const override { return "token_stream"; }
  void write_json(nlohmann::json& out) const override;
  std::string text() const override;
};

// A request's token-stream part: null when it asked for no passthrough.
TokenStreamExchange* token_stream_of(RequestResult& r);
const TokenStreamExchange* token_stream_of(const RequestResult& r);
// A fresh part, for a request that asks for the passthrough.
TokenStreamExchange& add_token_stream(RequestResult& r);

}  // namespace anthro
