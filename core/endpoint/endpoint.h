// The local anthro-v1 endpoint: a faithful peer with a simulated model that misbehaves on
// demand (the fault catalogue), plus the HTTP baseline on the same model. It runs its own
// event loop on one thread; callers only start, query and stop it.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/replay_model.h"
#include "model/simulated_model.h"
#include "profile/profile.h"
#include "util/result.h"

namespace anthro {

struct EndpointConfig {
  // HOST:PORT for each socket; empty leaves it off. Port 0 picks a free port.
  std::string tls_listen;      // anthro-v1 over TLS, and the HTTP baseline by ALPN http/1.1
  std::string lab_listen;      // anthro-v1 in cleartext
  std::string http_listen;     // the HTTP baseline in cleartext
  std::string metrics_listen;  // Prometheus text at /metrics
  // A format's own emulation in cleartext (its lab scheme's port); over TLS by its ALPN id.
  std::map<ProfileId, std::string> own_listen;
  std::string cert_path, key_path, server_key_path;  // empty: generated in the data directory
  ModelConfig model;
  // Recorded streams to answer with instead of the model (--replay); null: the model answers.
  std::shared_ptr<const std::vector<RecordedStream>> replay;
  std::string required_api_key;  // the value itself (read from the environment by the CLI)
  // Beyond it a connection is told why (anthro-v1 ERROR 503 after negotiating, HTTP 503 to
  // its request) and closed; beyond a further eighth of it, closed at once.
  std::size_t max_connections = 1024;
  // Timeouts in seconds, 0 for none; a connection that outlasts one is closed and counted.
  double handshake_timeout_s = 10;  // TLS handshake, then the anthro-v1 preface (the lab port's too)
  double idle_timeout_s = 60;       // anthro-v1: nothing read, no stream in flight; HTTP: between requests
  double header_timeout_s = 10;     // HTTP: request line and headers (slowloris), from the request's start
  double body_timeout_s = 30;       // HTTP: the body; each piece buys time at 1 KiB/s, up to this ahead
  double send_timeout_s = 30;       // a write the peer does not take within it: the peer stopped reading
  std::uint16_t max_streams = 16;          // the most the endpoint grants
  std::uint32_t default_max_tokens = 1024;  // granted when the offer asks for more
  std::size_t max_queued_bytes = 1 << 20;  // per connection: beyond it, generation waits
  std::size_t max_prompt_bytes = 1 << 20;  // a longer prompt is 413, too large for this server
  // The formats riding on the HTTP API (endpoint/http_rider.h) it serves, each with its
  // options (an empty std::any: its defaults); off unless named.
  std::map<ProfileId, std::any> riders;
  // A format's own emulation's options (its command-line options), set and read by its folder.
  std::map<ProfileId, std::any> own_options;
  // Internal failures (a connection's coroutine that threw), one line each; unset: stderr.
  std::function<void(const std::string&)> on_log;
};

// The workbench's embedded endpoint offers every format's own emulation on a free loopback
// port, and every format riding on HTTP that wants to be served there, each as it wants to be
// (Emulation::embedded, HttpRoute::embedded).
void offer_embedded_formats(EndpointConfig& config);
// The profile whose emulation serves `p`'s connections (`p`, or its carrier), or nullptr when
// the endpoint does not speak it.
const Profile* served_by(const Profile& p);
// The formats served on a cleartext port of their own (EndpointConfig::own_listen), in registry order.
std::vector<const Profile*> own_port_formats();
// One format so offered (a rehearsal of its rollout plan).
void offer_embedded_format(EndpointConfig& config, ProfileId id);

struct Listener {
  std::string scheme;  // anthro, https, lz, anthro+lab, http, lz+lab, metrics
  std::string host;
  std::uint16_t port = 0;
  std::string url() const;
};

struct EndpointCounters {
  std::uint64_t connections = 0, open_connections = 0, requests = 0, cancels = 0, frames_dropped = 0,
                protocol_errors = 0, handshake_failures = 0, http_requests = 0, refused_connections = 0,
                timeouts = 0;
  std::uint64_t client_error_reports = 0;  // POST /v1/client-errors: a front end's report of a reply it misread
};

class Endpoint {
 public:
  static Result<std::unique_ptr<Endpoint>> start(const EndpointConfig& config);
  ~Endpoint();
  const std::vector<Listener>& listeners() const;
  // The URL of the first listener with this scheme, or empty.
  std::string url(std::string_view scheme) const;
  std::string cert_path() const;
  std::string server_key_path() const;
  EndpointCounters counters() const;
  std::string metrics_text() const;  // Prometheus text exposition
  void stop();

  struct Impl;

 private:
  explicit Endpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace anthro
