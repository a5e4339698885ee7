#include "util/bytes.h"

#include <cstring>

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

bool is_valid_utf8(ByteView bytes) {
  std::size_t i = 0, n = bytes.size();
  while (i < n) {
    // Token texts are mostly ASCII: eight bytes at a time while no byte has its high bit.
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
