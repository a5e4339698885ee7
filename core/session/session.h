// Live sessions (cli.md `session`): one connection, one or more requests, every timing
// event of spec §6 stamped with a monotonic clock when its bytes are read from the socket.
#pragma once

#include <any>
#include <atomic>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/request_result.h"
#include "net/proxy.h"
#include "protocol/body.h"
#include "session/target.h"
#include "session/workload.h"

namespace anthro {

struct SessionConfig {
  std::string target;
  std::string ca_file;
  bool insecure = false;
  std::string api_key;      // the value; the CLI reads it from --api-key-env
  std::vector<RequestHeader> headers;  // an HTTP target's requests carry them (RequestHeader)
  net::ProxySetting proxy;  // the environment's unless set (net/proxy.h)
  std::string keylog_path;  // NSS + ANTHRO_V1 lines; the CLI passes SSLKEYLOGFILE
  std::string model = "claude-3-haiku-20240307";
  std::vector<ChatMessage> messages;
  std::optional<std::string> system;
  std::optional<std::uint32_t> max_tokens;
  bool stream = true;
  std::optional<std::string> metadata_json;
  unsigned repeat = 1;  // requests on the same connection, one after another
  std::optional<std::uint32_t> cancel_after_tokens;
  bool close_without_cancel = false;  // stop reading and close after the cancel point, sending nothing
  double read_delay_ms = 0;           // a slow reader
  std::optional<std::uint16_t> ring_kib;
  double timeout_s = 60;  // per request, from REQUEST written
  bool tls_extension = true;  // offer the negotiation in the TLS extension (else only the preface)
  // The formats riding on a Messages API target's requests (session/http_rider.h) this session
  // speaks, each with its client options (an empty std::any: its defaults). A connection
  // carries one: the first, by profile id, whose live part is registered.
  std::map<ProfileId, std::any> riders;
  // An https:// target is offered ALPN h2 first: HTTP/2 when the server selects it (each
  // request a stream), HTTP/1.1 otherwise. SessionResult::alpn says which.
  bool http2 = false;
  std::function<void(std::string_view)> on_text;  // token text as it arrives
  // Every application byte sent and received (inside TLS), for live frame views and tests.
  std::function<void(bool client_to_server, std::string_view bytes)> on_bytes;
};

// What may differ between the requests of one connection (the bench varies them).
struct RequestOptions {
  std::optional<std::uint32_t> cancel_after_tokens;
  std::optional<std::string> metadata_json;
  std::optional<std::uint32_t> max_tokens;           // else the session's
  std::optional<std::vector<ChatMessage>> messages;  // else the session's
  bool close_without_cancel = false;                 // at the cancel point (or the session's option)
};

// When a run started, by the wall clock (seconds since 1970), and the same instant on
// steady_now_s's clock, which stamps its requests' sent_s (monotonic: its epoch is the
// machine's). `merge` lines up runs of several machines with it.
struct RunStart {
  double unix_s = 0, clock_s = 0;
  static RunStart now();
  // What to add to a reading of `part`'s clock to put it on this run's clock: the two starts
  // lined up by the wall clock.
  double shift_of(const RunStart& part) const { return clock_s + (part.unix_s - unix_s) - part.clock_s; }
};

// `merge`: one of the sessions merged, with its own connection's figures.
struct SessionWorker {
  std::string file;
  std::uint64_t requests = 0;
  std::optional<double> start_unix_s;
  std::string transport, alpn, suite, tls_suite;
  std::optional<double> connect_ms, handshake_ms;
  std::optional<std::string> error;
};

struct SessionResult {
  static constexpr int kSchemaVersion = 1;  // of session_json's document
  std::string target, transport, alpn, suite, tls_suite;
  // The target's, whose client ran it; its name is JSON "protocol" (an HTTP/2 run keeps "http").
  ProfileId profile = ProfileId::AnthroV1;
  std::optional<double> connect_ms, handshake_ms;
  // The proxy the connection went through (net::ProxyServer::url) and its CONNECT's round
  // trip, apart from connect_ms (to the proxy) and handshake_ms (with the target, in the tunnel).
  std::string proxy;
  std::optional<double> proxy_connect_ms;
  bool extension_used = false;  // negotiation in the TLS extension rather than the preface
  std::vector<RequestResult> requests;
  std::optional<std::string> error;  // a failure before or between requests
  std::vector<std::string> warnings;  // what did not stop the session: a key log not written
  Workload workload;
  // None when read from a session written before it was kept, or merged from one.
  std::optional<RunStart> start;
  // merge: the sessions it was merged from; the connection's figures above are the first's.
  std::vector<SessionWorker> workers;
};

// What a wire format's own live client tells as it runs (a live session's page, a checklist's
// workload).
struct SessionHooks {
  // The request so far after each token (its last the one just read), on the client's thread;
  // config.on_text has seen the text.
  std::function<void(const RequestResult&)> on_output;
  std::function<void(const RequestResult&)> on_request;  // each prompt's request as it ends
  const std::atomic<bool>* stop = nullptr;  // set: the prompt under way ends, no other starts
};

// A wire format's own live client: a whole session against `target` (Target::own_client), failures
// in the result. Registered from the format's folder; null for a profile that has none.
using SessionRunner = SessionResult (*)(const SessionConfig& config, const Target& target, const SessionHooks& hooks);
void register_session_runner(ProfileId id, SessionRunner run);
SessionRunner session_runner(ProfileId id);

// Runs a whole session on its own event loop. An error result means the session could not
// start (bad target, unreadable CA file); network failures are in SessionResult::error.
Result<SessionResult> run_session(const SessionConfig& config);

// Whether a live target can be reached at all, whatever its scheme: its host resolves, a TCP
// connection opens and, for a TLS target, the handshake completes (offering no ALPN, so any
// protocol the server speaks will do; nothing is sent after it). It tells an unreachable target
// from a server's behaviour before anything is measured. Errors: network (reason "unreachable",
// the address and the OS's reason), a bad target or CA file (as run_session's), `stop` set
// while waiting (cancelled).
Result<bool> reach_target(const SessionConfig& config, const std::atomic<bool>* stop = nullptr);

// The JSON document of cli.md `session --format json`, with kind "session" and schema_version
// (resources/schemas/session.schema.json).
std::string session_json(const SessionResult& result);
// Read back (`merge`); errors (ErrorClass::Input) name `origin` and the member.
Result<SessionResult> session_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace anthro
