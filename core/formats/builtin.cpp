// The built-in wire formats, registered from their own folders, one line each: the order
// heuristics are tried in and the TLS port's ALPN preference. Carriers before their riders.
#include "affinity/format.h"
#include "anthro_v1/format.h"
#include "http1/format.h"
#include "http2/format.h"
#include "layerzero/format.h"
#include "tokenstream/format.h"
#include "capture/capture_decoder.h"
#include "diagnosis/diagnosis.h"
#include "profile/profile.h"
#include "rollout/gates.h"
#include "util/message.h"

namespace anthro {

void register_builtin_formats() {
  register_anthro_v1();
  register_http2();
  register_http1();
  register_session_affinity();
  register_token_stream();
  lz::register_layer_zero();
}

// Core's own texts, then the formats' (each registers its own as it registers its profile).
void load_builtin_messages() {
  register_capture_messages();
  register_diagnosis_messages();
  register_rollout_messages();
  (void)profiles();
}

}  // namespace anthro
