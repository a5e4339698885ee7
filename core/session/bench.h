// Load generation (cli.md `bench`): closed loop over N connections, or open loop with
// constant or Poisson arrivals that never wait on slow requests.
#pragma once

#include <atomic>
#include <functional>
#include <map>

#include "metrics/slo.h"
#include "metrics/stats.h"
#include "session/session.h"

namespace anthro {

enum class Arrivals { Constant, Poisson };
struct BenchRecord;

// How far a run is, about once a second (BenchConfig::on_progress).
struct BenchProgress {
  std::size_t requests = 0;  // done
  std::uint64_t errors = 0;
  std::size_t connections = 0;
  double tokens_per_s = 0;
};
// As `bench` prints it on stderr: "bench: 120 requests done, 0 errors, 4 connections, 312 tokens/s".
std::string progress_line(const BenchProgress& p);

struct BenchConfig {
  SessionConfig session;       // target, prompt, TLS, client-fault options; repeat is unused
  unsigned concurrency = 0;    // closed loop when > 0
  double rate = 0;             // open loop: requests per second
  Arrivals arrivals = Arrivals::Constant;
  std::optional<std::uint64_t> requests;  // stop after this many, retries not counted (default 100 when no duration)
  std::optional<double> duration_s;
  Slo slo;
  double cancel_rate = 0;       // fraction of requests that send CANCEL after 5 tokens
  bool retry_naive = false;     // retry a 429 at once instead of after retry_after_ms
  double hold_connections_s = 0;  // keep connections open this long after the last request
  std::uint64_t seed = 1;
  std::vector<std::string> prompts;  // cycled; empty means the session's messages
  std::function<void(const BenchProgress& progress)> on_progress;  // about once a second
  std::function<void(const BenchRecord& record)> on_record;  // each request as it ends, on the bench's thread
  // When set and true, no further request starts; those in flight finish (another thread may set it).
  const std::atomic<bool>* stop = nullptr;
  // What request `index` asks (probes, prompts, max_tokens). A request the plan gives no
  // metadata (not a probe) also gets the session's cancel point and --cancel-rate.
  std::function<RequestOptions(std::uint64_t index)> plan;
  unsigned max_retries = 3;  // of one request answered 429
};

// One connection of the bench: what it negotiated and how long it lived, in the clock of the
// requests' timelines (seconds, monotonic).
struct BenchConnection {
  std::string alpn;
  double opened = 0;
  std::optional<double> closed;
  std::uint64_t requests = 0;
  std::optional<std::string> error;  // it could not be opened
};

struct BenchRecord {
  std::uint64_t index = 0;  // the request's number; its retries share it
  double start_s = 0;  // since the bench started
  unsigned connection = 0;  // index into BenchResult::connection_log
  bool retry = false;
  bool cancel_requested = false;
  RequestResult result;
};

// `merge`: one of the results merged, as its file said it.
struct BenchWorker {
  std::string file;
  std::uint64_t requests = 0, connections = 0;
  double start_unix_s = 0, duration_s = 0;
};

struct BenchResult {
  static constexpr int kSchemaVersion = 1;  // of bench_json's document
  std::string target;
  std::string proxy;  // the forward proxy every connection went through (net::ProxyServer::url); empty: direct
  Workload workload;
  // When the run started, by the wall clock (merge lines up workers' runs with it), and the
  // same instant on the clock of the records' sent_s (a monotonic one, whose epoch is the machine's).
  double start_unix_s = 0, start_clock_s = 0;
  std::uint64_t requests = 0;
  std::map<std::string, std::uint64_t> errors;  // "429", "connection", ...
  double duration_s = 0;
  double tokens_per_s = 0;
  double goodput_per_s = 0;
  std::uint64_t connections = 0;
  Summary ttft_ms, tpot_ms, itl_ms, e2e_ms;
  std::vector<BenchRecord> records;
  std::vector<BenchConnection> connection_log;  // every connection opened or tried, in order
  std::vector<std::string> warnings;            // what did not stop the run: a key log not written
  std::vector<BenchWorker> workers;             // merge: the results it was merged from
};

Result<BenchResult> run_bench(const BenchConfig& config);
// requests, tokens_per_s, goodput_per_s and the summaries, from the records, duration_s and
// workload.slo: what a run ends with, and what a merge recomputes.
void summarize_bench(BenchResult& result);
// cli.md `bench --format json`, with kind "bench" and schema_version (resources/schemas/bench.schema.json).
std::string bench_json(const BenchResult& result);
// Read back (`merge`); errors (ErrorClass::Input) name `origin` and the member. The summary
// figures are recomputed from the records, as the run computed them.
Result<BenchResult> bench_from_json(const nlohmann::json& doc, const std::string& origin);
// The same figures in Prometheus text format: anthro_wb_bench_* with labels target and path
// ("anthro-v1" or "http"); latencies as histograms in seconds (kLatencyBucketsSeconds), whose
// buckets add up across workers.
std::string bench_prometheus(const BenchResult& result);
// Per-request records as JSONL, or CSV when the path ends in .csv; written atomically.
Result<bool> write_bench_records(const BenchResult& result, const std::string& path);

}  // namespace anthro
