// What every connection of one endpoint shares. Lives on the endpoint's loop thread.
#pragma once

#include <any>
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "crypto/key_schedule.h"
#include "endpoint/endpoint.h"
#include "endpoint/prometheus.h"
#include "endpoint/http_rider.h"
#include "net/byte_stream.h"

namespace anthro {

struct AtomicCounters {
  std::atomic<std::uint64_t> connections{0}, open_connections{0}, requests{0}, cancels{0}, frames_dropped{0},
      protocol_errors{0}, handshake_failures{0}, http_requests{0}, refused_connections{0}, timeouts{0},
      client_error_reports{0};
};

// The faults that belong to the anthro-v1 transport are not the baseline's.
inline ModelConfig baseline_config(ModelConfig c) {
  c.faults.max_tokens_u16 = false;
  c.faults.utf8_surrogate = false;
  c.faults.corrupt_frames_rate = 0;
  c.faults.skip_token_index_rate = 0;
  return c;
}

// What the simulated model reads: the system prompt and every message, one per line.
inline std::string prompt_text(const std::optional<std::string>& system, const std::vector<ChatMessage>& messages) {
  std::string prompt = system.value_or("");
  for (const auto& m : messages) prompt += (prompt.empty() ? "" : "\n") + m.content;
  return prompt;
}

// The request-level refusals both paths share: 404 unknown model, 413 too large.
struct Refusal {
  int code;
  std::string type, message;
};
inline std::optional<Refusal> refuse_request(const EndpointConfig& config, const std::string& model,
                                             const std::string& prompt) {
  if (model.empty()) return Refusal{404, "not_found_error", "model: the empty name is not a model"};
  if (prompt.size() > config.max_prompt_bytes)
    return Refusal{413, "request_too_large", "the prompt is " + std::to_string(prompt.size()) +
                                                 " bytes; this server takes at most " +
                                                 std::to_string(config.max_prompt_bytes)};
  return std::nullopt;
}

// Beyond max_connections a connection is refused: negotiated or read far enough to be told
// why (503, retry after kRefusalRetryMs), then closed.
enum class Admission { Serve, Refuse };
inline constexpr std::uint32_t kRefusalRetryMs = 1000;
inline std::string refusal_text(const EndpointConfig& config) {
  return "unavailable: the endpoint serves at most " + std::to_string(config.max_connections) +
         " connections; retry later";
}
// How long a refused connection may take to hear why, and to close after it.
inline double refusal_timeout_s(const EndpointConfig& config) {
  return config.handshake_timeout_s > 0 ? std::min(config.handshake_timeout_s, 2.0) : 2.0;
}

// A live anthro-v1 connection the endpoint can ask to end with a connection-level ERROR.
class Drainable {
 public:
  virtual void drain(std::uint16_t code, std::uint32_t retry_after_ms, const std::string& why) = 0;

 protected:
  ~Drainable() = default;
};

struct ServerState;

// One connection the endpoint serves: its stream, whether it is served or told why not, and on
// the TLS port the negotiation extension's state (what anthro-v1's offer and answer were).
struct ServedConnection {
  std::unique_ptr<net::ByteStream> stream;
  Admission admission = Admission::Serve;
  std::unique_ptr<ExtensionState> extension;
};

// How the endpoint serves a wire format, registered from its folder: its state, made once per
// endpoint start (none: it keeps its state elsewhere), and how it serves one connection
// (cleartext on its port, or after TLS by its ALPN). A format riding on another is served by
// its carrier's emulation. `own_port`: it listens on a cleartext port of its own
// (EndpointConfig::own_listen). `embedded`: its options when the workbench embeds the endpoint
// (none: the defaults).
struct Emulation {
  std::any (*make_state)(const EndpointConfig& config) = nullptr;
  net::awaitable<void> (*serve)(ServedConnection connection, ServerState& state) = nullptr;
  bool own_port = false;
  void (*embedded)(EndpointConfig& config) = nullptr;
};
void register_emulation(ProfileId id, Emulation emulation);
// The emulation that serves a profile (its own, or its carrier's), or nullptr.
const Emulation* emulation_of(const Profile& p);
const std::map<ProfileId, Emulation>& emulations();

struct ServerState {
  ServerState(const EndpointConfig& c, const Key32& server_private)
      : config(c), model(c.model), http_model(baseline_config(c.model)), server_private(server_private),
        server_public(x25519_public_from_private(server_private)) {
    for (const auto& [id, emulation] : emulations())
      if (emulation.make_state) formats[id] = emulation.make_state(c);
    for (const auto& [id, route] : http_routes().all()) formats[id] = route.make_state(c);
    if (c.replay) replay.emplace(*c.replay);
  }

