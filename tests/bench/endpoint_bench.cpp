// endpoint_bench: many concurrent streaming connections on loopback, anthro-v1 (TLS) against
// the HTTP/SSE baseline (HTTPS) on the same endpoint in the same run.
//
// The endpoint runs in a child process, so its CPU time and the client's are counted apart
// (the client: this process less the sampler thread). Each point is split in two phases:
// set-up (TLS, X25519, the first token of every stream) and steady streaming, the window in
// which every connection is streaming — from the last stream's first token to the first
// stream's last. Tokens/s, the p99 ITL added over the configured ITL and CPU time per token
// are measured in that window only; ratios are anthro-v1 ÷ HTTP/SSE.
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "bench_args.h"
#include "endpoint/endpoint.h"
#include "metrics/stats.h"
#include "session/bench.h"

using namespace anthro;

namespace {

// The model's pace: 10 ms a token (100 tokens/s a stream) unless --itl-ms says otherwise.
double itl_ms = 10;

[[noreturn]] void die(const std::string& why) {
  std::cerr << "endpoint_bench: " << why << "\n";
  std::exit(1);
}

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

double cpu_s(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The local endpoint in a child process: its URLs come back through a pipe, and closing the
// other pipe stops it.
class EndpointProcess {
 public:
  EndpointProcess() {
    int urls[2], stop[2];
    if (pipe(urls) != 0 || pipe(stop) != 0) die("pipe failed");
    pid_ = fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      close(urls[0]);
      close(stop[1]);
      _exit(serve(urls[1], stop[0]));
    }
    close(urls[1]);
    close(stop[0]);
    stop_fd_ = stop[1];
    std::string line;
    char c;
    while (read(urls[0], &c, 1) == 1 && c != '\n') line += c;
    close(urls[0]);
    auto space = line.find(' ');
    if (space == std::string::npos) die("the endpoint did not start: " + line);
    anthro_url_ = line.substr(0, space);
    https_url_ = line.substr(space + 1);
    if (clock_getcpuclockid(pid_, &clock_) != 0) die("no CPU clock for the endpoint process");
  }

  ~EndpointProcess() {
    close(stop_fd_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  const std::string& anthro_url() const { return anthro_url_; }
  const std::string& https_url() const { return https_url_; }
  double cpu_s() const { return ::cpu_s(clock_); }

 private:
  // Replies as long as the request's max_tokens: each point asks for its own length.
  static int serve(int urls_fd, int stop_fd) {
    EndpointConfig config;
    config.tls_listen = "127.0.0.1:0";
    config.max_connections = 20000;
    config.model.ttft = {50, 0};
    config.model.itl = {itl_ms, 0};
    config.model.tokens = 1'000'000;
    auto endpoint = Endpoint::start(config);
    std::string line = endpoint ? (*endpoint)->url("anthro") + " " + (*endpoint)->url("https") + "/v1/messages\n"
                                : endpoint.error().detail + "\n";
    if (write(urls_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()) || !endpoint) return 1;
    char c;
    while (read(stop_fd, &c, 1) > 0) {
    }
    (*endpoint)->stop();
    return 0;
  }

  pid_t pid_ = -1;
  int stop_fd_ = -1;
  clockid_t clock_{};
  std::string anthro_url_, https_url_;
};

// CPU seconds of the client (this process, less the sampler) and of the endpoint, sampled
// every 2 ms on the steady clock of the requests' timelines.
class CpuSampler {
 public:
  struct Sample {
    double t, client, endpoint;
  };

  explicit CpuSampler(const EndpointProcess& endpoint) : endpoint_(endpoint), thread_([this] { run(); }) {}
  ~CpuSampler() { stop(); }

  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }

  // Linear between the samples around `t`.
  Sample at(double t) const {
    std::lock_guard lock(mutex_);
    auto after = std::lower_bound(samples_.begin(), samples_.end(), t, [](const Sample& s, double v) { return s.t < v; });
    if (after == samples_.begin()) return *after;
    if (after == samples_.end()) return samples_.back();
    const Sample& before = *(after - 1);
    double f = (t - before.t) / (after->t - before.t);
    return {t, before.client + f * (after->client - before.client), before.endpoint + f * (after->endpoint - before.endpoint)};
  }

 private:
  void run() {
    while (running_) {
      Sample s{steady_now_s(), cpu_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_s(CLOCK_THREAD_CPUTIME_ID), endpoint_.cpu_s()};
      {
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  const EndpointProcess& endpoint_;
  mutable std::mutex mutex_;
  std::vector<Sample> samples_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

struct Figures {
  double setup_s = 0, setup_cpu_ms_per_connection = 0;
  double window_s = 0, tokens_per_s = 0, added_p99_itl_ms = 0, p50_ttft_ms = 0;
  double client_cpu_us_per_token = 0, endpoint_cpu_us_per_token = 0;
  std::uint64_t errors = 0, window_tokens = 0;
  double cpu_us_per_token() const { return client_cpu_us_per_token + endpoint_cpu_us_per_token; }
};

// The steady window: every stream has had its first token and none has had its last.
std::optional<std::pair<double, double>> steady_window(const BenchResult& r) {
  double start = 0, end = 1e300;
  for (const auto& rec : r.records) {
    const auto& tokens = rec.result.timeline.tokens;
    if (tokens.empty()) return std::nullopt;
    start = std::max(start, tokens.front().t);
    end = std::min(end, tokens.back().t);
  }
  if (r.records.empty() || end <= start) return std::nullopt;
  return std::make_pair(start, end);
}

void count_window(const BenchResult& r, double start, double end, Figures& f) {
  std::vector<double> itl;
  for (const auto& rec : r.records) {
    const auto& tokens = rec.result.timeline.tokens;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].t < start || tokens[i].t > end) continue;
      f.window_tokens += tokens[i].count;
      if (i > 0 && tokens[i - 1].t >= start) itl.push_back((tokens[i].t - tokens[i - 1].t) * 1000);
    }
  }
  f.tokens_per_s = static_cast<double>(f.window_tokens) / (end - start);
  f.added_p99_itl_ms = summarize(itl).p99 - itl_ms;
}

Figures measure(const std::string& target, unsigned connections, unsigned tokens, const EndpointProcess& endpoint) {
  BenchConfig b;
  b.session.target = target;
  b.session.max_tokens = tokens;
  b.session.messages = {{"user", "benchmark prompt 👋"}};
  b.session.timeout_s = 900;  // 5,000 streams overload 2 cores: they run far slower than the model's pace
  b.concurrency = connections;
  b.requests = connections;  // every connection streams one reply, all at once
  CpuSampler cpu(endpoint);
  double started = steady_now_s();
  auto r = run_bench(b);
  cpu.stop();
  if (!r) die(r.error().detail);
  Figures f;
  for (const auto& [_, n] : r->errors) f.errors += n;
  f.p50_ttft_ms = r->ttft_ms.p50;
  auto window = steady_window(*r);
  if (!window) {
    std::string errors;
    for (const auto& [what, n] : r->errors) errors += " " + what + " ×" + std::to_string(n);
    die(target + " at " + std::to_string(connections) + " connections: no steady window (" +
        (errors.empty() ? "set-up outlasted the streams: give --tokens more" : "errors:" + errors) + ")");
  }
  auto [start, end] = *window;
  f.setup_s = start - started;
  auto s0 = cpu.at(started), s1 = cpu.at(start), s2 = cpu.at(end);
  f.setup_cpu_ms_per_connection = ((s1.client - s0.client) + (s1.endpoint - s0.endpoint)) * 1000 / connections;
  f.window_s = end - start;
  count_window(*r, start, end, f);
  f.client_cpu_us_per_token = (s2.client - s1.client) * 1e6 / static_cast<double>(f.window_tokens);
  f.endpoint_cpu_us_per_token = (s2.endpoint - s1.endpoint) * 1e6 / static_cast<double>(f.window_tokens);
  return f;
}

void put(nlohmann::json& figures, const std::string& key, const Figures& f) {
  figures[key + "-setup_s"] = f.setup_s;
  figures[key + "-setup_cpu_ms_per_connection"] = f.setup_cpu_ms_per_connection;
  figures[key + "-steady_window_s"] = f.window_s;
  figures[key + "-steady_tokens"] = f.window_tokens;
  figures[key + "-tokens_per_s"] = f.tokens_per_s;
  figures[key + "-added_p99_itl_ms"] = f.added_p99_itl_ms;
  figures[key + "-client_cpu_us_per_token"] = f.client_cpu_us_per_token;
  figures[key + "-endpoint_cpu_us_per_token"] = f.endpoint_cpu_us_per_token;
  figures[key + "-p50_ttft_ms"] = f.p50_ttft_ms;
  figures[key + "-errors"] = f.errors;
}

void print(const char* name, const Figures& f) {
  std::printf("  %-9s set-up %.2f s (%.2f ms CPU/connection) | steady %.2f s: %.0f tokens/s, +%.2f ms p99 ITL, "
              "CPU/token %.2f µs (client %.2f, endpoint %.2f), %llu errors\n",
              name, f.setup_s, f.setup_cpu_ms_per_connection, f.window_s, f.tokens_per_s, f.added_p99_itl_ms,
              f.cpu_us_per_token(), f.client_cpu_us_per_token, f.endpoint_cpu_us_per_token,
              static_cast<unsigned long long>(f.errors));
}

// A stream must outlast the set-up of every connection (2–4 ms of CPU each here), or no
// moment has them all streaming.
unsigned stream_tokens(unsigned connections, double option) {
  return option > 0 ? static_cast<unsigned>(option) : 300 + connections * 6 / 100;
}

// Each connection is a descriptor on both sides (two processes), plus the bench's own.
unsigned largest_point(double option) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  unsigned largest = option > 0 ? static_cast<unsigned>(option) : 5000;
  while (largest > 100 && limit.rlim_cur < largest + 256) largest /= 5;
  return largest;
}

}  // namespace

int main(int argc, char** argv) {
  double tokens = 0, max_connections = 0, pace = 0;
  auto [json_out, quick] = bench::parse_bench_args(
      argc, argv, "endpoint_bench",
      {{"--tokens", "tokens a stream (default 300 + 0.06 a connection, so streams outlast the set-up)", &tokens},
       {"--max-connections", "the largest of the points 100, 1,000, 5,000 (default 5000, when the fd limit allows)",
        &max_connections},
       {"--itl-ms", "the model's gap between tokens (default 10: 100 tokens/s a stream; 1,000 such streams ask 100 k "
                    "tokens/s, about what 2 cores can stream, so the ITL then measures queueing)",
        &pace}});
  if (pace > 0) itl_ms = pace;
  raise_fd_limit();
  char dir[] = "/tmp/anthro-endpoint-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("XDG_DATA_HOME", dir, 1);  // its own generated credentials, not the user's; the child's too

  EndpointProcess endpoint;
  std::vector<unsigned> points = quick ? std::vector<unsigned>{10} : std::vector<unsigned>{};
  unsigned largest = largest_point(max_connections);
  for (unsigned n : {100u, 1000u, 5000u})
    if (!quick && n <= largest) points.push_back(n);
  if (!quick && max_connections == 0 && largest < 5000)
    std::fprintf(stderr, "endpoint_bench: the descriptor limit leaves out 5,000 connections\n");

  nlohmann::json figures = nlohmann::json::object(), ratios = nlohmann::json::object();
  for (unsigned n : points) {
    unsigned length = quick ? 40 : stream_tokens(n, tokens);
    Figures a = measure(endpoint.anthro_url(), n, length, endpoint), h = measure(endpoint.https_url(), n, length, endpoint);
    std::string k = std::to_string(n);
    put(figures, "anthro-" + k, a);
    put(figures, "http-" + k, h);
    ratios["tokens_per_s-" + k] = a.tokens_per_s / h.tokens_per_s;
    ratios["cpu_per_token-" + k] = a.cpu_us_per_token() / h.cpu_us_per_token();
    ratios["client_cpu_per_token-" + k] = a.client_cpu_us_per_token / h.client_cpu_us_per_token;
    ratios["endpoint_cpu_per_token-" + k] = a.endpoint_cpu_us_per_token / h.endpoint_cpu_us_per_token;
    ratios["setup_cpu_per_connection-" + k] = a.setup_cpu_ms_per_connection / h.setup_cpu_ms_per_connection;
    // Guarded: an added ITL at or below zero would make the ratio meaningless.
    ratios["added_p99_itl-" + k] = std::max(a.added_p99_itl_ms, 1e-3) / std::max(h.added_p99_itl_ms, 1e-3);
    if (!json_out) {
      std::printf("%u connections, %u tokens a stream, one every %g ms:\n", n, length, itl_ms);
      print("anthro-v1", a);
      print("HTTP/SSE", h);
      std::printf("  anthro-v1 ÷ HTTP/SSE: CPU/token %.2f, tokens/s %.2f, set-up CPU/connection %.2f\n",
                  ratios["cpu_per_token-" + k].get<double>(), ratios["tokens_per_s-" + k].get<double>(),
                  ratios["setup_cpu_per_connection-" + k].get<double>());
      std::fflush(stdout);
    }
  }
  figures["itl_ms"] = itl_ms;
  if (json_out) std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
  return 0;
}
