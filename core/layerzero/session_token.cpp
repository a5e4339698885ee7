#include "layerzero/session_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>

namespace anthro::lz {
namespace {

constexpr std::size_t kTimesAt = 16, kHashAt = 32;
constexpr std::size_t kMaxModelId = 255;

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

// One AES-256 block, no padding: ECB is sound here because the block is a random id, never
// repeated across sessions and never longer than the block.
bool aes_block(const Key32& key, const std::uint8_t* in, std::uint8_t* out, bool encrypt) {
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
  int len = 0, tail = 0;
  return ctx && EVP_CipherInit_ex(ctx.get(), EVP_aes_256_ecb(), nullptr, key.data(), nullptr, encrypt ? 1 : 0) == 1 &&
         EVP_CIPHER_CTX_set_padding(ctx.get(), 0) == 1 &&
         EVP_CipherUpdate(ctx.get(), out, &len, in, static_cast<int>(kSessionIdSize)) == 1 &&
         EVP_CipherFinal_ex(ctx.get(), out + len, &tail) == 1 && len + tail == static_cast<int>(kSessionIdSize);
}

// session_id ‖ expiry ‖ issued ‖ u8 len(model_id) ‖ model_id ‖ budget_ms ‖ constraints
Bytes hashed_fields(const TokenFields& f, const SessionTerms& terms) {
  Bytes m(f.session_id.begin(), f.session_id.end());
  append_u64(m, f.expiry_ns);
  append_u64(m, f.issued_ns);
  m.push_back(static_cast<std::uint8_t>(terms.model_id.size()));
  append(m, as_bytes(terms.model_id));
  append_u32(m, terms.budget_ms);
  append_u32(m, terms.constraints);
  return m;
}

bool state_hash(const Key32& key, const TokenFields& f, const SessionTerms& terms, std::uint8_t* out) {
  Bytes message = hashed_fields(f, terms);
  unsigned int len = 0;
  const bool ok = HMAC(EVP_sha3_256(), key.data(), static_cast<int>(key.size()), message.data(), message.size(), out, &len) &&
                  len == 32;
  OPENSSL_cleanse(message.data(), message.size());  // it holds the plaintext id
  return ok;
}

Error token_error(TerminateReason reason, std::string detail) {
  return make_error(ErrorClass::Input, to_string(reason), std::move(detail));
}

// The fields this key gives the token, when its HMAC verifies under it.
std::optional<TokenFields> open_with(const Key32& key, const SessionToken& token, const SessionTerms& terms) {
  TokenView view = read_token(token);
  TokenFields f{{}, view.expiry_ns, view.issued_ns};
  std::array<std::uint8_t, 32> expected{};
  if (!aes_block(key, view.encrypted_id.data(), f.session_id.data(), false) || !state_hash(key, f, terms, expected.data()))
    return std::nullopt;
  if (CRYPTO_memcmp(expected.data(), view.state_hash.data(), expected.size()) != 0) return std::nullopt;
  return f;
}

}  // namespace

TokenView read_token(const SessionToken& token) {
  TokenView v;
  std::copy_n(token.begin(), kSessionIdSize, v.encrypted_id.begin());
  v.expiry_ns = load_u64(token.data() + kTimesAt);
  v.issued_ns = load_u64(token.data() + kTimesAt + 8);
  std::copy_n(token.begin() + kHashAt, v.state_hash.size(), v.state_hash.begin());
  return v;
}

SessionId random_session_id() {
  SessionId id{};
  if (RAND_bytes(id.data(), static_cast<int>(id.size())) != 1) throw std::runtime_error("the CSPRNG failed");
  return id;
}

Result<SessionToken> issue_token(const Key32& key, const TokenFields& fields, const SessionTerms& terms) {
  if (terms.model_id.size() > kMaxModelId)
    return make_error(ErrorClass::Usage, "length", "a model id of " + std::to_string(terms.model_id.size()) + " bytes: at most 255");
  SessionToken token{};
  store_u64(token.data() + kTimesAt, fields.expiry_ns);
  store_u64(token.data() + kTimesAt + 8, fields.issued_ns);
  if (!aes_block(key, fields.session_id.data(), token.data(), true) || !state_hash(key, fields, terms, token.data() + kHashAt))
    return make_error(ErrorClass::Usage, "crypto", "OpenSSL could not issue the token");
  return token;
}

Result<SessionToken> reissue_token(const Key32& key, const SessionId& id, const SessionTerms& terms, std::uint64_t now_ns,
                                   std::uint64_t timeout_ns) {
  const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - now_ns;
  return issue_token(key, TokenFields{id, now_ns + std::min(timeout_ns, room), now_ns}, terms);
}

Result<TokenFields> verify_token(std::span<const Key32> keys, const SessionToken& token, const SessionTerms& terms,
                                 std::uint64_t server_time_ns) {
  std::optional<TokenFields> fields;
  for (const Key32& key : keys)
    if (!fields) fields = open_with(key, token, terms);
  if (!fields) return token_error(TerminateReason::StateHash, "no token key verifies the token's state hash for these terms");
  if (server_time_ns >= fields->expiry_ns)
    return token_error(TerminateReason::Expired, "the token expired at " + std::to_string(fields->expiry_ns) +
                                                     " ns, the server's clock reads " + std::to_string(server_time_ns));
  return *fields;
}

Result<TokenFields> verify_token(const Key32& key, const SessionToken& token, const SessionTerms& terms,
                                 std::uint64_t server_time_ns) {
  return verify_token(std::span<const Key32>(&key, 1), token, terms, server_time_ns);
}

}  // namespace anthro::lz
