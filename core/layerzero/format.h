// Layer Zero as the registry knows it: ALPN layer-zero, the lz:// and lz+lab:// targets, the
// heuristic over a connection's first bytes, and its capture dissector (the codec's own cut,
// frames shown by view.h). Listed in core/formats/builtin.cpp.
#pragma once

#include "layerzero/trace.h"
#include "profile/profile.h"

namespace anthro {
struct EndpointConfig;
}

namespace anthro::lz {

// Layer Zero's registry row and its parts in the engines' tables (core/formats/builtin.cpp).
void register_layer_zero();
// Its registry id, numbered when it registered.
ProfileId profile_id();

// The Layer Zero sessions among a capture's or a live run's records (empty when none).
const Trace& trace_of(const FormatRecords& records);
// Sets them (a live run's, linked by link_sessions).
void set_trace(FormatRecords& records, Trace trace);

// The emulation's own options, among EndpointConfig::own_options. tool_calls: a session whose
// constraints allow tools (0x02) gets one TOOL_CALL before each reply, which waits for its
// TOOL_RESULT or budget_ms × 0.8 (Layer Zero spec §3.3).
struct EmulationOptions {
  bool tool_calls = false;
};
EmulationOptions& emulation_options(EndpointConfig& config);
EmulationOptions emulation_options(const EndpointConfig& config);

}  // namespace anthro::lz
