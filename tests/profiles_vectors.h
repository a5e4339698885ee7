// The profiles' vectors (../shared/spec/profiles/profiles-vectors.json), for suites built with
// ANTHRO_PROFILES_VECTORS defined.
#pragma once

#include <QFloat16>
#include <QTest>

#include <string>

#include "layerzero/session_token.h"
#include "test_paths.h"
#include "vectors.h"

namespace anthro::test {

// One profile's section: "token_stream", "layer_zero" or "session_affinity".
inline const nlohmann::json& profiles_vectors(const char* section) {
  static const nlohmann::json doc = nlohmann::json::parse(read_file(ANTHRO_PROFILES_VECTORS));
  return doc.at(section);
}

// A Layer Zero frame vector by its name.
inline const nlohmann::json& lz_frame_vector(const std::string& name) {
  for (const auto& f : profiles_vectors("layer_zero")["frames"])
    if (f["name"] == name) return f;
  qFatal("no frame vector %s", name.c_str());
}

// The vectors' SessionToken written as hex.
inline lz::SessionToken lz_token_of(const nlohmann::json& hex) {
  auto t = from_hex_array<lz::kTokenSize>(hex.get<std::string>());
  if (!t) qFatal("bad token in vectors");
  return *t;
}

// The session terms the vectors' token binds.
inline lz::SessionTerms lz_vector_terms() {
  const nlohmann::json& v = profiles_vectors("layer_zero");
  return {v["model_id"].get<std::string>(), v["budget_ms"].get<std::uint32_t>(), v["constraints"].get<std::uint32_t>()};
}

}  // namespace anthro::test
