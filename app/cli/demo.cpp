// `anthro-wb demo`: the headless main job. The embedded endpoint, a live anthro-v1 session
// over TLS with its key log, that session's bytes decoded back by a passive observer holding
// only the key log, and anthro-v1 against the HTTP baseline under the same load.
#include <cstdio>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "crypto/keylog.h"
#include "endpoint/endpoint.h"
#include "protocol/describe.h"
#include "session/bench.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

std::string ms(const std::optional<double>& v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", v.value_or(0));
  return v ? buf : "n/a";
}

int decode_own_bytes(const std::string& c2s, const std::string& s2c, const std::string& keylog_path) {
  auto keylog = read_file(keylog_path);
  if (!keylog) return std::cerr << keylog.error().detail << "\n", 1;
  KeyRing ring;
  ring.add(parse_keylog(*keylog, keylog_path));
  int frames = 0, refused = 0;
  DirectionDecoder::KeyLookup lookup = [&](std::uint64_t token) {
    return ring.candidates(token, Direction::ServerToClient, nullptr, nullptr);
  };
  auto print = [&](const FrameEvent& e) {
    ++frames;
    refused += e.refusal.has_value() || e.no_key;
    if (frames <= 3 || e.header.frame_type() != FrameType::StreamToken)
      std::cout << "  " << to_string(e.dir) << " @" << e.offset << " " << to_string(e.header.frame_type()) << " "
                << (e.body ? describe_body(*e.body) : "") << " [" << describe_status(e) << "]\n";
    else if (frames == 4)
      std::cout << "  ...\n";
  };
  DirectionDecoder up(Direction::ClientToServer, PrefaceMode::None, DecoderEvents{nullptr, print, nullptr},
                      [&](std::uint64_t token) { return ring.candidates(token, Direction::ClientToServer, nullptr, nullptr); });
  DirectionDecoder down(Direction::ServerToClient, PrefaceMode::None, DecoderEvents{nullptr, print, nullptr}, lookup);
  up.feed(as_bytes(c2s));
  down.feed(as_bytes(s2c));
  std::cout << "  " << frames << " frames, " << refused << " not opened\n";
  return refused == 0 && frames > 0 ? 0 : 1;
}

void compare_paths(const Endpoint& endpoint) {
  std::printf("\n4. anthro-v1 against the HTTP baseline, 40 requests each at concurrency 4:\n");
  std::printf("  %-40s %10s %10s %10s %10s\n", "target", "TTFT p50", "TTFT p99", "ITL p99", "tokens/s");
  for (const std::string& target : {endpoint.url("anthro"), endpoint.url("https") + "/v1/messages"}) {
    BenchConfig b;
    b.session.target = target;
    b.session.messages = {{"user", "Compare the transports 👋"}};
    b.concurrency = 4;
    b.requests = 40;
    auto r = run_bench(b);
    if (!r) continue;
    std::printf("  %-40s %7.1f ms %7.1f ms %7.1f ms %10.0f\n", target.c_str(), r->ttft_ms.p50, r->ttft_ms.p99,
                r->itl_ms.p99, r->tokens_per_s);
  }
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
  if (!args.empty()) return usage_error("demo", "takes no arguments (got \"" + args[0] + "\")");
  EndpointConfig config;
  config.tls_listen = "127.0.0.1:0";
  config.lab_listen = "127.0.0.1:0";
  config.model.ttft = {120, 20};
  config.model.itl = {15, 3};
  config.model.tokens = 40;
  auto endpoint = Endpoint::start(config);
  if (!endpoint) return std::cerr << "anthro-wb demo: " << endpoint.error().detail << "\n", 3;
  std::cout << "1. The embedded endpoint (certificate " << (*endpoint)->cert_path() << "):\n";
  for (const auto& l : (*endpoint)->listeners()) std::cout << "  listening " << l.url() << "\n";

  auto dir = data_dir();
  if (!dir) return std::cerr << dir.error().detail << "\n", 2;
  std::string keylog = *dir + "/demo-session.keylog";
  std::remove(keylog.c_str());
  SessionConfig s;
  s.target = (*endpoint)->url("anthro");
  s.messages = {{"user", "How does anthro-v1 cut tail latency? 👋"}};
  s.keylog_path = keylog;
  std::string c2s, s2c;
  s.on_bytes = [&](bool up, std::string_view b) { (up ? c2s : s2c) += b; };
  s.on_text = [](std::string_view t) { std::cout << t << std::flush; };
  std::cout << "\n2. A live session over TLS (ALPN anthro-v1, negotiation in the TLS extension):\n  ";
  auto result = run_session(s);
  if (!result || result->error || result->requests.empty()) {
    std::cerr << "\nanthro-wb demo: session failed: " << (result ? result->error.value_or("no request") : result.error().detail) << "\n";
    return 3;
  }
  const RequestResult& r = result->requests[0];
  std::cout << "\n  " << result->tls_suite << ", " << result->suite << "; connect " << ms(result->connect_ms)
            << ", handshake " << ms(result->handshake_ms) << "\n  TTFT " << ms(r.figures.ttft_ms) << ", E2E "
            << ms(r.figures.e2e_ms) << ", " << r.figures.tokens << " tokens, mean ITL " << ms(r.figures.mean_itl_ms)
            << ", p99 ITL " << ms(r.figures.p99_itl_ms) << "\n  key log (NSS and ANTHRO_V1 lines, mode 0600): " << keylog << "\n";

  std::cout << "\n3. The session's own bytes, decoded by an observer holding only the key log:\n";
  int decoded = decode_own_bytes(c2s, s2c, keylog);
  compare_paths(**endpoint);
  (*endpoint)->stop();
  return decoded;
}

}  // namespace anthro::cli
