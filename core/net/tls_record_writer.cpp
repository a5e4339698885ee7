#include "net/tls_record_writer.h"

#include <linux/tls.h>
#include <openssl/crypto.h>

#include <cstring>
#include <limits>

#include "crypto/key_schedule.h"

namespace anthro::net {
namespace {

constexpr std::uint8_t kHandshake = 22, kApplicationData = 23, kKeyUpdate = 24;
constexpr std::size_t kRecordHeader = 5, kMaxPlaintext = 1 << 14, kHandshakeHeader = 4;

// The suite's hash (RFC 8446 §B.4): OpenSSL's name and its length, the traffic secret's.
const char* digest_of(Suite suite) { return suite == Suite::Aes256Gcm ? "SHA384" : "SHA256"; }
std::size_t secret_size_of(Suite suite) { return suite == Suite::Aes256Gcm ? 48 : 32; }

// HKDF-Expand-Label(secret, label, "", size) into `out`; the copy it came in is cleansed.
bool expand_into(Suite suite, ByteView secret, std::string_view label, std::uint8_t* out, std::size_t size) {
  auto derived = hkdf_expand_label(digest_of(suite), secret, label, {}, size);
  if (!derived) return false;
  std::memcpy(out, derived->data(), size);
  OPENSSL_cleanse(derived->data(), derived->size());
  return true;
}

// A traffic secret's write key and iv (RFC 8446 §7.3).
bool traffic_keys(Suite suite, const TrafficSecret& secret, Key32& key, std::uint8_t* iv) {
  return expand_into(suite, secret.view(), "key", key.data(), key.size()) &&
         expand_into(suite, secret.view(), "iv", iv, kNonceSize);
}

}  // namespace

void TrafficSecret::clear() {
  OPENSSL_cleanse(bytes.data(), bytes.size());
  size = 0;
}

TlsRecordWriter::TlsRecordWriter(Suite suite, const Key32& key, const std::uint8_t* iv, std::uint64_t sequence,
                                 const TrafficSecret& secret)
    : aead_(suite, key), sequence_(sequence), secret_(secret) {
  std::memcpy(iv_.data(), iv, iv_.size());
}

std::optional<TlsRecordWriter> TlsRecordWriter::from_ktls_info(const void* info, const TrafficSecret& secret) {
  const auto* head = static_cast<const tls_crypto_info*>(info);
  if (head->version != TLS_1_3_VERSION) return std::nullopt;
  Key32 key{}, expected{};
  std::uint8_t iv[kNonceSize], expected_iv[kNonceSize];
  std::optional<Suite> suite;
  std::uint64_t sequence = 0;
  if (head->cipher_type == TLS_CIPHER_AES_GCM_256) {
    const auto* c = static_cast<const tls12_crypto_info_aes_gcm_256*>(info);
    std::memcpy(key.data(), c->key, key.size());
    std::memcpy(iv, c->salt, sizeof c->salt);  // TLS 1.3's 12-byte iv, split as TLS 1.2's salt and iv
    std::memcpy(iv + sizeof c->salt, c->iv, sizeof c->iv);
    suite = Suite::Aes256Gcm;
    sequence = load_u64(c->rec_seq);
  } else if (head->cipher_type == TLS_CIPHER_CHACHA20_POLY1305) {
    const auto* c = static_cast<const tls12_crypto_info_chacha20_poly1305*>(info);
    std::memcpy(key.data(), c->key, key.size());
    std::memcpy(iv, c->iv, sizeof iv);
    suite = Suite::ChaCha20Poly1305;
    sequence = load_u64(c->rec_seq);
  }  // AES-128-GCM: OpenSSL seals it
  // The secret must be the one these keys came from, or the keys after a KeyUpdate would be wrong.
  std::optional<TlsRecordWriter> writer;
  if (suite && secret.size == secret_size_of(*suite) && traffic_keys(*suite, secret, expected, expected_iv) &&
      CRYPTO_memcmp(key.data(), expected.data(), key.size()) == 0 && CRYPTO_memcmp(iv, expected_iv, sizeof iv) == 0)
    writer.emplace(TlsRecordWriter(*suite, key, iv, sequence, secret));
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(expected.data(), expected.size());
  OPENSSL_cleanse(iv, sizeof iv);
  OPENSSL_cleanse(expected_iv, sizeof expected_iv);
  return writer;
}

bool TlsRecordWriter::seal(std::uint8_t type, ByteView plaintext, Bytes& out) {
  if (retired_ || sequence_ == std::numeric_limits<std::uint64_t>::max() || plaintext.size() > kMaxPlaintext)
    return false;
  inner_.assign(plaintext.begin(), plaintext.end());
  inner_.push_back(type);  // TLSInnerPlaintext: content, type, no padding
  const std::size_t length = inner_.size() + kTagSize;
  const std::size_t start = out.size();
  out.resize(start + kRecordHeader + length);
  std::uint8_t* record = out.data() + start;
  record[0] = kApplicationData;  // every TLS 1.3 record after the handshake keys says so
  record[1] = 0x03;
  record[2] = 0x03;
  store_u16(record + 3, static_cast<std::uint16_t>(length));
  std::array<std::uint8_t, kNonceSize> nonce = iv_;
  for (int i = 0; i < 8; ++i) nonce[kNonceSize - 1 - i] ^= static_cast<std::uint8_t>(sequence_ >> (8 * i));
  aead_.seal(nonce.data(), ByteView(record, kRecordHeader), inner_, record + kRecordHeader);
  ++sequence_;
  if (type == kHandshake && ends_with_key_update(plaintext) && !next_keys()) retired_ = true;
  return true;
}

// OpenSSL writes each post-handshake message from its start, a long one (a client's Certificate)
// over several records: the walk keeps where the message it is in ends.
bool TlsRecordWriter::ends_with_key_update(ByteView plaintext) {
  std::size_t at = 0;
  while (at < plaintext.size()) {
    if (body_left_ > 0) {
      std::size_t n = std::min<std::size_t>(body_left_, plaintext.size() - at);
      at += n;
      body_left_ -= static_cast<std::uint32_t>(n);
      continue;
    }
    header_[header_got_++] = plaintext[at++];
    if (header_got_ < kHandshakeHeader) continue;
    header_got_ = 0;
    message_type_ = header_[0];
    body_left_ = std::uint32_t{header_[1]} << 16 | std::uint32_t{header_[2]} << 8 | header_[3];
  }
  return header_got_ == 0 && body_left_ == 0 && message_type_ == kKeyUpdate;
}

// RFC 8446 §7.2: application_traffic_secret_N+1 = HKDF-Expand-Label(secret_N, "traffic upd", "",
// Hash.length), its key and iv as ever, and the sequence number from 0.
bool TlsRecordWriter::next_keys() {
  const Suite suite = aead_.suite();
  TrafficSecret next;
  next.size = secret_.size;
  Key32 key{};
  std::uint8_t iv[kNonceSize];
  bool ok = expand_into(suite, secret_.view(), "traffic upd", next.bytes.data(), next.size) &&
            traffic_keys(suite, next, key, iv);
  if (ok) {
    aead_ = Aead(suite, key);
    std::memcpy(iv_.data(), iv, iv_.size());
    sequence_ = 0;
    secret_ = next;
  }
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(iv, sizeof iv);
  return ok;
}

}  // namespace anthro::net
