// X25519 and the HKDF key schedule of spec §3.
#pragma once

#include <optional>
#include <string>

#include "util/bytes.h"
#include "util/result.h"

namespace anthro {

struct X25519KeyPair {
  Key32 private_key{};
  Key32 public_key{};
};

X25519KeyPair generate_x25519();
Key32 x25519_public_from_private(const Key32& private_key);
// Fails with reason `zero-shared` when the result is all zeros (a low-order peer key).
Result<Key32> x25519_shared(const Key32& private_key, const Key32& peer_public);

struct FrameKeys {
  Key32 c2s{};
  Key32 s2c{};
  bool operator==(const FrameKeys&) const = default;
};

// The intermediate values are exposed so the vectors can be checked step by step.
Bytes hkdf_salt(std::uint64_t connection_token, const Key32& client_random);
Key32 hkdf_extract(ByteView salt, const Key32& shared);
Key32 hkdf_expand(const Key32& prk, std::string_view info);
// TLS 1.3's HKDF-Expand-Label (RFC 8446 §7.1) with the suite's digest (OpenSSL's name, e.g.
// "SHA384"): `label` without the "tls13 " prefix, which is added here. For the capture's
// decoder and the TLS stream's own record layer (a KeyUpdate's next keys).
Result<Bytes> hkdf_expand_label(const char* digest, ByteView secret, std::string_view label, ByteView context,
                                std::size_t length);
FrameKeys derive_frame_keys(const Key32& shared, std::uint64_t token, const Key32& client_random);

// Either side's view of the X25519 agreement gives the same keys: the client passes its
// ephemeral private key and the server's public key, the server (or an observer holding the
// server's static key) its private key and the client's. The token and client random are the
// offer's. Fails with reason `zero-shared`.
Result<FrameKeys> frame_keys(const Key32& own_private, const Key32& peer_public, std::uint64_t token,
                             const Key32& client_random);

// Server static keys as PKCS#8 PEM, the form `openssl genpkey -algorithm X25519` writes.
// `origin` names the input (a path) in errors.
Result<Key32> load_x25519_private_pem(std::string_view pem, const std::string& origin);
std::string x25519_private_to_pem(const Key32& private_key);

void random_bytes(std::uint8_t* out, std::size_t n);

// Whether a presented secret (an API key) equals the expected one, in time that depends on
// neither where they differ nor their lengths: both are hashed (SHA-256) and the digests
// compared with sodium_memcmp.
bool secrets_equal(std::string_view presented, std::string_view expected);
// The endpoint's one credential rule, whichever protocol carried the key (anthro-v1's REQUEST
// api_key, an HTTP header, a session's opening frame): nothing required, or a key presented and
// equal to the required one (secrets_equal).
bool credential_accepted(const std::optional<std::string_view>& presented, std::string_view required);

// The oldest error OpenSSL queued on this thread, as text; the queue is then cleared.
std::string openssl_error();

}  // namespace anthro
