// A Layer Zero client over real sockets (../shared/spec/profiles/layer-zero.md): one
// prompt on a session, its answer read until the server ends the session, reconnecting and
// resuming when a connection breaks. The session rules are the engine's (layerzero/session.h);
// this file only connects, reads, writes and keeps time: cleartext (lz+lab) or TLS 1.3 with
// ALPN layer-zero (lz).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crypto/keylog.h"
#include "layerzero/session.h"
#include "layerzero/trace.h"
#include "net/proxy.h"

namespace anthro::lz {

struct LzOutput {
  std::uint32_t sequence_id = 0;
  std::string text;
  std::uint32_t connection = 0;  // 1 for the first
};

struct LzClientConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  bool tls = false;
  std::string ca_file;    // TLS trust anchors; empty: the system store
  bool insecure = false;  // TLS without certificate checks
  net::ProxySetting proxy;  // a CONNECT tunnel through the proxy this names (net/proxy.h)
  SessionTerms terms;
  std::optional<std::string> api_key;  // sent on every SESSION_INIT (constraint 0x40)
  std::string prompt;
  Clock clock = system_clock_ns;  // the client's own clock: what a resume's client_time_ns says
  double timeout_s = 10;          // the whole run, every connection included
  std::uint32_t max_connections = 4;  // the first and the resumes after it
  std::uint8_t buffer_usage = 0;      // what its heartbeats report
  double heartbeat_ms = 200;          // its heartbeat cadence (Layer Zero spec §3.2); another is a client fault
  // TOOL_CALLs are answered with `tool_result_json` this long after they arrive (a slow tool
  // handler; beyond budget_ms × 0.8 the server has given up on it).
  double tool_delay_ms = 0;
  std::string tool_result_json = "{\"ok\":true}";
  std::string name = "lz";  // its connections are traced as NAME#1, NAME#2, ...
  std::shared_ptr<KeyLogSink> keylog;  // TLS secrets go here (NSS key log), so captures open; null: none
  // Live views, on the client's own thread: the prompt's USER_INPUT written (the ACK that let it
  // go just read) and each MODEL_OUTPUT delivered, stamped with the steady clock of the read.
  std::function<void(double ts)> on_prompt_sent;
  std::function<void(const LzOutput&, double ts)> on_output;
  // Set by another thread: the client ends the session with TERMINATE normal and reads until
  // the server closes (a Layer Zero client's only cancel); LzRunResult::cancelled says so.
  const std::atomic<bool>* stop = nullptr;
};

// The terms the workbench's own sessions ask for: tools (0x02) and dynamic frame sizes (0x10)
// under a 2 s budget, so every layer-zero checklist item has something to judge.
LzClientConfig default_client_config();

struct LzRunResult {
  std::string text;              // every MODEL_OUTPUT delivered, joined
  std::vector<LzOutput> outputs;  // each as delivered, in order
  std::uint64_t repeats = 0;     // frames received again after a resume, not delivered
  std::uint32_t connections = 0;
  std::uint32_t resumes = 0;     // SESSION_ACKs of a resume
  // The TERMINATE that ended the run, from the server (or the client's own refusal), with
  // why; complete when the server ended the session normally.
  std::optional<TerminateReason> terminated;
  bool terminated_by_server = false;
  std::string detail;
  bool complete = false;
  bool cancelled = false;  // config.stop ended it
  std::uint32_t tool_calls = 0;  // TOOL_CALLs received (each answered)
  // Every connection's frames both ways, as the client wrote and read them (steady clock), in
  // the shape a capture's dissector gives (layerzero/trace.h).
  std::vector<ConnectionTrace> trace;
};

// Fails (ErrorClass::Network) when no connection can be made, the run outlasts its timeout or
// every allowed connection broke; a TERMINATE is a result, not a failure.
Result<LzRunResult> run_lz_prompt(const LzClientConfig& config);

}  // namespace anthro::lz
