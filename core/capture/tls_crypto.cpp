#include "capture/tls_crypto.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <array>
#include <cstdio>

#include "crypto/key_schedule.h"

namespace anthro::tls {
namespace {

using enum AeadAlg;

// Every suite here is AEAD, so records need no MAC key and the TLS 1.2 key block is simple.
constexpr CipherSuite kSuites[] = {
    {0x1301, "TLS_AES_128_GCM_SHA256", Aes128Gcm, "SHA256", true, 16, 32},
    {0x1302, "TLS_AES_256_GCM_SHA384", Aes256Gcm, "SHA384", true, 32, 48},
    {0x1303, "TLS_CHACHA20_POLY1305_SHA256", ChaCha20Poly1305, "SHA256", true, 32, 32},
    {0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Aes128Gcm, "SHA256", false, 16, 32},
    {0xC02C, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", Aes256Gcm, "SHA384", false, 32, 48},
    {0xC02F, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", Aes128Gcm, "SHA256", false, 16, 32},
    {0xC030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", Aes256Gcm, "SHA384", false, 32, 48},
    {0xCCA8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", ChaCha20Poly1305, "SHA256", false, 32,
     32},
    {0xCCA9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", ChaCha20Poly1305, "SHA256", false,
     32, 32},
    // Same record protection and key block from the master secret; only the exchange differs.
    {0x009C, "TLS_RSA_WITH_AES_128_GCM_SHA256", Aes128Gcm, "SHA256", false, 16, 32},
    {0x009D, "TLS_RSA_WITH_AES_256_GCM_SHA384", Aes256Gcm, "SHA384", false, 32, 48},
    {0x009E, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", Aes128Gcm, "SHA256", false, 16, 32},
    {0x009F, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", Aes256Gcm, "SHA384", false, 32, 48},
    {0xCCAA, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", ChaCha20Poly1305, "SHA256", false, 32,
     32},
};

struct SuiteName {
  std::uint16_t id;
  const char* name;
};

// Names only, so that an unsupported suite can be reported the way Wireshark would show it.
constexpr SuiteName kOtherNames[] = {
    {0x000A, "TLS_RSA_WITH_3DES_EDE_CBC_SHA"},
    {0x002F, "TLS_RSA_WITH_AES_128_CBC_SHA"},
    {0x0035, "TLS_RSA_WITH_AES_256_CBC_SHA"},
    {0x003C, "TLS_RSA_WITH_AES_128_CBC_SHA256"},
    {0x003D, "TLS_RSA_WITH_AES_256_CBC_SHA256"},
    {0x1304, "TLS_AES_128_CCM_SHA256"},
    {0x1305, "TLS_AES_128_CCM_8_SHA256"},
    {0xC009, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"},
    {0xC00A, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
    {0xC013, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"},
    {0xC014, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"},
    {0xC023, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"},
    {0xC024, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384"},
    {0xC027, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"},
    {0xC028, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"},
    {0xC0AC, "TLS_ECDHE_ECDSA_WITH_AES_128_CCM"},
    {0xC0AD, "TLS_ECDHE_ECDSA_WITH_AES_256_CCM"},
};

struct KdfCtxDeleter {
  void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};

// Runs one EVP_KDF with the given parameters (terminated here) and fills `length` bytes.
Result<Bytes> run_kdf(const char* kdf_name, OSSL_PARAM* params, std::size_t length) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, kdf_name, nullptr);
  if (!kdf) return make_error("crypto", std::string(kdf_name) + " unavailable: " + openssl_error());
  std::unique_ptr<EVP_KDF_CTX, KdfCtxDeleter> ctx(EVP_KDF_CTX_new(kdf));
  EVP_KDF_free(kdf);
  Bytes out(length);
  if (!ctx || EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1)
    return make_error("crypto", std::string(kdf_name) + " failed: " + openssl_error());
  return out;
}

OSSL_PARAM octets(const char* key, ByteView v) {
  return OSSL_PARAM_construct_octet_string(key, const_cast<std::uint8_t*>(v.data()), v.size());
}

const EVP_CIPHER* cipher_of(AeadAlg alg) {
  switch (alg) {
    case Aes128Gcm: return EVP_aes_128_gcm();
    case Aes256Gcm: return EVP_aes_256_gcm();
    case ChaCha20Poly1305: return EVP_chacha20_poly1305();
  }
  return nullptr;
}

constexpr std::size_t kTag = 16;

}  // namespace

const CipherSuite* find_suite(std::uint16_t id) {
  for (const auto& s : kSuites)
    if (s.id == id) return &s;
  return nullptr;
}

std::string suite_name(std::uint16_t id) {
  if (const auto* s = find_suite(id)) return s->name;
  for (const auto& n : kOtherNames)
    if (n.id == id) return n.name;
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", id);
  return buf;
}

Result<Bytes> tls12_prf(const char* digest, ByteView secret, std::string_view label, ByteView seed,
                        std::size_t length) {
  // The PRF's seed is label || seed (RFC 5246 §5); OpenSSL takes it as one octet string.
  Bytes full_seed(label.begin(), label.end());
  append(full_seed, seed);
  OSSL_PARAM params[4];
  params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0);
  params[1] = octets(OSSL_KDF_PARAM_SECRET, secret);
  params[2] = octets(OSSL_KDF_PARAM_SEED, full_seed);
  params[3] = OSSL_PARAM_construct_end();
  return run_kdf("TLS1-PRF", params, length);
}

void RecordOpener::Ctx::operator()(evp_cipher_ctx_st* c) const { EVP_CIPHER_CTX_free(c); }

RecordOpener::RecordOpener(std::unique_ptr<evp_cipher_ctx_st, Ctx> ctx) : ctx_(std::move(ctx)) {}
RecordOpener::~RecordOpener() = default;
RecordOpener::RecordOpener(RecordOpener&&) noexcept = default;
RecordOpener& RecordOpener::operator=(RecordOpener&&) noexcept = default;

Result<RecordOpener> RecordOpener::create(AeadAlg alg, ByteView key) {
  std::unique_ptr<evp_cipher_ctx_st, Ctx> ctx(EVP_CIPHER_CTX_new());
  const EVP_CIPHER* cipher = cipher_of(alg);
  if (!ctx || !cipher ||
      EVP_DecryptInit_ex(ctx.get(), cipher, nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) != 1 ||
      static_cast<std::size_t>(EVP_CIPHER_CTX_get_key_length(ctx.get())) != key.size() ||
      EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr) != 1)
    return make_error("crypto", "cannot set up the record cipher: " + openssl_error());
  return RecordOpener(std::move(ctx));
}

bool RecordOpener::open(const std::uint8_t* nonce12, ByteView aad, ByteView sealed,
                        Bytes& plaintext) {
  if (sealed.size() < kTag) return false;
  const std::size_t n = sealed.size() - kTag;
  plaintext.resize(n);
  auto* c = ctx_.get();
  int len = 0;
  auto* tag = const_cast<std::uint8_t*>(sealed.data() + n);
  if (EVP_DecryptInit_ex(c, nullptr, nullptr, nullptr, nonce12) != 1 ||
      EVP_DecryptUpdate(c, nullptr, &len, aad.data(), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(c, plaintext.data(), &len, sealed.data(), static_cast<int>(n)) != 1 ||
      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, kTag, tag) != 1)
    return false;
  int final_len = 0;
  // The output pointer must be valid even though AEAD Final writes nothing.
  std::uint8_t scratch[16];
  return EVP_DecryptFinal_ex(c, scratch, &final_len) == 1;
}

}  // namespace anthro::tls
