// The token-stream headers (../shared/spec/profiles/token-stream.md): X-Claude-Context-ID,
// a plain decimal u64 that packs (tenant_id << 32) | session_seq, and Retry-After, which this
// profile counts in milliseconds (token stream spec §4.4), not the HTTP standard's seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tokenstream/reject.h"

namespace anthro {

struct TokenStreamContextId {
  std::uint32_t tenant = 0;  // the high 32 bits
  std::uint32_t seq = 0;     // the low 32 bits
  std::uint64_t value() const { return std::uint64_t{tenant} << 32 | seq; }
  static TokenStreamContextId from_value(std::uint64_t v) {
    return {static_cast<std::uint32_t>(v >> 32), static_cast<std::uint32_t>(v)};
  }
  bool operator==(const TokenStreamContextId&) const = default;
};

// The header's value exactly as it came: ASCII digits only, no sign, no leading zero ("0"
// alone is zero), no suffix, no spaces, below 2^64. Anything else is refused as "context-id"
// with the offending byte's offset.
TokenStreamResult<TokenStreamContextId> parse_context_id(std::string_view header);
// The header's value: the u64 in decimal.
std::string format_context_id(TokenStreamContextId id);

// What a 429's Retry-After says under this profile.
enum class TokenStreamRetryCause {
  GpuMemoryFull,  // ≤ 1000 ms: wait and retry
  Quota,          // > 1000 ms: the tenant's quota is spent, not congestion
};
// "gpu-memory-full", "quota"
const char* to_string(TokenStreamRetryCause cause);
TokenStreamRetryCause classify_retry_after_ms(std::uint64_t milliseconds);

struct TokenStreamRetryAfter {
  std::uint64_t milliseconds = 0;
  TokenStreamRetryCause cause = TokenStreamRetryCause::GpuMemoryFull;
};
// Decimal milliseconds, ASCII digits only (leading zeros allowed, as in HTTP's delay); nullopt
// for anything else, an HTTP-date included, or a value beyond 2^64 - 1.
std::optional<TokenStreamRetryAfter> parse_token_stream_retry_after(std::string_view header);

}  // namespace anthro
