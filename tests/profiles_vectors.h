// The profiles' vectors (../shared/spec/profiles/profiles-vectors.json), for suites built with
// ANTHRO_PROFILES_VECTORS defined.
#pragma once

#include <QtTest>

#include <string>

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

}  // namespace anthro::test
