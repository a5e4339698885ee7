// Options that `session`, `bench` (and later `diagnose`) share: target, TLS trust, request.
#pragma once

#include "cli/args.h"
#include "diagnosis/live_workload.h"
#include "endpoint/endpoint.h"
#include "session/session.h"

namespace anthro::cli {

// TLS trust, API key, request headers, model and timeout: what every command that connects reads
// (read_session_options included). The options themselves are in the command table.
void read_trust_options(Args& args, SessionConfig& c);
// --header, --header-env and --anthropic-version (read_trust_options reads them).
void read_request_headers(Args& args, SessionConfig& c);
// --proxy, --proxy-password-env and --no-proxy (read_trust_options reads them): without them
// the environment's proxies (net::proxy_route).
void read_proxy_options(Args& args, SessionConfig& c);
// Without --api-key-env, the key of `target_url`'s API from the environment
// (default_api_key_variable), when it is set.
void read_default_api_key(Args& args, SessionConfig& c, const std::string& target_url);

// Fills `c` from `args`; bad values are recorded in `args` (see Args::ok()). `diagnose` takes
// a capture file as its positional argument; the other commands take none.
void read_session_options(Args& args, SessionConfig& c, bool positional_allowed = false);

// The load options `bench` and `diagnose` share (cli.md): --cancel-rate, --retry-naive,
// --hold-connections, --seed.
struct LoadOptions {
  double cancel_rate = 0;
  bool retry_naive = false;
  double hold_connections_s = 0;
  std::uint64_t seed = 1;
};
LoadOptions read_load_options(Args& args);

// `session` and `bench`: --keylog FILE, where the client writes its keys (else $SSLKEYLOGFILE).
// (`diagnose` reads key logs with --keylog instead, for its capture.)
void read_keylog_output(Args& args, SessionConfig& c);

// A run's warnings on stderr, one line each; true when there were any. A key log that could not
// be written is one: the run's figures stand, and the command exits 2 (an output not written).
bool print_warnings(const std::string& command, const std::vector<std::string>& warnings);

// The options the wire formats with their own client and emulation add (the command table has
// their help): diagnose's, for the format's live client (its terms and client faults; they
// need --target), and endpoint's, for its emulation (its cleartext port and its behaviour).
const std::vector<std::string>& own_client_option_names();
void read_own_client_options(Args& args, LiveWorkloadConfig& live);
void read_own_emulation_options(Args& args, EndpointConfig& config);
// endpoint's options for the formats riding on HTTP it serves.
void read_rider_options(Args& args, EndpointConfig& config);

}  // namespace anthro::cli
