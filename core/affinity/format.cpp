#include "affinity/format.h"

namespace anthro {

void register_session_affinity() {
  register_captured_session_affinity();
  register_live_session_affinity();
}

}  // namespace anthro
