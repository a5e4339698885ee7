#include "net/tls_record_writer.h"

#include <linux/tls.h>
#include <openssl/crypto.h>

#include <cstring>
#include <limits>

namespace anthro::net {
namespace {

constexpr std::uint8_t kHandshake = 22, kApplicationData = 23, kKeyUpdate = 24;
constexpr std::size_t kRecordHeader = 5, kMaxPlaintext = 1 << 14;

}  // namespace

TlsRecordWriter::TlsRecordWriter(Suite suite, const Key32& key, const std::uint8_t* iv, std::uint64_t sequence)
    : aead_(suite, key), sequence_(sequence) {
  std::memcpy(iv_.data(), iv, iv_.size());
}

std::optional<TlsRecordWriter> TlsRecordWriter::from_ktls_info(const void* info) {
  const auto* head = static_cast<const tls_crypto_info*>(info);
  if (head->version != TLS_1_3_VERSION) return std::nullopt;
  Key32 key{};
  std::uint8_t iv[kNonceSize];
  std::optional<TlsRecordWriter> writer;
  if (head->cipher_type == TLS_CIPHER_AES_GCM_256) {
    const auto* c = static_cast<const tls12_crypto_info_aes_gcm_256*>(info);
    std::memcpy(key.data(), c->key, key.size());
    std::memcpy(iv, c->salt, sizeof c->salt);  // TLS 1.3's 12-byte iv, split as TLS 1.2's salt and iv
    std::memcpy(iv + sizeof c->salt, c->iv, sizeof c->iv);
    writer.emplace(TlsRecordWriter(Suite::Aes256Gcm, key, iv, load_u64(c->rec_seq)));
  } else if (head->cipher_type == TLS_CIPHER_CHACHA20_POLY1305) {
    const auto* c = static_cast<const tls12_crypto_info_chacha20_poly1305*>(info);
    std::memcpy(key.data(), c->key, key.size());
    std::memcpy(iv, c->iv, sizeof iv);
    writer.emplace(TlsRecordWriter(Suite::ChaCha20Poly1305, key, iv, load_u64(c->rec_seq)));
  }  // AES-128-GCM: OpenSSL seals it
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(iv, sizeof iv);
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
  if (type == kHandshake && !plaintext.empty() && plaintext[0] == kKeyUpdate) retired_ = true;
  return true;
}

}  // namespace anthro::net
