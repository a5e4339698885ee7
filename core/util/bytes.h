// Byte buffers, hex text and big-endian integers: the vocabulary of the wire.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace anthro {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;
using Key32 = std::array<std::uint8_t, 32>;

std::string to_hex(ByteView bytes);
// Case-insensitive; nullopt for an odd length or a non-hex character.
std::optional<Bytes> from_hex(std::string_view hex);
// Exactly N bytes of hex, or nullopt.
template <std::size_t N>
std::optional<std::array<std::uint8_t, N>> from_hex_array(std::string_view hex) {
  auto bytes = from_hex(hex);
  if (!bytes || bytes->size() != N) return std::nullopt;
  std::array<std::uint8_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = (*bytes)[i];
  return out;
}

// ASCII letters in lower case, other bytes as they are: header names, host names, schemes.
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

inline ByteView as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
inline std::string_view as_text(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

inline std::uint16_t load_u16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}
inline std::uint32_t load_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}
inline std::uint64_t load_u64(const std::uint8_t* p) {
  return std::uint64_t{load_u32(p)} << 32 | load_u32(p + 4);
}
inline void store_u16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void store_u32(std::uint8_t* p, std::uint32_t v) {
  store_u16(p, static_cast<std::uint16_t>(v >> 16));
  store_u16(p + 2, static_cast<std::uint16_t>(v));
}
inline void store_u64(std::uint8_t* p, std::uint64_t v) {
  store_u32(p, static_cast<std::uint32_t>(v >> 32));
  store_u32(p + 4, static_cast<std::uint32_t>(v));
}

void append_u16(Bytes& out, std::uint16_t v);
void append_u32(Bytes& out, std::uint32_t v);
void append_u64(Bytes& out, std::uint64_t v);
void append(Bytes& out, ByteView bytes);

// The 64-bit connection token as 16 lowercase hex digits.
std::string token_hex(std::uint64_t token);
std::optional<std::uint64_t> parse_token_hex(std::string_view hex);

// Strict UTF-8 (RFC 3629): no overlongs, no surrogates (so CESU-8 fails), nothing above U+10FFFF.
bool is_valid_utf8(ByteView bytes);

}  // namespace anthro