  // A request's plan on `protocol`: the next recorded stream when replaying, else `from`'s.
  ReplyPlan plan(ProfileId protocol, const SimulatedModel& from, const ReplyRequest& request) {
    return replay ? replay->plan(protocol, request) : from.plan(request);
  }

  EndpointConfig config;
  SimulatedModel model;
  SimulatedModel http_model;  // the path anthro-v1 replaces has none of anthro-v1's own bugs
  std::optional<ReplayModel> replay;  // --replay: recorded streams instead of the model's plans
  Key32 server_private;
  Key32 server_public;
  AtomicCounters counters;
  EndpointMetrics metrics;
  std::uint64_t request_number = 0;  // loop thread only
  std::set<Drainable*> live;          // loop thread only
  // Each format's own emulation's or HTTP route's state (Emulation::make_state,
  // HttpRoute::make_state); loop thread only.
  std::map<ProfileId, std::any> formats;

  void log(const std::string& line) const {
    if (config.on_log) config.on_log(line);
    else std::cerr << "anthro-wb endpoint: " << line << "\n";
  }
};

// /metrics: the endpoint's metrics, then the lines of the formats riding on HTTP
// (HttpRoute::metrics).
std::string metrics_text(const ServerState& state);

// The answer to a client's offer (spec §2), or the reason the offer is refused; on an answer,
// `keys` holds the connection's frame keys (spec §3).
Result<Bytes> answer_offer(const ServerState& state, ByteView offer, FrameKeys& keys);

// What the anthro-v1 endpoint answers one decoded REQUEST, decided before anything is sent:
// an ERROR on the stream (401 api_key, 404/413 refuse_request, 429 overload) or the simulated
// model's plan to play. No sockets, so tests/fuzz/fuzz_request.cpp drives it alone.
struct StreamRefusal {
  std::uint16_t code;
  std::uint32_t retry_after_ms;
  std::string message;
};
struct RequestDecision {
  std::optional<StreamRefusal> refusal;
  ReplyPlan plan;  // empty when refused
};
RequestDecision decide_request(ServerState& state, const RequestBody& request, std::uint32_t default_max_tokens);

// One anthro-v1 connection. `extension` holds the offer and answer when the TLS extension
// carried them; otherwise the in-band preface is expected.
net::awaitable<void> serve_anthro(std::unique_ptr<net::ByteStream> stream, ServerState& state,
                                  std::unique_ptr<ExtensionState> extension, Admission admission = Admission::Serve);
// One HTTP/1.1 connection of the baseline (Messages API and chat completions).
net::awaitable<void> serve_http(std::unique_ptr<net::ByteStream> stream, ServerState& state,
                                Admission admission = Admission::Serve);
// One HTTP/2 connection (TLS, ALPN h2): the same requests as serve_http's, on concurrent streams.
net::awaitable<void> serve_http2(std::unique_ptr<net::ByteStream> stream, ServerState& state,
                                 Admission admission = Admission::Serve);
// One connection to /metrics.
net::awaitable<void> serve_metrics(std::unique_ptr<net::ByteStream> stream, ServerState& state);

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace anthro
