#include "util/bytes.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace anthro {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string to_hex(ByteView bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
  return out;
}

std::optional<Bytes> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  Bytes out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return out;
}

void append_u16(Bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void append_u32(Bytes& out, std::uint32_t v) {
  append_u16(out, static_cast<std::uint16_t>(v >> 16));
  append_u16(out, static_cast<std::uint16_t>(v));
}
void append_u64(Bytes& out, std::uint64_t v) {
  append_u32(out, static_cast<std::uint32_t>(v >> 32));
  append_u32(out, static_cast<std::uint32_t>(v));
}
void append(Bytes& out, ByteView bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }

std::string token_hex(std::uint64_t token) {
  std::uint8_t raw[8];
  store_u64(raw, token);
  return to_hex(raw);
}

std::optional<std::uint64_t> parse_token_hex(std::string_view hex) {
  auto raw = from_hex_array<8>(hex);
  if (!raw) return std::nullopt;
  return load_u64(raw->data());
}

namespace {

// Whether no byte has its high bit: the high bits gathered over blocks, the last one overlapping
// the one before, so a text of any length takes no byte-by-byte tail.
bool all_ascii(const std::uint8_t* p, std::size_t n) {
  constexpr std::uint64_t kHighs = 0x8080808080808080ull;
#if defined(__SSE2__)
  if (n >= 16) {
    auto block = [p](std::size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)); };
    __m128i any = block(n - 16);
    for (std::size_t i = 0; i + 16 <= n; i += 16) any = _mm_or_si128(any, block(i));
    return _mm_movemask_epi8(any) == 0;
  }
#endif
  if (n >= 8) {
    std::uint64_t any = 0, w;
    for (std::size_t i = 0; i + 8 <= n; i += 8) any |= (std::memcpy(&w, p + i, 8), w);
    return ((any | (std::memcpy(&w, p + n - 8, 8), w)) & kHighs) == 0;
  }
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= p[i];
  return any < 0x80;
}

}  // namespace

bool is_valid_utf8(ByteView bytes) {
  // Texts are mostly ASCII, and this test costs a fraction of the walk below.
  if (all_ascii(bytes.data(), bytes.size())) return true;
  std::size_t i = 0, n = bytes.size();
  while (i < n) {
    // Texts are mostly ASCII: sixteen (SSE2, x86-64's baseline) or eight bytes at a time while no
    // byte has its high bit.
#if defined(__SSE2__)
    if (i + 16 <= n && _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data() + i))) == 0) {
      i += 16;
      continue;
    }
#endif
    if (std::uint64_t word; i + 8 <= n && (std::memcpy(&word, bytes.data() + i, 8), (word & 0x8080808080808080ULL) == 0)) {
      i += 8;
      continue;
    }
    std::uint8_t c = bytes[i];
    if (c < 0x80) { ++i; continue; }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((bytes[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (bytes[i + k] & 0x3F);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return false;
    if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return false;
    i += len;
  }
  return true;
}

}  // namespace anthro
