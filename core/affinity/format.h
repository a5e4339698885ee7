// Session affinity as the registry and the engines know it (../shared/spec/profiles/
// session-affinity.md): a format adding fields to the HTTP Messages API's own requests and
// replies, registered from this folder (register_session_affinity, listed in
// core/formats/builtin.cpp): its registry row and its parts.
#pragma once

#include "affinity/conversation.h"
#include "session/session.h"

namespace anthro {

// The row and every part, in the engines' tables.
void register_session_affinity();
// Its registry id, numbered when it registered.
ProfileId session_affinity_id();
// Its parts, one per engine (captured.cpp, live.cpp, serve.cpp).
void register_captured_session_affinity();
void register_live_session_affinity();
void register_served_session_affinity();
// Its checklist's probes (probes.cpp) and its rollout plan's metric (plan_metric.cpp).
void register_session_affinity_probes();
void register_session_affinity_plan_metrics();

// Turns session affinity on for a session on a Messages API target (its defaults): each
// connection holds a conversation (AffinityConversation); and its options to set.
AffinityClientConfig& use_session_affinity(SessionConfig& config);
// The session's session-affinity options; null when it does not speak it.
const AffinityClientConfig* session_affinity_client(const SessionConfig& config);

}  // namespace anthro
