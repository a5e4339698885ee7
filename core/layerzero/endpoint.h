// Layer Zero in the local endpoint (an Emulation of its own port, registered by register_layer_zero): its
// state, made once per endpoint start, and one connection served, cleartext on its own port
// (EndpointConfig::own_listen) or after TLS with ALPN layer-zero.
#pragma once

#include "endpoint/server_state.h"

namespace anthro {

std::any layer_zero_endpoint_state(const EndpointConfig& config);
// lz-cut=N, lz-resume-repeat, lz-resume-skip, lz-ignore-backpressure (Faults::own).
void register_layer_zero_faults();

net::awaitable<void> serve_layer_zero(ServedConnection connection, ServerState& state);

}  // namespace anthro
