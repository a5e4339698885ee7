// endpoint_bench: many concurrent streaming connections on loopback, anthro-v1 (TLS) against
// the HTTP/SSE baseline (HTTPS) on the same endpoint in the same run.
//
// The endpoint runs in a child process, so its CPU time and the client's are counted apart
// (the client: this process less the sampler thread). Each point is split in two phases:
// set-up (TLS, X25519, the first token of every stream) and steady streaming, the window in
// which every connection is streaming — from the last stream's first token to the first
// stream's last. Tokens/s, the p99 ITL added over the configured ITL and CPU time per token
// are measured in that window only; ratios are anthro-v1 ÷ HTTP/SSE.
//
// --counted adds exact figures, immune to the machine's load: user-space instructions a token
// and a connection, from small runs of this program under callgrind (see counted_figures).
#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

// Set in a counted run (under callgrind): both processes count instructions only from the
// endpoint's start to the end of the connections, so start-up and credentials do not count.
bool counted_run = false;

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
    // Under callgrind on a busy machine a handshake can take seconds: no timeout may end one.
    if (counted_run) config.handshake_timeout_s = config.header_timeout_s = 600;
    auto endpoint = Endpoint::start(config);
    if (counted_run) CALLGRIND_START_INSTRUMENTATION;
    std::string line = endpoint ? (*endpoint)->url("anthro") + " " + (*endpoint)->url("https") + "/v1/messages\n"
                                : endpoint.error().detail + "\n";
    if (write(urls_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()) || !endpoint) return 1;
    char c;
    while (read(stop_fd, &c, 1) > 0) {
    }
    if (counted_run) CALLGRIND_STOP_INSTRUMENTATION;
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
  // Set-up CPU a connection is the set-up window's CPU less what the tokens streamed in it cost
  // at the steady window's rate: streams open early send tokens while the others connect, and
  // counted their CPU as set-up (--counted's figure subtracts its tokens too).
  double setup_s = 0, setup_cpu_ms_per_connection = 0, setup_cpu_ms_per_connection_with_tokens = 0;
  std::uint64_t setup_tokens = 0;
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
      if (tokens[i].t < start) f.setup_tokens += tokens[i].count;
      if (tokens[i].t < start || tokens[i].t > end) continue;
      f.window_tokens += tokens[i].count;
      if (i > 0 && tokens[i - 1].t >= start) itl.push_back((tokens[i].t - tokens[i - 1].t) * 1000);
    }
  }
  f.tokens_per_s = static_cast<double>(f.window_tokens) / (end - start);
  f.added_p99_itl_ms = summarize(itl).p99 - itl_ms;
}

// Every connection opens at once and streams one reply of `tokens`.
BenchConfig storm(const std::string& target, unsigned connections, unsigned tokens) {
  BenchConfig b;
  b.session.target = target;
  b.session.max_tokens = tokens;
  b.session.messages = {{"user", "benchmark prompt 👋"}};
  b.session.timeout_s = 900;  // 5,000 streams overload 2 cores: they run far slower than the model's pace
  b.concurrency = connections;
  b.requests = connections;
  return b;
}

Figures measure(const std::string& target, unsigned connections, unsigned tokens, const EndpointProcess& endpoint) {
  BenchConfig b = storm(target, connections, tokens);
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
  const double setup_cpu_s = (s1.client - s0.client) + (s1.endpoint - s0.endpoint);
  f.setup_cpu_ms_per_connection_with_tokens = setup_cpu_s * 1000 / connections;
  f.window_s = end - start;
  count_window(*r, start, end, f);
  f.client_cpu_us_per_token = (s2.client - s1.client) * 1e6 / static_cast<double>(f.window_tokens);
  f.endpoint_cpu_us_per_token = (s2.endpoint - s1.endpoint) * 1e6 / static_cast<double>(f.window_tokens);
  const double tokens_cpu_s = static_cast<double>(f.setup_tokens) * f.cpu_us_per_token() / 1e6;
  f.setup_cpu_ms_per_connection = std::max(0.0, setup_cpu_s - tokens_cpu_s) * 1000 / connections;
  return f;
}

