// Words every layer shares: the AEAD suites and the two directions of a connection. They live
// below crypto and protocol so neither has to include the other to name them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace anthro {

// The suites' bits in the blob's `aead` field (spec §2); the enum uses the same values.
inline constexpr std::uint8_t kSuiteAes256Gcm = 0x01;
inline constexpr std::uint8_t kSuiteChaCha20Poly1305 = 0x02;

enum class Suite : std::uint8_t {
  Aes256Gcm = kSuiteAes256Gcm,
  ChaCha20Poly1305 = kSuiteChaCha20Poly1305,
};

// "aes-256-gcm" / "chacha20-poly1305", the names the CLI and vectors use.
std::string_view to_string(Suite suite);
std::optional<Suite> parse_suite(std::string_view name);

// The client is the side that sends the offer (in a capture: the sender of the SYN).
enum class Direction : std::uint8_t { ClientToServer, ServerToClient };
// "c2s" / "s2c".
const char* to_string(Direction d);

}  // namespace anthro
