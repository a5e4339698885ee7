// endpoint_bench: many concurrent streaming connections on loopback, anthro-v1 (TLS) against
// the HTTP/SSE baseline (HTTPS) on the same endpoint in the same run. Reports achieved
// tokens/s and the p99 inter-token latency added over the configured ITL; ratios are
// anthro-v1 ÷ HTTP.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench_args.h"
#include "endpoint/endpoint.h"
#include "session/bench.h"

using namespace anthro;

namespace {

constexpr double kItlMs = 10;

struct Figures {
  double tokens_per_s = 0, added_p99_itl_ms = 0, p50_ttft_ms = 0;
  std::uint64_t errors = 0;
};

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

Figures measure(const std::string& target, unsigned connections) {
  BenchConfig b;
  b.session.target = target;
  b.session.messages = {{"user", "benchmark prompt 👋"}};
  b.session.timeout_s = 120;
  b.concurrency = connections;
  b.requests = connections;  // every connection streams one reply, all at once
  auto r = run_bench(b);
  if (!r) {
    std::cerr << "endpoint_bench: " << r.error().detail << "\n";
    std::exit(1);
  }
  Figures f;
  f.tokens_per_s = r->tokens_per_s;
  f.added_p99_itl_ms = r->itl_ms.p99 - kItlMs;
  f.p50_ttft_ms = r->ttft_ms.p50;
  for (const auto& [_, n] : r->errors) f.errors += n;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  auto [json_out, quick] = bench::parse_bench_args(argc, argv, "endpoint_bench");
  raise_fd_limit();
  char dir[] = "/tmp/anthro-endpoint-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("XDG_DATA_HOME", dir, 1);  // its own generated credentials, not the user's

  EndpointConfig config;
  config.tls_listen = "127.0.0.1:0";
  config.max_connections = 10000;
  config.model.ttft = {50, 0};
  config.model.itl = {kItlMs, 0};
  config.model.tokens = quick ? 20 : 100;
  auto endpoint = Endpoint::start(config);
  if (!endpoint) {
    std::cerr << "endpoint_bench: " << endpoint.error().detail << "\n";
    return 1;
  }
  std::string anthro = (*endpoint)->url("anthro"), https = (*endpoint)->url("https") + "/v1/messages";

  nlohmann::json figures = nlohmann::json::object(), ratios = nlohmann::json::object();
  for (unsigned n : quick ? std::vector<unsigned>{10} : std::vector<unsigned>{100, 1000}) {
    Figures a = measure(anthro, n), h = measure(https, n);
    std::string k = std::to_string(n);
    figures["anthro-" + k + "-tokens_per_s"] = a.tokens_per_s;
    figures["http-" + k + "-tokens_per_s"] = h.tokens_per_s;
    figures["anthro-" + k + "-added_p99_itl_ms"] = a.added_p99_itl_ms;
    figures["http-" + k + "-added_p99_itl_ms"] = h.added_p99_itl_ms;
    figures["anthro-" + k + "-p50_ttft_ms"] = a.p50_ttft_ms;
    figures["http-" + k + "-p50_ttft_ms"] = h.p50_ttft_ms;
    figures["anthro-" + k + "-errors"] = a.errors;
    figures["http-" + k + "-errors"] = h.errors;
    ratios["tokens_per_s-" + k] = a.tokens_per_s / h.tokens_per_s;
    // Guarded: an added ITL at or below zero would make the ratio meaningless.
    ratios["added_p99_itl-" + k] = a.added_p99_itl_ms / std::max(h.added_p99_itl_ms, 1e-3);
    if (!json_out)
      std::printf("%5u connections: anthro-v1 %.0f tokens/s, +%.2f ms p99 ITL | HTTP/SSE %.0f tokens/s, +%.2f ms p99 ITL\n",
                  n, a.tokens_per_s, a.added_p99_itl_ms, h.tokens_per_s, h.added_p99_itl_ms);
  }
  (*endpoint)->stop();
  if (json_out) std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
  return 0;
}
