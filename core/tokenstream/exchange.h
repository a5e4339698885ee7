// What one token-stream request and its reply showed (../shared/spec/profiles/token-stream.md),
// as a live client or a capture read it: the record its checklist items judge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tokenstream/reject.h"

namespace anthro {

struct TokenStreamExchange {
  std::string context_id;                      // X-Claude-Context-ID as sent
  std::uint64_t ids = 0;                       // token ids of the body, the marker included
  std::uint64_t padding = 0;                   // the trailing run of id 0
  std::optional<std::uint64_t> degraded_at;    // index of the first degraded marker
  bool backpressure_announced = false;         // X-Claude-Backpressure: degraded, head or trailer
  std::optional<TokenStreamRejection> refused; // the body broke alignment or padding
  std::optional<std::uint64_t> retry_after_ms; // a 429's Retry-After, read as milliseconds
};

}  // namespace anthro
