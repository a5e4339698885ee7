#include "tokenstream/context_id.h"

#include <cstdio>
#include <limits>

namespace anthro {
namespace {

constexpr std::uint64_t kQuotaAboveMs = 1000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A hostile byte shown safely: printable ASCII as itself, anything else as hex.
std::string byte_text(char c) {
  const auto b = static_cast<unsigned char>(c);
  char buf[16];
  if (b > 0x20 && b < 0x7F) std::snprintf(buf, sizeof buf, "'%c'", c);
  else std::snprintf(buf, sizeof buf, "byte 0x%02X", b);
  return buf;
}

TokenStreamRejection bad_context_id(std::size_t at, std::string why) {
  return {TokenStreamReject::ContextId, at, "X-Claude-Context-ID: " + std::move(why)};
}

// Digits only into a u64; the offset of the first non-digit or of the digit that overflows.
struct Digits {
  std::uint64_t value = 0;
  std::size_t bad_at = std::string_view::npos;
  bool overflow = false;
};

Digits read_digits(std::string_view s) {
  Digits d;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_digit(s[i])) {
      d.bad_at = i;
      return d;
    }
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (d.value > (max - digit) / 10) {
      d.bad_at = i;
      d.overflow = true;
      return d;
    }
    d.value = d.value * 10 + digit;
  }
  return d;
}

// The two known ways a client gets it wrong are named: the token stream spec's own client packs
// the id in a signed int64_t (tenants from 2^31 come out negative), and JavaScript's BigInt
// prints an "n".
std::string not_a_digit(std::string_view header, std::size_t at) {
  std::string why = byte_text(header[at]) + " at " + std::to_string(at) + " is not an ASCII digit";
  if (at == 0 && header[0] == '-') return why + ": a negative id, as a signed int64_t holds a tenant from 2^31";
  if (at > 0 && at + 1 == header.size() && header[at] == 'n') return why + ": a JavaScript BigInt's suffix";
  return why + ": a plain decimal u64 has no sign, prefix, suffix or space";
}

}  // namespace

TokenStreamResult<TokenStreamContextId> parse_context_id(std::string_view header) {
  if (header.empty()) return bad_context_id(0, "empty");
  Digits d = read_digits(header);
  if (d.overflow) return bad_context_id(d.bad_at, "not below 2^64 (passes 2^64 - 1 at byte " + std::to_string(d.bad_at) + ")");
  if (d.bad_at != std::string_view::npos) return bad_context_id(d.bad_at, not_a_digit(header, d.bad_at));
  if (header.size() > 1 && header[0] == '0') return bad_context_id(0, "a leading zero");
  return TokenStreamContextId::from_value(d.value);
}

std::string format_context_id(TokenStreamContextId id) { return std::to_string(id.value()); }

const char* to_string(TokenStreamRetryCause cause) {
  return cause == TokenStreamRetryCause::Quota ? "quota" : "gpu-memory-full";
}

TokenStreamRetryCause classify_retry_after_ms(std::uint64_t milliseconds) {
  return milliseconds > kQuotaAboveMs ? TokenStreamRetryCause::Quota : TokenStreamRetryCause::GpuMemoryFull;
}

std::optional<TokenStreamRetryAfter> parse_token_stream_retry_after(std::string_view header) {
  if (header.empty()) return std::nullopt;
  Digits d = read_digits(header);
  if (d.bad_at != std::string_view::npos) return std::nullopt;
  return TokenStreamRetryAfter{d.value, classify_retry_after_ms(d.value)};
}

}  // namespace anthro
