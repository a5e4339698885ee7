#include "crypto/keyring.h"

#include <algorithm>

namespace anthro {

void KeyRing::add(const KeyLog& log) {
  anthro_.insert(anthro_.end(), log.anthro.begin(), log.anthro.end());
  tls_.insert(tls_.end(), log.tls.begin(), log.tls.end());
}

std::optional<Bytes> KeyRing::tls_secret(std::string_view label, ByteView client_random) const {
  for (const auto& line : tls_)
    if (line.label == label && std::equal(line.client_random.begin(), line.client_random.end(), client_random.begin(),
                                          client_random.end()))
      return line.secret;
  return std::nullopt;
}

void KeyRing::add_frame_keys(std::uint64_t token, const FrameKeys& keys) {
  anthro_.push_back({token, keys});
}

void KeyRing::add_server_key(const Key32& private_key) { server_keys_.push_back(private_key); }

std::vector<KeyCandidate> KeyRing::candidates(std::uint64_t token, Direction dir, const OfferShare* offer,
                                              std::optional<Suite> suite) const {
  std::vector<Key32> keys;
  auto add_key = [&](const FrameKeys& fk) {
    const Key32& k = dir == Direction::ClientToServer ? fk.c2s : fk.s2c;
    for (const auto& existing : keys)
      if (existing == k) return;
    keys.push_back(k);
  };
  for (const auto& line : anthro_)
    if (line.token == token) add_key(line.keys);
  if (offer && offer->token == token)
    for (const auto& server_key : server_keys_)
      if (auto fk = frame_keys(server_key, offer->client_public, token, offer->client_random)) add_key(*fk);

  std::vector<Suite> suites;
  if (suite)
    suites.push_back(*suite);
  else
    suites = {Suite::Aes256Gcm, Suite::ChaCha20Poly1305};
  std::vector<KeyCandidate> out;
  for (const auto& k : keys)
    for (auto s : suites) out.push_back({s, k});
  return out;
}

}  // namespace anthro
