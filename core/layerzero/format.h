// Layer Zero as the registry knows it: ALPN layer-zero, the lz:// and lz+lab:// targets, the
// heuristic over a connection's first bytes, and its capture dissector (the codec's own cut,
// frames shown by view.h). Listed in core/formats/builtin.cpp.
#pragma once

#include "profile/profile.h"

namespace anthro::lz {

Profile layer_zero_profile();

}  // namespace anthro::lz
