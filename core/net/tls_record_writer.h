// TLS 1.3 records sealed in the program instead of in OpenSSL, the way kernel TLS takes them
// over: OpenSSL 3.0 hands its write keys to a BIO that says it does kTLS, then passes it each
// record's plaintext. OpenSSL 3.0 sets the record's nonce, AAD and tag through provider
// parameters on every record (~4 k instructions for a token's small record); here the record is
// one AEAD call (libsodium's precomputed AES-GCM for short records). The bytes on the wire are
// those OpenSSL would send: the same header, nonce (iv XOR sequence number), AAD, content type
// and no padding.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "crypto/aead.h"
#include "util/bytes.h"

namespace anthro::net {

// A TLS 1.3 application traffic secret (the suite hash's length), as OpenSSL's key log gives
// it: what the next keys after a KeyUpdate come from. Cleansed when let go.
struct TrafficSecret {
  std::array<std::uint8_t, 48> bytes{};
  std::size_t size = 0;  // 0: none known

  TrafficSecret() = default;
  TrafficSecret(const TrafficSecret&) = default;
  TrafficSecret& operator=(const TrafficSecret&) = default;
  ~TrafficSecret() { clear(); }
  void clear();
  ByteView view() const { return {bytes.data(), size}; }
};

class TlsRecordWriter {
 public:
  // From OpenSSL's kTLS key blob (linux/tls.h `tls12_crypto_info_*`) and the traffic secret its
  // key and iv came from: TLS 1.3 with AES-256-GCM or ChaCha20-Poly1305; nullopt for anything
  // else, or a secret that does not give this key, which OpenSSL then keeps sealing itself.
  static std::optional<TlsRecordWriter> from_ktls_info(const void* info, const TrafficSecret& secret);

  // Appends one record of content type `type` carrying `plaintext` (at most 2^14 bytes) to `out`.
  // A record that ends with a KeyUpdate is the last under its key: the writer then moves to the
  // next secret (RFC 8446 §7.2), as OpenSSL does when it seals itself. False when it may not
  // seal another record: its sequence numbers are used up, or the next keys could not be made.
  bool seal(std::uint8_t type, ByteView plaintext, Bytes& out);

 private:
  TlsRecordWriter(Suite suite, const Key32& key, const std::uint8_t* iv, std::uint64_t sequence, const TrafficSecret& secret);
  bool ends_with_key_update(ByteView plaintext);
  bool next_keys();

  Aead aead_;
  std::array<std::uint8_t, kNonceSize> iv_{};
  std::uint64_t sequence_;
  TrafficSecret secret_;  // the one aead_ and iv_ came from
  Bytes inner_;  // the plaintext and its content type, reused from record to record
  bool retired_ = false;
  // Where the handshake records' messages are: the header bytes of the next one seen so far,
  // or the bytes left of the one under way, and the type of the last one begun.
  std::array<std::uint8_t, 4> header_{};
  std::size_t header_got_ = 0;
  std::uint32_t body_left_ = 0;
  std::uint8_t message_type_ = 0;
};

}  // namespace anthro::net
