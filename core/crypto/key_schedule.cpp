#include "crypto/key_schedule.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <sodium.h>

#include <memory>
#include <optional>
#include <stdexcept>

#include "crypto/hash.h"

namespace anthro {
namespace {

void ensure_sodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw std::runtime_error("libsodium failed to initialise");
}

struct KdfDeleter {
  void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};

// HMAC-SHA-256 through libsodium: a connection's key schedule is three of them, and OpenSSL's
// provider HKDF (a context and a digest fetched by name each call) cost a third more.
Key32 hmac_sha256(ByteView key, ByteView message, std::optional<std::uint8_t> last = std::nullopt) {
  ensure_sodium();
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key.data(), key.size());
  crypto_auth_hmacsha256_update(&st, message.data(), message.size());
  if (last) crypto_auth_hmacsha256_update(&st, &*last, 1);
  Key32 out{};
  crypto_auth_hmacsha256_final(&st, out.data());
  sodium_memzero(&st, sizeof st);
  return out;
}

struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};

}  // namespace

std::string openssl_error() {
  unsigned long code = ERR_get_error();
  if (code == 0) return "no further detail from OpenSSL";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

void random_bytes(std::uint8_t* out, std::size_t n) {
  ensure_sodium();
  randombytes_buf(out, n);
}

bool secrets_equal(std::string_view presented, std::string_view expected) {
  ensure_sodium();
  const Key32 a = sha256(as_bytes(presented)), b = sha256(as_bytes(expected));
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool credential_accepted(const std::optional<std::string_view>& presented, std::string_view required) {
  return required.empty() || (presented && secrets_equal(*presented, required));
}

X25519KeyPair generate_x25519() {
  X25519KeyPair kp;
  random_bytes(kp.private_key.data(), kp.private_key.size());
  kp.public_key = x25519_public_from_private(kp.private_key);
  return kp;
}

Key32 x25519_public_from_private(const Key32& private_key) {
  ensure_sodium();
  Key32 pub{};
  crypto_scalarmult_base(pub.data(), private_key.data());
  return pub;
}

Result<Key32> x25519_shared(const Key32& private_key, const Key32& peer_public) {
  ensure_sodium();
  Key32 shared{};
  // libsodium refuses (returns -1) exactly when the result is all zeros.
  if (crypto_scalarmult(shared.data(), private_key.data(), peer_public.data()) != 0)
    return make_error("zero-shared", "X25519 with peer public key " + to_hex(peer_public) +
                                         " gives an all-zero shared secret (low-order point)");
  return shared;
}

Bytes hkdf_salt(std::uint64_t connection_token, const Key32& client_random) {
  Bytes salt;
  salt.reserve(40);
  append_u64(salt, connection_token);
  append(salt, client_random);
  return salt;
}

// RFC 5869: PRK = HMAC(salt, IKM).
Key32 hkdf_extract(ByteView salt, const Key32& shared) { return hmac_sha256(salt, shared); }

// RFC 5869 for one block of output (32 bytes): T(1) = HMAC(PRK, info || 0x01).
Key32 hkdf_expand(const Key32& prk, std::string_view info) { return hmac_sha256(prk, as_bytes(info), 0x01); }

Result<Bytes> hkdf_expand_label(const char* digest, ByteView secret, std::string_view label, ByteView context,
                                std::size_t length) {
  // struct { uint16 length; opaque label<7..255>; opaque context<0..255>; } HkdfLabel
  const std::string full = "tls13 " + std::string(label);
  Bytes info;
  append_u16(info, static_cast<std::uint16_t>(length));
  info.push_back(static_cast<std::uint8_t>(full.size()));
  append(info, as_bytes(full));
  info.push_back(static_cast<std::uint8_t>(context.size()));
  append(info, context);
  int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  OSSL_PARAM params[5];
  params[0] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
  params[1] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0);
  params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(secret.data()), secret.size());
  params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size());
  params[4] = OSSL_PARAM_construct_end();
  static EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);  // a fetch is ~10 k instructions
  std::unique_ptr<EVP_KDF_CTX, KdfDeleter> ctx(kdf ? EVP_KDF_CTX_new(kdf) : nullptr);
  Bytes out(length);
  if (!ctx || EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1)
    return make_error("crypto", "HKDF failed: " + openssl_error());
  return out;
}

FrameKeys derive_frame_keys(const Key32& shared, std::uint64_t token, const Key32& client_random) {
  Key32 prk = hkdf_extract(hkdf_salt(token, client_random), shared);
  FrameKeys keys{hkdf_expand(prk, "anthro-v1 c2s"), hkdf_expand(prk, "anthro-v1 s2c")};
  sodium_memzero(prk.data(), prk.size());
  return keys;
}

Result<FrameKeys> frame_keys(const Key32& own_private, const Key32& peer_public, std::uint64_t token,
                             const Key32& client_random) {
  auto shared = x25519_shared(own_private, peer_public);
  if (!shared) return shared.error();
  return derive_frame_keys(*shared, token, client_random);
}

Result<Key32> load_x25519_private_pem(std::string_view pem, const std::string& origin) {
  if (pem.size() > 1 << 20) return make_error("key", origin + ": " + std::to_string(pem.size()) + " bytes is no PEM key");
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  // No passphrase callback: OpenSSL's default one would prompt on the terminal and wait.
  bool asked_passphrase = false;
  auto no_passphrase = [](char*, int, int, void* asked) {
    *static_cast<bool*>(asked) = true;
    return -1;
  };
  std::unique_ptr<EVP_PKEY, PkeyDeleter> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, &asked_passphrase));
  if (!key && asked_passphrase) {
    openssl_error();  // clears the queue
    return make_error("key", origin + ": the private key is encrypted; decrypt it first "
                                      "(openssl pkey -in " + origin + " -out PLAIN.pem)");
  }
  if (!key)
    return make_error("key", origin + ": not a PEM private key (" + openssl_error() + ")");
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_X25519)
    return make_error("key", origin + ": the private key is " +
                                 std::string(EVP_PKEY_get0_type_name(key.get())) +
                                 ", expected X25519");
  Key32 raw{};
  std::size_t len = raw.size();
  if (EVP_PKEY_get_raw_private_key(key.get(), raw.data(), &len) != 1 || len != raw.size())
    return make_error("key", origin + ": cannot read the raw X25519 key (" + openssl_error() + ")");
  return raw;
}

std::string x25519_private_to_pem(const Key32& private_key) {
  std::unique_ptr<EVP_PKEY, PkeyDeleter> key(EVP_PKEY_new_raw_private_key(
      EVP_PKEY_X25519, nullptr, private_key.data(), private_key.size()));
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new(BIO_s_mem()));
  if (!key || !bio ||
      PEM_write_bio_PKCS8PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    throw std::runtime_error("cannot write X25519 PEM: " + openssl_error());
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

}  // namespace anthro
