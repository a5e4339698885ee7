// The wire formats registered from their own folders, one line each, after the rows of
// profile/profile.cpp: the order heuristics are tried in and the TLS port's ALPN preference.
#include "affinity/format.h"
#include "layerzero/format.h"
#include "tokenstream/format.h"

namespace anthro {

void register_builtin_formats() {
  register_session_affinity();
  register_token_stream();
  lz::register_layer_zero();
}

}  // namespace anthro
