// Layer Zero in diagnosis: the layer-zero checklist's probes (probes.cpp) and its live workload
// (workload.cpp), registered by register_layer_zero.
#pragma once

#include "diagnosis/live_workload.h"
#include "layerzero/client.h"

namespace anthro::lz {

void register_layer_zero_probes();
// Sessions of one prompt each through the Layer Zero client, a few at a time, traced.
Result<Observations> run_layer_zero_workload(const LiveWorkloadConfig& config);
// The client's terms and faults among a workload's own options (diagnose's --lz-* options):
// heartbeat cadence, tool answer delay, reported buffer usage, the client's clock. Its host,
// port, TLS and prompt come from the target and the workload. The defaults when none were set.
LzClientConfig& client_options(LiveWorkloadConfig& config);
LzClientConfig client_options(const LiveWorkloadConfig& config);

}  // namespace anthro::lz