// The protocol measured first in a point paid for the first storm of that size (set-up CPU a
// connection 1.2-1.7x its own figure when measured second; most likely both processes' heaps
// growing). One short storm of each protocol first, so neither is measured cold.
void warm_up(const EndpointProcess& endpoint, unsigned connections) {
  for (const std::string& target : {endpoint.anthro_url(), endpoint.https_url()})
    if (auto r = run_bench(storm(target, connections, 2)); !r) die(r.error().detail);
}

void put(nlohmann::json& figures, const std::string& key, const Figures& f) {
  figures[key + "-setup_s"] = f.setup_s;
  figures[key + "-setup_cpu_ms_per_connection"] = f.setup_cpu_ms_per_connection;
  figures[key + "-setup_cpu_ms_per_connection_with_tokens"] = f.setup_cpu_ms_per_connection_with_tokens;
  figures[key + "-setup_tokens"] = f.setup_tokens;
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
  std::printf("  %-9s set-up %.2f s (%.2f ms CPU/connection, %.2f with its %llu tokens) | steady %.2f s: %.0f tokens/s, +%.2f ms p99 ITL, "
              "CPU/token %.2f µs (client %.2f, endpoint %.2f), %llu errors\n",
              name, f.setup_s, f.setup_cpu_ms_per_connection, f.setup_cpu_ms_per_connection_with_tokens,
              static_cast<unsigned long long>(f.setup_tokens), f.window_s, f.tokens_per_s, f.added_p99_itl_ms,
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

// Counted figures. Each protocol runs three times under callgrind, both processes counted:
// (few connections, short streams), (few, long) and (more, short). Instructions a token are the
// difference of the first two over the tokens added, so set-up cancels; instructions a
// connection are the difference of the first and third over the connections added, less their
// streams' tokens: the handshake, the request, the reply's head and tail, the close. A pace the
// instrumented processes keep up with, so each token is its own frame and read as in a real run.
constexpr unsigned kCountedConnections[2] = {10, 30};
constexpr unsigned kCountedTokens[2] = {10, 110};
constexpr double kCountedItlMs = 20;
constexpr const char* kCountedEnv = "ANTHRO_ENDPOINT_BENCH_COUNTED";  // "TARGET CONNECTIONS TOKENS"

struct Count {
  std::uint64_t client = 0, endpoint = 0;
  std::uint64_t total() const { return client + endpoint; }
};

struct CountedFigures {
  double client_per_token = 0, endpoint_per_token = 0, client_per_connection = 0, endpoint_per_connection = 0;
  double per_token() const { return client_per_token + endpoint_per_token; }
  double per_connection() const { return client_per_connection + endpoint_per_connection; }
  std::vector<std::pair<std::string, Count>> runs;
};

// The child of a counted run (this program under callgrind): one point, no sampler thread.
int counted_child(const std::string& spec) {
  char target[16] = {};
  unsigned connections = 0, tokens = 0;
  if (std::sscanf(spec.c_str(), "%15s %u %u", target, &connections, &tokens) != 3) die(std::string(kCountedEnv) + ": expected TARGET CONNECTIONS TOKENS, got '" + spec + "'");
  counted_run = true;
  itl_ms = kCountedItlMs;
  EndpointProcess endpoint;
  BenchConfig b = storm(std::string_view(target) == "anthro" ? endpoint.anthro_url() : endpoint.https_url(), connections, tokens);
  CALLGRIND_START_INSTRUMENTATION;
  auto r = run_bench(b);
  CALLGRIND_STOP_INSTRUMENTATION;
  if (!r) die(r.error().detail);
  for (const auto& [what, n] : r->errors) die(std::string("counted run of ") + target + ": " + what + " ×" + std::to_string(n));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the endpoint sees every close before it stops counting
  return 0;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = std::min(dirs.find(':', start), dirs.size());
    if (access((dirs.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// The instructions callgrind counted, from the "totals:" line it writes last.
std::uint64_t callgrind_total(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::optional<std::uint64_t> total;
  while (std::getline(in, line))
    if (line.rfind("totals: ", 0) == 0) total = std::strtoull(line.c_str() + 8, nullptr, 10);
  if (!total) die("no totals in callgrind's " + file);
  return *total;
}

// One counted run: this program again under callgrind. Its own output file is the client's;
// the forked endpoint writes the other.
Count count_run(const std::string& self, const std::string& dir, const char* target, unsigned connections, unsigned tokens) {
  std::string name = std::string(target) + "-" + std::to_string(connections) + "-" + std::to_string(tokens);
  std::string out = "--callgrind-out-file=" + dir + "/" + name + ".%p";
  pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    setenv(kCountedEnv, (std::string(target) + " " + std::to_string(connections) + " " + std::to_string(tokens)).c_str(), 1);
    execlp("valgrind", "valgrind", "-q", "--tool=callgrind", "--instr-atstart=no", out.c_str(),
           self.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("the counted run " + name + " under valgrind failed");
  Count count;
  DIR* d = opendir(dir.c_str());
  for (dirent* e = d ? readdir(d) : nullptr; e; e = readdir(d)) {
    std::string file = e->d_name;
    if (file.rfind(name + ".", 0) != 0) continue;
    (file == name + "." + std::to_string(pid) ? count.client : count.endpoint) += callgrind_total(dir + "/" + file);
  }
  if (d) closedir(d);
  if (count.client == 0 || count.endpoint == 0) die("the counted run " + name + " left no callgrind output in " + dir);
  return count;
}

CountedFigures counted_figures(const char* target, const std::string& dir) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) die("cannot find this program (/proc/self/exe)");
  auto [c0, c1] = kCountedConnections;
  auto [t0, t1] = kCountedTokens;
  Count base = count_run(self, dir, target, c0, t0), longer = count_run(self, dir, target, c0, t1),
        wider = count_run(self, dir, target, c1, t0);
  CountedFigures f;
  double added_tokens = static_cast<double>(c0) * (t1 - t0);
  f.client_per_token = (static_cast<double>(longer.client) - static_cast<double>(base.client)) / added_tokens;
  f.endpoint_per_token = (static_cast<double>(longer.endpoint) - static_cast<double>(base.endpoint)) / added_tokens;
  f.client_per_connection = (static_cast<double>(wider.client) - static_cast<double>(base.client)) / (c1 - c0) - t0 * f.client_per_token;
  f.endpoint_per_connection =
      (static_cast<double>(wider.endpoint) - static_cast<double>(base.endpoint)) / (c1 - c0) - t0 * f.endpoint_per_token;
  auto key = [](unsigned c, unsigned t) { return std::to_string(c) + "x" + std::to_string(t); };
  f.runs = {{key(c0, t0), base}, {key(c0, t1), longer}, {key(c1, t0), wider}};
  return f;
}

void put_counted(nlohmann::json& figures, const std::string& key, const CountedFigures& f) {
  figures[key + "-instructions_per_token"] = f.per_token();
  figures[key + "-client_instructions_per_token"] = f.client_per_token;
  figures[key + "-endpoint_instructions_per_token"] = f.endpoint_per_token;
  figures[key + "-setup_instructions_per_connection"] = f.per_connection();
  figures[key + "-client_setup_instructions_per_connection"] = f.client_per_connection;
  figures[key + "-endpoint_setup_instructions_per_connection"] = f.endpoint_per_connection;
  for (const auto& [run, count] : f.runs) {
    figures[key + "-instructions-" + run + "-client"] = count.client;
    figures[key + "-instructions-" + run + "-endpoint"] = count.endpoint;
  }
}

void counted(bool json_out, const std::string& dir, nlohmann::json& figures, nlohmann::json& ratios) {
  CountedFigures a = counted_figures("anthro", dir), h = counted_figures("http", dir);
  put_counted(figures, "counted-anthro", a);
  put_counted(figures, "counted-http", h);
  ratios["instructions_per_token"] = a.per_token() / h.per_token();
  ratios["setup_instructions_per_connection"] = a.per_connection() / h.per_connection();
  if (json_out) return;
  std::printf("Counted (callgrind, user space, both processes; %u and %u connections, %u and %u tokens a stream, one every %g ms):\n",
              kCountedConnections[0], kCountedConnections[1], kCountedTokens[0], kCountedTokens[1], kCountedItlMs);
  for (auto [name, f] : {std::pair{"anthro-v1", &a}, std::pair{"HTTP/SSE", &h}})
    std::printf("  %-9s %.0f instructions a token (client %.0f, endpoint %.0f), %.0f a connection's set-up (client %.0f, "
                "endpoint %.0f)\n",
                name, f->per_token(), f->client_per_token, f->endpoint_per_token, f->per_connection(),
                f->client_per_connection, f->endpoint_per_connection);
  std::printf("  anthro-v1 ÷ HTTP/SSE: instructions/token %.3f, set-up instructions/connection %.3f\n",
              ratios["instructions_per_token"].get<double>(), ratios["setup_instructions_per_connection"].get<double>());
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* spec = std::getenv(kCountedEnv)) return counted_child(spec);
  double tokens = 0, max_connections = 0, pace = 0;
  bool count = false;
  auto [json_out, quick] = bench::parse_bench_args(
      argc, argv, "endpoint_bench",
      {{"--tokens", "tokens a stream (default 300 + 0.06 a connection, so streams outlast the set-up)", &tokens},
       {"--max-connections", "the largest of the points 100, 1,000, 5,000 (default 5000, when the fd limit allows)",
        &max_connections},
       {"--itl-ms", "the model's gap between tokens (default 10: 100 tokens/s a stream; 1,000 such streams ask 100 k "
                    "tokens/s, about what 2 cores can stream, so the ITL then measures queueing)",
        &pace}},
      {{"--counted", "also count user-space instructions a token and a connection's set-up under callgrind "
                     "(valgrind; six small runs, 60-80 s)", &count}});
  if (pace > 0) itl_ms = pace;
  if (count && !on_path("valgrind"))  // before the wall-clock points, not after them
    die("--counted runs the bench under valgrind's callgrind, and valgrind is not on PATH (Debian: apt-get install valgrind)");
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
    warm_up(endpoint, n);
    Figures a = measure(endpoint.anthro_url(), n, length, endpoint), h = measure(endpoint.https_url(), n, length, endpoint);
    std::string k = std::to_string(n);
    put(figures, "anthro-" + k, a);
    put(figures, "http-" + k, h);
    ratios["tokens_per_s-" + k] = a.tokens_per_s / h.tokens_per_s;
    ratios["cpu_per_token-" + k] = a.cpu_us_per_token() / h.cpu_us_per_token();
    ratios["client_cpu_per_token-" + k] = a.client_cpu_us_per_token / h.client_cpu_us_per_token;
    ratios["endpoint_cpu_per_token-" + k] = a.endpoint_cpu_us_per_token / h.endpoint_cpu_us_per_token;
    ratios["setup_cpu_per_connection-" + k] = a.setup_cpu_ms_per_connection / std::max(h.setup_cpu_ms_per_connection, 1e-6);
    ratios["setup_cpu_with_tokens_per_connection-" + k] =
        a.setup_cpu_ms_per_connection_with_tokens / h.setup_cpu_ms_per_connection_with_tokens;
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
  if (count) {
    std::string counts = std::string(dir) + "/callgrind";
    if (mkdir(counts.c_str(), 0700) != 0) die("cannot make " + counts);
    counted(json_out, counts, figures, ratios);
    if (!json_out) std::printf("  (callgrind's profiles: %s)\n", counts.c_str());
  }
  if (json_out) std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
  return 0;
}
