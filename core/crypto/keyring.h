// Everything a passive decoder may use to open frames: key log lines and server static keys.
#pragma once

#include <vector>

#include "crypto/keylog.h"
#include "util/vocabulary.h"

namespace anthro {

struct KeyCandidate {
  Suite suite;
  Key32 key;
};

// What the offer carries for the key schedule, so server static keys can derive a connection's keys.
struct OfferShare {
  std::uint64_t token = 0;
  Key32 client_public{};
  Key32 client_random{};
};

class KeyRing {
 public:
  void add(const KeyLog& log);
  void add_frame_keys(std::uint64_t token, const FrameKeys& keys);
  void add_server_key(const Key32& private_key);
  bool empty() const { return anthro_.empty() && server_keys_.empty() && tls_.empty(); }
  // A TLS secret by NSS label and client_random, for decrypting captured TLS.
  std::optional<Bytes> tls_secret(std::string_view label, ByteView client_random) const;

  // Keys worth trying for a connection, most likely first. Without the answer's suite each key
  // comes as AES-256-GCM then ChaCha20-Poly1305 (spec §7).
  std::vector<KeyCandidate> candidates(std::uint64_t token, Direction dir, const OfferShare* offer,
                                       std::optional<Suite> suite) const;

 private:
  std::vector<AnthroKeyLine> anthro_;
  std::vector<Key32> server_keys_;
  std::vector<TlsSecretLine> tls_;
};

}  // namespace anthro
