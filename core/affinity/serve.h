// Session affinity's GPU instance as the local endpoint emulates it (serve.cpp): its options
// ride in EndpointConfig::riders under its profile id, off unless its slots are given.
#pragma once

#include "affinity/session_slots.h"
#include "endpoint/endpoint.h"

namespace anthro {

// The instance's options, set (its defaults until changed: still off, with no slots).
AffinityConfig& emulate_affinity(EndpointConfig& config);
// They as set, or null when not.
const AffinityConfig* emulated_affinity(const EndpointConfig& config);

}  // namespace anthro
