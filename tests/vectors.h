// Access to the independent test vectors in ../shared/spec/vectors/.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <string>

#include "crypto/key_schedule.h"
#include "test_paths.h"
#include "util/bytes.h"

namespace anthro::test {

inline std::string vectors_path(const std::string& file) { return std::string(ANTHRO_VECTORS_DIR) + "/" + file; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline const nlohmann::json& vectors() {
  static const nlohmann::json doc = nlohmann::json::parse(read_file(vectors_path("anthro-v1-vectors.json")));
  return doc;
}

inline Bytes hex(const nlohmann::json& v) {
  auto bytes = from_hex(v.get<std::string>());
  if (!bytes) throw std::runtime_error("bad hex in vectors: " + v.get<std::string>());
  return *bytes;
}

inline Key32 key32(const nlohmann::json& v) {
  auto k = from_hex_array<32>(v.get<std::string>());
  if (!k) throw std::runtime_error("bad key in vectors");
  return *k;
}

inline std::array<std::uint8_t, 12> nonce12(const nlohmann::json& v) {
  auto n = from_hex_array<12>(v.get<std::string>());
  if (!n) throw std::runtime_error("bad nonce in vectors");
  return *n;
}

inline FrameKeys vector_keys() {
  const auto& k = vectors()["keys"];
  return {key32(k["key_c2s"]), key32(k["key_s2c"])};
}

inline std::uint64_t vector_token() { return 0x1234567890abcdefULL; }

}  // namespace anthro::test
