// What every connection of one endpoint shares. Lives on the endpoint's loop thread.
#pragma once

#include <atomic>
#include <chrono>
#include <iostream>
#include <set>

#include "crypto/key_schedule.h"
#include "endpoint/endpoint.h"
#include "endpoint/prometheus.h"
#include "net/byte_stream.h"

namespace anthro {

struct AtomicCounters {
  std::atomic<std::uint64_t> connections{0}, open_connections{0}, requests{0}, cancels{0}, frames_dropped{0},
      protocol_errors{0}, handshake_failures{0}, http_requests{0}, refused_connections{0};
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

// A live anthro-v1 connection the endpoint can ask to end with a connection-level ERROR.
class Drainable {
 public:
  virtual void drain(std::uint16_t code, std::uint32_t retry_after_ms, const std::string& why) = 0;

 protected:
  ~Drainable() = default;
};

struct ServerState {
  ServerState(const EndpointConfig& c, const Key32& server_private)
      : config(c), model(c.model), http_model(baseline_config(c.model)), server_private(server_private),
        server_public(x25519_public_from_private(server_private)) {}

  EndpointConfig config;
  SimulatedModel model;
  SimulatedModel http_model;  // the path anthro-v1 replaces has none of anthro-v1's own bugs
  Key32 server_private;
  Key32 server_public;
  AtomicCounters counters;
  EndpointMetrics metrics;
  std::uint64_t request_number = 0;  // loop thread only
  std::set<Drainable*> live;          // loop thread only

  void log(const std::string& line) const {
    if (config.on_log) config.on_log(line);
    else std::cerr << "anthro-wb endpoint: " << line << "\n";
  }
};

// The answer to a client's offer (spec §2), or the reason the offer is refused.
Result<Bytes> answer_offer(const ServerState& state, ByteView offer);

// One anthro-v1 connection. `extension` holds the offer and answer when the TLS extension
// carried them; otherwise the in-band preface is expected.
net::awaitable<void> serve_anthro(std::unique_ptr<net::ByteStream> stream, ServerState& state,
                                  std::unique_ptr<ExtensionState> extension);
// One HTTP/1.1 connection of the baseline (Messages API and chat completions).
net::awaitable<void> serve_http(std::unique_ptr<net::ByteStream> stream, ServerState& state);
// One connection to /metrics.
net::awaitable<void> serve_metrics(std::unique_ptr<net::ByteStream> stream, ServerState& state);

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace anthro
