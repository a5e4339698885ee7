#include "affinity/format.h"

namespace anthro {

void register_session_affinity() {
  register_served_session_affinity();  // first: its faults follow the catalogue's in the fault list
  register_captured_session_affinity();
  register_live_session_affinity();
  register_session_affinity_probes();
  register_session_affinity_plan_metrics();
}

}  // namespace anthro
