// A format's options in a config's table by its profile id (SessionConfig::riders,
// EndpointConfig::riders): held as a std::any the engines carry without knowing its type. An
// entry turns the format on; an empty std::any in it means its defaults.
#pragma once

#include <any>
#include <map>

#include "profile/profile.h"

namespace anthro {

using FormatOptionsTable = std::map<ProfileId, std::any>;

// Turns the format on (its defaults unless set) and returns its options to set.
template <class Options>
Options& use_format_options(FormatOptionsTable& table, ProfileId id) {
  std::any& held = table[id];
  if (!std::any_cast<Options>(&held)) held = Options{};
  return *std::any_cast<Options>(&held);
}

// The format's options; null when the table does not turn it on.
template <class Options>
const Options* format_options(const FormatOptionsTable& table, ProfileId id) {
  static const Options kDefaults;
  auto it = table.find(id);
  if (it == table.end()) return nullptr;
  const auto* set = std::any_cast<Options>(&it->second);
  return set ? set : &kDefaults;
}

}  // namespace anthro
