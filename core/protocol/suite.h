// The two AEAD suites of anthro-v1 and their bits in the blob's `aead` field.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace anthro {

inline constexpr std::uint8_t kSuiteAes256Gcm = 0x01;
inline constexpr std::uint8_t kSuiteChaCha20Poly1305 = 0x02;

enum class Suite : std::uint8_t {
  Aes256Gcm = kSuiteAes256Gcm,
  ChaCha20Poly1305 = kSuiteChaCha20Poly1305,
};

// "aes-256-gcm" / "chacha20-poly1305", the names the CLI and vectors use.
std::string_view to_string(Suite suite);
std::optional<Suite> parse_suite(std::string_view name);
inline std::uint8_t suite_bit(Suite suite) { return static_cast<std::uint8_t>(suite); }

}  // namespace anthro
