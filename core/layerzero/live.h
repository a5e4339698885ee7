// A live session against an lz:// or lz+lab:// target, for run_session and LiveSession: each of
// config.repeat prompts is a Layer Zero session of its own (layerzero/client.h, reconnecting and
// resuming when a connection breaks), recorded as any request is (RequestRecorder): written when
// the ACK released its USER_INPUT, one token per MODEL_OUTPUT, ended by the server's TERMINATE.
// So TTFT and token rate mean what they mean for anthro-v1: first MODEL_OUTPUT, outputs per second.
#pragma once

#include <atomic>
#include <functional>

#include "layerzero/client.h"
#include "session/session.h"

namespace anthro {

// `base` (its terms, heartbeats, tools) pointed at `target` with the session's TLS trust and API key:
// what every Layer Zero client of a session or a checklist run connects with.
lz::LzClientConfig layer_zero_client_config(lz::LzClientConfig base, const SessionConfig& config, const Target& target);

// `target` is an lz:// or lz+lab:// target (parse_session_target). Failures are in the result.
// Registered as Layer Zero's session runner: hooks.stop ends the prompt under way with TERMINATE
// normal; on_output follows each MODEL_OUTPUT.
SessionResult run_layer_zero_session(const SessionConfig& config, const Target& target, const SessionHooks& hooks);

}  // namespace anthro
