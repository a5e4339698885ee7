// Layer Zero's 64-byte SessionToken (../shared/spec/profiles/layer-zero.md): the session id
// under AES-256 (one ECB block), expiry and issued times, and an HMAC-SHA3-256 over the id and
// the session's terms, so the server validates a resume without storing sessions.
#pragma once

#include <array>
#include <span>
#include <string>

#include "layerzero/frame.h"

namespace anthro::lz {

inline constexpr std::size_t kSessionIdSize = 16;
inline constexpr std::size_t kTokenSize = 64;
inline constexpr std::uint64_t kSessionTimeoutNs = 300'000'000'000;  // Layer Zero spec: 300 s

using SessionId = std::array<std::uint8_t, kSessionIdSize>;
using SessionToken = std::array<std::uint8_t, kTokenSize>;

// What SESSION_INIT negotiates; the token's HMAC binds them, so a resume cannot change them.
struct SessionTerms {
  std::string model_id;  // at most 255 bytes (a u8 length on the wire)
  std::uint32_t budget_ms = 0;
  std::uint32_t constraints = 0;
  bool operator==(const SessionTerms&) const = default;
};

struct TokenFields {
  SessionId session_id{};  // plaintext
  std::uint64_t expiry_ns = 0;
  std::uint64_t issued_ns = 0;
  bool operator==(const TokenFields&) const = default;
};

// What anyone can read of a token without its key (a dissector's view).
struct TokenView {
  std::array<std::uint8_t, kSessionIdSize> encrypted_id{};
  std::uint64_t expiry_ns = 0;
  std::uint64_t issued_ns = 0;
  std::array<std::uint8_t, 32> state_hash{};
};
TokenView read_token(const SessionToken& token);

// A fresh random session id from OpenSSL's CSPRNG; throws std::runtime_error if it fails.
SessionId random_session_id();

// Fails (reason "length") for a model id beyond 255 bytes, or when OpenSSL fails.
Result<SessionToken> issue_token(const Key32& key, const TokenFields& fields, const SessionTerms& terms);
// What every SESSION_ACK sends: issued = now, expiry = now + timeout (saturating).
Result<SessionToken> reissue_token(const Key32& key, const SessionId& id, const SessionTerms& terms,
                                   std::uint64_t now_ns, std::uint64_t timeout_ns = kSessionTimeoutNs);

// The server's check of a presented token against the terms the client sends with it: the id
// decrypted and the HMAC recomputed under each key in turn (rotation), compared in constant
// time; then the expiry on the server's clock (valid while server_time_ns < expiry_ns).
// Refusals: "state-hash" (no key verifies it), "expired".
Result<TokenFields> verify_token(std::span<const Key32> keys, const SessionToken& token, const SessionTerms& terms,
                                 std::uint64_t server_time_ns);
Result<TokenFields> verify_token(const Key32& key, const SessionToken& token, const SessionTerms& terms,
                                 std::uint64_t server_time_ns);

}  // namespace anthro::lz
