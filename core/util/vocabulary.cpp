#include "util/vocabulary.h"

namespace anthro {

std::string_view to_string(Suite suite) {
  return suite == Suite::Aes256Gcm ? "aes-256-gcm" : "chacha20-poly1305";
}

std::optional<Suite> parse_suite(std::string_view name) {
  if (name == "aes-256-gcm") return Suite::Aes256Gcm;
  if (name == "chacha20-poly1305") return Suite::ChaCha20Poly1305;
  return std::nullopt;
}

const char* to_string(Direction d) { return d == Direction::ClientToServer ? "c2s" : "s2c"; }

}  // namespace anthro
