// soak_bench: the endpoint and its clients in this one process, so /proc/self counts both
// sides, under N concurrent connections for a bounded time: well-formed streams (anthro-v1 and
// HTTP/SSE over TLS, cancels among them) mixed with RSTs mid-stream, slowloris heads,
// oversized frames, garbage preambles and idle connections (soak_peers.cpp). The endpoint's
// cap sits 5 % below N, so refusals happen too. Every outcome is tallied; the run fails when a
// well-formed request is lost, a misbehaving peer is not closed, or the process's descriptors
// and threads are not back where they started. Resources are sampled after a warm-up with the
// same mix (allocator and thread-pool growth are not leaks), at their peak during the soak,
// and once everything has closed after it (RSS at start and end after malloc_trim); `ratios`
// are end ÷ start and peak ÷ start.
#include <dirent.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench_args.h"
#include "endpoint/endpoint.h"
#include "soak_peers.h"

using namespace anthro;

namespace {

struct Resources {
  double fds = 0, threads = 0, rss_mb = 0;
};

double entries(const char* dir) {
  double n = 0;
  if (DIR* d = opendir(dir)) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

double rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

Resources sample() { return {entries("/proc/self/fd") - 1, entries("/proc/self/task"), rss_mb()}; }  // less opendir's own fd

// Start and end are sampled after malloc_trim: memory glibc keeps cached for reuse is not
// memory the process holds on to.
Resources settled() {
  malloc_trim(0);
  return sample();
}

Resources max_of(const Resources& a, const Resources& b) {
  return {std::max(a.fds, b.fds), std::max(a.threads, b.threads), std::max(a.rss_mb, b.rss_mb)};
}

// How late the client loop's 50 ms timer fires, at most: a starved machine shows here first,
// and every timeout then closes connections later (and idle ones sooner) than configured.
struct LagProbe {
  std::atomic<double> max_ms{0};
  std::atomic<bool> stop{false};
};

net::awaitable<void> probe_lag(LagProbe& probe) {
  net::asio::steady_timer timer(co_await net::asio::this_coro::executor);
  while (!probe.stop) {
    auto t0 = std::chrono::steady_clock::now();
    co_await net::sleep_for(timer, 0.05);
    double late_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() - 50;
    if (late_ms > probe.max_ms) probe.max_ms = late_ms;
  }
}

double load_1m() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

// Runs the mix for `seconds`, sampling resources; then stops the workers and waits until every
// connection is closed on both sides (the misbehaving ones by the endpoint's timeouts).
Resources run_mix(soak::SoakClients& clients, Endpoint& endpoint, unsigned connections, double seconds) {
  Resources peak = sample();
  clients.start(connections);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    peak = max_of(peak, sample());
  }
  clients.stop();
  while (clients.running() > 0 || endpoint.counters().open_connections > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    peak = max_of(peak, sample());
  }
  // Refused connections close after their peers do: let the last of them go.
  for (double fds = -1; fds != sample().fds;) {
    fds = sample().fds;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return peak;
}

nlohmann::json resources_json(const Resources& r) {
  return {{"fds", r.fds}, {"threads", r.threads}, {"rss_mb", r.rss_mb}};
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 150, connections = 1000;
  auto args = bench::parse_bench_args(argc, argv, "soak_bench",
                                      {{"--seconds", "soak time after the warm-up (150)", &seconds},
                                       {"--connections", "concurrent connections (1000)", &connections}});
  if (args.quick) seconds = 4, connections = 100;
  unsigned n = static_cast<unsigned>(connections);
  raise_fd_limit();
  char dir[] = "/tmp/anthro-soak-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("XDG_DATA_HOME", dir, 1);  // its own generated credentials, not the user's

  // Timeouts short enough that each misbehaving peer is closed many times over in a run.
  double timeout = std::clamp(seconds / 30, 1.0, 5.0);
  EndpointConfig config;
  config.tls_listen = config.lab_listen = config.http_listen = "127.0.0.1:0";
  config.max_connections = n - n / 20;
  config.handshake_timeout_s = config.idle_timeout_s = config.header_timeout_s = timeout;
  config.body_timeout_s = 2 * timeout;
  // Streams of ~1 s: the soak is about connections coming and going, not token throughput.
  config.model.ttft = {100, 20};
  config.model.itl = {50, 10};
  config.model.tokens = 20;
  auto endpoint = Endpoint::start(config);
  if (!endpoint) {
    std::cerr << "soak_bench: " << endpoint.error().detail << "\n";
    return 1;
  }
  auto port = [&](const char* scheme) {
    std::string url = (*endpoint)->url(scheme);
    return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  };
  soak::SoakTargets targets{port("anthro"), port("anthro+lab"), port("http"), timeout, timeout, timeout,
                            std::max(10.0, 2 * timeout)};

  net::asio::io_context io;
  auto work = net::asio::make_work_guard(io);
  std::thread loop([&io] { io.run(); });
  soak::SoakClients clients(io, targets);
  LagProbe lag;
  net::asio::co_spawn(io, probe_lag(lag), net::asio::detached);

  double warmup = std::max(2.0, seconds / 10);
  run_mix(clients, **endpoint, n, warmup);
  auto warm_tallies = clients.tallies();
  EndpointCounters warm = (*endpoint)->counters();
  Resources start = settled();
  double load_start = load_1m();
  lag.max_ms = 0;
  Resources peak = run_mix(clients, **endpoint, n, seconds);
  double rss_untrimmed_mb = sample().rss_mb;
  Resources end = settled();
  EndpointCounters after = (*endpoint)->counters();
  double load_end = load_1m();
  lag.stop = true;

  work.reset();
  io.stop();
  loop.join();
  (*endpoint)->stop();

  // The soak's own tallies: everything since the warm-up.
  auto tallies = clients.tallies();
  for (const auto& [k, v] : warm_tallies)
    if ((tallies[k] -= v) == 0) tallies.erase(k);
  std::uint64_t failures = 0, well_formed = 0;
  for (const auto& [k, v] : tallies) {
    if (soak::is_failure(k)) failures += v;
    if (k.rfind("anthro_", 0) == 0 || k.rfind("http_sse", 0) == 0) well_formed += v;
  }
  bool leaked = end.fds != start.fds || end.threads != start.threads;

  nlohmann::json figures = {
      {"seconds", seconds}, {"connections", n}, {"max_connections", config.max_connections},
      {"timeout_s", timeout}, {"warmup_s", warmup}, {"loadavg_1m_start", load_start}, {"loadavg_1m_end", load_end},
      {"client_loop_max_lag_ms", lag.max_ms.load()}, {"end_rss_mb_before_trim", rss_untrimmed_mb}, {"well_formed_requests", well_formed},
      {"failures", failures}, {"outcomes", tallies}, {"longest_close_s", clients.longest_close_s()},
      {"start", resources_json(start)}, {"peak", resources_json(peak)}, {"end", resources_json(end)},
      {"endpoint", {{"connections", after.connections - warm.connections},
                    {"refused_connections", after.refused_connections - warm.refused_connections},
                    {"timeouts", after.timeouts - warm.timeouts},
                    {"requests", after.requests - warm.requests},
                    {"http_requests", after.http_requests - warm.http_requests},
                    {"cancels", after.cancels - warm.cancels},
                    {"protocol_errors", after.protocol_errors - warm.protocol_errors},
                    {"handshake_failures", after.handshake_failures - warm.handshake_failures}}}};
  nlohmann::json ratios = {{"fds_end_vs_start", end.fds / start.fds},
                           {"threads_end_vs_start", end.threads / start.threads},
                           {"rss_end_vs_start", end.rss_mb / start.rss_mb},
                           {"fds_peak_vs_start", peak.fds / start.fds},
                           {"rss_peak_vs_start", peak.rss_mb / start.rss_mb}};
  if (args.json) {
    std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
  } else {
    std::printf("%u connections (cap %zu), %.0f s after a %.0f s warm-up, timeouts %.1f s\n", n,
                config.max_connections, seconds, warmup, timeout);
    for (const auto& [k, v] : tallies) std::printf("  %-40s %10llu%s\n", k.c_str(), static_cast<unsigned long long>(v),
                                                   soak::is_failure(k) && v ? "  FAILURE" : "");
    for (const auto& [k, v] : clients.longest_close_s()) std::printf("  longest close, %-24s %7.2f s\n", k.c_str(), v);
    std::printf("endpoint: %s\n", figures["endpoint"].dump().c_str());
    std::printf("load average %.1f -> %.1f; the client loop ran up to %.0f ms late\n", load_start, load_end,
                lag.max_ms.load());
    std::printf("            start     peak      end\n");
    std::printf("fds      %8.0f %8.0f %8.0f\n", start.fds, peak.fds, end.fds);
    std::printf("threads  %8.0f %8.0f %8.0f\n", start.threads, peak.threads, end.threads);
    std::printf("RSS MB   %8.1f %8.1f %8.1f  (start and end after malloc_trim; end before it %.1f)\n", start.rss_mb,
                peak.rss_mb, end.rss_mb, rss_untrimmed_mb);
  }
  if (failures || leaked) {
    std::cerr << "soak_bench: " << failures << " failures" << (leaked ? "; descriptors or threads not back" : "") << "\n";
    return 1;
  }
  return 0;
}
