// The cryptography a passive TLS decoder needs: the cipher suite table, the TLS 1.3
// HKDF-Expand-Label, the TLS 1.2 PRF and an AEAD record opener, all through OpenSSL EVP.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "crypto/key_schedule.h"
#include "util/bytes.h"
#include "util/result.h"

struct evp_cipher_ctx_st;

namespace anthro::tls {

enum class AeadAlg { Aes128Gcm, Aes256Gcm, ChaCha20Poly1305 };

struct CipherSuite {
  std::uint16_t id;
  const char* name;  // IANA name
  AeadAlg aead;
  const char* digest;  // OpenSSL digest name of the suite's hash (HKDF or PRF)
  bool tls13;
  std::size_t key_len;
  std::size_t hash_len;
};

// A suite this decoder can open, or nullptr.
const CipherSuite* find_suite(std::uint16_t id);
// The IANA name of any well-known suite, else "0xXXXX": for messages about unsupported ones.
std::string suite_name(std::uint16_t id);

// RFC 8446 §7.1, from crypto/key_schedule.h (the TLS stream's record layer uses it too).
using ::anthro::hkdf_expand_label;
// RFC 5246 §5: PRF(secret, label, seed) with P_<digest>.
Result<Bytes> tls12_prf(const char* digest, ByteView secret, std::string_view label, ByteView seed,
                        std::size_t length);

// One direction's AEAD key. The key schedule is set up once; each record only sets the nonce.
class RecordOpener {
 public:
  static Result<RecordOpener> create(AeadAlg alg, ByteView key);
  ~RecordOpener();
  RecordOpener(RecordOpener&&) noexcept;
  RecordOpener& operator=(RecordOpener&&) noexcept;

  // `sealed` is ciphertext then the 16-byte tag. False when the tag does not verify.
  bool open(const std::uint8_t* nonce12, ByteView aad, ByteView sealed, Bytes& plaintext);

 private:
  struct Ctx {
    void operator()(evp_cipher_ctx_st* c) const;
  };
  explicit RecordOpener(std::unique_ptr<evp_cipher_ctx_st, Ctx> ctx);
  std::unique_ptr<evp_cipher_ctx_st, Ctx> ctx_;
};

}  // namespace anthro::tls
