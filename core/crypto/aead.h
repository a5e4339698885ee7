// AES-256-GCM and ChaCha20-Poly1305 (IETF) with one key, through OpenSSL EVP.
// The key schedule is set up once; each call only sets the nonce. Short AES-GCM messages
// (token frames) are opened with libsodium's precomputed AES-NI state instead: OpenSSL 3's
// per-call parameter handling costs more than the cipher itself below a few hundred bytes.
#pragma once

#include <memory>

#include "util/bytes.h"
#include "util/vocabulary.h"

struct evp_cipher_ctx_st;

namespace anthro {

inline constexpr std::size_t kNonceSize = 12;
inline constexpr std::size_t kTagSize = 16;

class Aead {
 public:
  Aead(Suite suite, const Key32& key);
  ~Aead();
  Aead(Aead&&) noexcept;
  Aead& operator=(Aead&&) noexcept;

  Suite suite() const { return suite_; }
  // Writes plaintext.size() bytes of ciphertext and then the 16-byte tag to `out`.
  void seal(const std::uint8_t* nonce, ByteView aad, ByteView plaintext, std::uint8_t* out);
  // `sealed` is ciphertext followed by the tag; writes sealed.size() - 16 bytes to `out`.
  // False when the tag does not verify (nothing in `out` may then be used).
  bool open(const std::uint8_t* nonce, ByteView aad, ByteView sealed, std::uint8_t* out);

 private:
  struct Ctx {
    void operator()(evp_cipher_ctx_st* c) const;
  };
  struct ShortGcm;
  struct ShortGcmFree {
    void operator()(ShortGcm* s) const;
  };
  Suite suite_;
  std::unique_ptr<evp_cipher_ctx_st, Ctx> enc_, dec_;
  std::unique_ptr<ShortGcm, ShortGcmFree> short_gcm_;  // null without AES-NI or for ChaCha20
};

// Nonces for one sending key: 4 random bytes then a 64-bit counter, so none repeats.
class NonceSequence {
 public:
  NonceSequence();
  // Throws std::runtime_error when the 2^64 counter is exhausted rather than reuse a nonce.
  std::array<std::uint8_t, kNonceSize> next();

 private:
  std::array<std::uint8_t, 4> prefix_{};
  std::uint64_t counter_ = 0;
  bool exhausted_ = false;
};

}  // namespace anthro
