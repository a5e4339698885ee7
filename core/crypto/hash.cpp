#include "crypto/hash.h"

#include <array>
#include <stdexcept>

#include <openssl/evp.h>

namespace anthro {

struct Sha256::Context {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

// A digest that cannot start or step is OpenSSL out of memory: no result could be right.
Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256: OpenSSL could not start a digest");
}

Sha256::~Sha256() = default;

void Sha256::update(ByteView more) {
  if (EVP_DigestUpdate(ctx_->md.get(), more.data(), more.size()) != 1)
    throw std::runtime_error("SHA-256: OpenSSL could not hash");
}

Key32 Sha256::finish() {
  Key32 digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx_->md.get(), digest.data(), &size) != 1 || size != digest.size())
    throw std::runtime_error("SHA-256: OpenSSL could not finish a digest");
  return digest;
}

Key32 sha256(ByteView bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(as_bytes(bytes))); }

namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78;  // 0x1EDC6F41 bit-reversed
constexpr int kSlices = 8;

using Tables = std::array<std::array<std::uint32_t, 256>, kSlices>;

// Slicing-by-8: table k holds the CRC of a byte followed by k zero bytes, so eight bytes are
// folded per step with eight independent lookups instead of eight dependent ones.
constexpr Tables make_tables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ ((c & 1) ? kPolynomial : 0);
    t[0][i] = c;
  }
  for (int k = 1; k < kSlices; ++k)
    for (std::uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  return t;
}

constexpr Tables kTables = make_tables();

// Little-endian whatever the host: the reflected CRC consumes the lowest byte first.
inline std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

std::uint32_t fold_eight(std::uint32_t crc, const std::uint8_t* p) {
  const std::uint32_t lo = crc ^ load_le32(p), hi = load_le32(p + 4);
  return kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
         kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^ kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
}

// The register without init and xorout applied.
std::uint32_t crc_update(std::uint32_t crc, ByteView data) {
  const std::uint8_t* p = data.data();
  std::size_t n = data.size();
  for (; n >= 8; n -= 8, p += 8) crc = fold_eight(crc, p);
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ kTables[0][(crc ^ *p) & 0xFF];
  return crc;
}

}  // namespace

std::uint32_t crc32c_extend(std::uint32_t crc, ByteView more) { return ~crc_update(~crc, more); }

std::uint32_t crc32c(ByteView data) { return crc32c_extend(0, data); }

}  // namespace anthro
