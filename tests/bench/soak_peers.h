// The peers of soak_bench: well-formed clients (the session client, anthro-v1 over TLS and
// HTTP/SSE over TLS) and misbehaving ones on raw sockets (RST mid-stream, slowloris,
// oversized frames, garbage preambles, idle connections). Each run of a case ends in one
// outcome, tallied by name; the bench prints every tally and fails on the bad ones.
#pragma once

#include <atomic>
#include <map>
#include <string>

#include "net/asio.h"
#include "session/client.h"

namespace anthro::soak {

enum class Case {
  AnthroStream,  // anthro-v1 over TLS, streaming
  AnthroCancel,  // the same, with a CANCEL after 3 tokens
  HttpStream,    // the Messages API over TLS (ALPN http/1.1), SSE
  RstAnthro,     // anthro-v1 on the lab port, RST once tokens flow
  RstHttp,       // SSE on the cleartext HTTP port, RST once tokens flow
  Slowloris,     // an HTTP head trickled a byte at a time
  Oversized,     // anthro-v1 frame header with a length beyond the maximum
  Garbage,       // random bytes first, on the lab, TLS or HTTP port in turn
  Idle,          // silent: TCP to the TLS port, or negotiated on the lab port and then nothing
};
const char* to_string(Case c);
// Whether an outcome of this name is a failure of the endpoint.
bool is_failure(const std::string& outcome);

struct SoakTargets {
  std::uint16_t tls_port = 0, lab_port = 0, http_port = 0;
  double handshake_timeout_s = 0, idle_timeout_s = 0, header_timeout_s = 0;
  double slack_s = 0;  // beyond its timeout, how long a misbehaving peer waits to be closed
};

// The client side of the soak: workers on one event loop, each repeating one case until
// stop() is called, tallying outcomes.
class SoakClients {
 public:
  SoakClients(net::asio::io_context& io, const SoakTargets& targets);
  // Starts `n` workers, their cases in the fixed mix of soak_peers.cpp.
  void start(unsigned n);
  void stop() { stopping_ = true; }
  unsigned running() const { return running_; }
  // Tallies so far ("anthro_stream.answered", ...); call from the loop's thread or when stopped.
  std::map<std::string, std::uint64_t> tallies() const;
  std::map<std::string, double> longest_close_s() const;  // by case: the slowest close by the server seen

 private:
  net::awaitable<void> worker(Case c, unsigned index);
  net::awaitable<void> run_case(Case c, unsigned turn);
  net::awaitable<void> session_case(Case c);
  net::awaitable<void> rst_anthro();
  net::awaitable<void> rst_http();
  net::awaitable<void> slowloris();
  net::awaitable<void> oversized();
  net::awaitable<void> garbage(unsigned turn);
  net::awaitable<void> idle(unsigned turn);
  void tally(Case c, const std::string& outcome);
  void closed_after(Case c, double seconds, double timeout_s);

  net::asio::io_context& io_;
  SoakTargets targets_;
  SessionConfig anthro_, http_;
  ClientSetup anthro_setup_, http_setup_;
  std::atomic<bool> stopping_{false};
  std::atomic<unsigned> running_{0};
  mutable std::mutex mutex_;  // tallies are read from the bench's thread
  std::map<std::string, std::uint64_t> tallies_;
  std::map<std::string, double> longest_close_;
};

}  // namespace anthro::soak
