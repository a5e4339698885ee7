// TLS 1.3 records sealed in the program instead of in OpenSSL, the way kernel TLS takes them
// over: OpenSSL 3.0 hands its write keys to a BIO that says it does kTLS, then passes it each
// record's plaintext. OpenSSL 3.0 sets the record's nonce, AAD and tag through provider
// parameters on every record (~4 k instructions for a token's small record); here the record is
// one AEAD call (libsodium's precomputed AES-GCM for short records). The bytes on the wire are
// those OpenSSL would send: the same header, nonce (iv XOR sequence number), AAD, content type
// and no padding.
#pragma once

#include <cstdint>
#include <optional>

#include "crypto/aead.h"
#include "util/bytes.h"

namespace anthro::net {

class TlsRecordWriter {
 public:
  // From OpenSSL's kTLS key blob (linux/tls.h `tls12_crypto_info_*`): TLS 1.3 with AES-256-GCM
  // or ChaCha20-Poly1305; nullopt for anything else, which OpenSSL then keeps sealing itself.
  static std::optional<TlsRecordWriter> from_ktls_info(const void* info);

  // Appends one record of content type `type` carrying `plaintext` (at most 2^14 bytes) to `out`.
  // False when this writer may not seal another record: its sequence numbers are used up, or
  // a KeyUpdate went out (the keys after it are OpenSSL's, which 3.0 does not hand over).
  bool seal(std::uint8_t type, ByteView plaintext, Bytes& out);

 private:
  TlsRecordWriter(Suite suite, const Key32& key, const std::uint8_t* iv, std::uint64_t sequence);

  Aead aead_;
  std::array<std::uint8_t, kNonceSize> iv_{};
  std::uint64_t sequence_;
  Bytes inner_;  // the plaintext and its content type, reused from record to record
  bool retired_ = false;
};

}  // namespace anthro::net
