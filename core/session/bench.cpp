#include "session/bench.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <random>
#include <stdexcept>

#include "metrics/prometheus_text.h"
#include "metrics/request_json.h"
#include "session/client.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using namespace net;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {


std::string error_key(const RequestResult& r) {
  if (!r.error) return {};
  if (r.error_code) return std::to_string(*r.error_code);
  if (r.end == RequestEnd::ClientClosed) return "client-closed";
  return "connection";
}

class Bench {
 public:
  Bench(const BenchConfig& config, const ClientSetup& setup)
      : config_(config), setup_(setup), target_(setup.target), rng_(config.seed), start_(Clock::now()) {
    result_.workload = workload_of(config.session, config.prompts);
    result_.workload.cancel_rate = config.cancel_rate;
    result_.workload.retry_naive = config.retry_naive;
    result_.workload.slo = config.slo;
    result_.target = target_.url;
    if (setup.proxy) result_.proxy = setup.proxy->server.url();
    result_.start_unix_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    result_.start_clock_s = std::chrono::duration<double>(start_.time_since_epoch()).count();  // steady_now_s's clock
    if (!config_.requests && !config_.duration_s) limit_ = 100;
    else limit_ = config_.requests.value_or(UINT64_MAX);
  }

  awaitable<void> run() {
    auto ex = co_await asio::this_coro::executor;
    co_spawn(ex, progress(), report_failure([this](const std::string& what) { note_failure(what); }));
    if (config_.concurrency > 0) {
      active_ = config_.concurrency;  // counted before they start, so the wait below sees them
      for (unsigned i = 0; i < config_.concurrency; ++i) co_spawn(ex, closed_worker(), worker_done());
    } else {
      co_await open_loop();
    }
    while (active_ > 0) co_await idle_->wait();
    result_.duration_s = elapsed();
    finished_ = true;
    if (progress_timer_) progress_timer_->cancel();  // else it holds the loop up to a second
    if (config_.hold_connections_s > 0) {
      asio::steady_timer t(ex);
      co_await sleep_for(t, config_.hold_connections_s);
    }
    for (auto& link : pool_)
      if (!result_.connection_log[link.id].closed) drop(link);
  }

  // A worker or the progress line that threw: the bench ends with it as its error.
  const std::optional<std::string>& failure() const { return failure_; }
  void note_failure(const std::string& what) {
    if (!failure_) failure_ = what;
  }

  BenchResult finish() {
    summarize_bench(result_);
    return std::move(result_);
  }

  void set_executor(const asio::any_io_executor& ex) { idle_ = std::make_unique<Signal>(ex); }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool more() const {
    if (config_.stop && config_.stop->load()) return false;
    return issued_ < limit_ && (!config_.duration_s || elapsed() < *config_.duration_s);
  }

  // A pooled connection and its entry in the connection log.
  struct Link {
    std::shared_ptr<SessionClient> client;
    unsigned id = 0;
  };

  // Takes an open connection from the pool, or opens one.
  awaitable<std::optional<Link>> connection(std::uint64_t index) {
    while (!idle_pool_.empty()) {
      Link link = idle_pool_.back();
      idle_pool_.pop_back();
      if (link.client->idle_and_open()) co_return link;
      drop(link);  // the server closed it while it waited in the pool
    }
    auto c = std::make_shared<SessionClient>(config_.session, setup_);
    Link link{c, static_cast<unsigned>(result_.connection_log.size())};
    BenchConnection& log = result_.connection_log.emplace_back();
    log.opened = steady_now_s();
    bool ok = co_await c->open();
    result_.connection_log[link.id].alpn = c->result().alpn;
    if (!ok) {
      result_.connection_log[link.id].error = c->result().error;
      result_.connection_log[link.id].closed = steady_now_s();
      BenchRecord& rec = result_.records.emplace_back();
      rec.index = index;
      rec.start_s = elapsed();
      rec.connection = link.id;
      rec.result.error = c->result().error;
      ++result_.errors["connection"];
      co_return std::nullopt;
    }
    ++result_.connections;
    pool_.push_back(link);
    co_return link;
  }

  // A connection that cannot take another request.
  void drop(const Link& link) {
    link.client->close();
    result_.connection_log[link.id].closed = steady_now_s();
  }

  RequestOptions options_for(std::uint64_t index, bool& cancel_requested) {
    RequestOptions options = config_.plan ? config_.plan(index) : RequestOptions{};
    if (options.metadata_json) return options;  // a probe asks exactly what it needs
    if (config_.session.cancel_after_tokens) options.cancel_after_tokens = config_.session.cancel_after_tokens;
    if (config_.cancel_rate > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < config_.cancel_rate) {
      options.cancel_after_tokens = 5;
      cancel_requested = true;
    }
    return options;
  }

  // A reused connection that the server closed just as the request went out: nothing came
  // back, so the server never answered it. Clients retry such a request on a new connection.
  static bool stale(const RequestResult& r, std::uint64_t earlier_requests) {
    bool cut = r.end == RequestEnd::ConnectionClosed || r.end == RequestEnd::SendFailed;
    return earlier_requests > 0 && cut && !r.timeline.first_byte;
  }

  awaitable<void> one_request() {
    std::uint64_t index = issued_++;  // taken before any wait, so workers never overshoot
    auto link = co_await connection(index);
    if (!link) co_return;
    bool cancel_requested = false;
    RequestOptions options = options_for(index, cancel_requested);
    // A 429 is retried with the same options, up to max_retries: after retry_after_ms, or at
    // once when told to be naive; a request its rider asks to send again, at once (RiderNext::
    // SendAgain). A polite client also waits after the last 429 before it sends anything else
    // on the connection.
    for (unsigned attempt = 0;;) {
      BenchRecord rec;
      rec.index = index;  // a retry is the same request again
      rec.start_s = elapsed();
      rec.connection = link->id;
      rec.retry = attempt > 0;
      rec.cancel_requested = cancel_requested;
      std::uint64_t earlier = result_.connection_log[link->id].requests++;
      bool reusable = co_await link->client->request(rec.result, options);
      if (stale(rec.result, earlier)) {
        drop(*link);
        --result_.connection_log[link->id].requests;
        link = co_await connection(index);
        if (!link) co_return;
        continue;  // the same attempt again, on a new connection
      }
      std::optional<std::uint32_t> retry_after = rec.result.error_code == 429 ? rec.result.retry_after_ms : std::nullopt;
      bool overloaded = rec.result.error_code == 429;
      record(std::move(rec));
      if (!reusable) {
        drop(*link);
        co_return;
      }
      // The rider asked for the same request again (it knows under what).
      bool again = link->client->resend_pending();
      if (!overloaded && !again) break;
      if (overloaded && !config_.retry_naive && retry_after) {
        asio::steady_timer t(co_await asio::this_coro::executor);
        co_await sleep_for(t, *retry_after / 1000.0);
      }
      if (++attempt > config_.max_retries || !more()) break;
    }
    idle_pool_.push_back(*link);
  }

  void record(BenchRecord rec) {
    if (auto key = error_key(rec.result); !key.empty()) ++result_.errors[key];
    if (config_.on_record) config_.on_record(rec);
    result_.records.push_back(std::move(rec));
  }

  awaitable<void> closed_worker() {
    while (more() && !failure_) co_await one_request();
  }

  // The completion of a worker or an arrival, however it ended: counted, so the bench never
  // waits for one that threw.
  std::function<void(std::exception_ptr)> worker_done() {
    return [this](std::exception_ptr e) {
      if (e) note_failure(exception_text(e));
      --active_;
      idle_->notify();
    };
  }

  awaitable<void> open_loop() {
    auto ex = co_await asio::this_coro::executor;
    asio::steady_timer t(ex);
    std::exponential_distribution<double> poisson(config_.rate);
    double next = 0;
    while (more() && !failure_) {
      co_await sleep_for(t, next - elapsed());
      if (!more()) break;
      ++active_;
      co_spawn(ex, one_request(), worker_done());
      next += config_.arrivals == Arrivals::Poisson ? poisson(rng_) : 1.0 / config_.rate;
    }
  }

  awaitable<void> progress() {
    asio::steady_timer t(co_await asio::this_coro::executor);
    progress_timer_ = &t;
    while (!finished_) {
      co_await sleep_for(t, 1.0);
      if (finished_ || !config_.on_progress) continue;
      BenchProgress p;
      std::uint64_t tokens = 0;
      for (const auto& [_, n] : result_.errors) p.errors += n;
      for (const auto& r : result_.records) tokens += r.result.figures.tokens;
      p.requests = result_.records.size();
      p.connections = pool_.size();
      p.tokens_per_s = static_cast<double>(tokens) / std::max(elapsed(), 1e-9);
      config_.on_progress(p);
    }
    progress_timer_ = nullptr;
  }

  const BenchConfig& config_;
  ClientSetup setup_;  // every connection's: target, TLS context, key log
  Target target_;
  std::mt19937_64 rng_;
  Clock::time_point start_;
  std::uint64_t limit_ = 0, issued_ = 0;
  unsigned active_ = 0;
  bool finished_ = false;
  std::optional<std::string> failure_;
  asio::steady_timer* progress_timer_ = nullptr;  // progress()'s, while it waits
  std::unique_ptr<Signal> idle_;
  std::vector<Link> pool_, idle_pool_;
  BenchResult result_;
};

// The samples a bench's figures are computed from: the requests that ended without an error.
struct BenchSamples {
  std::vector<double> ttft, tpot, itl, e2e;
  std::uint64_t tokens = 0, good = 0;  // tokens of every request; requests that met the SLO
};

BenchSamples bench_samples(const BenchResult& r) {
  BenchSamples s;
  for (const auto& rec : r.records) {
    const RequestFigures& f = rec.result.figures;
    s.tokens += f.tokens;
    if (rec.result.error) continue;
    if (f.ttft_ms) s.ttft.push_back(*f.ttft_ms);
    if (f.tpot_ms) s.tpot.push_back(*f.tpot_ms);
    if (f.e2e_ms) s.e2e.push_back(*f.e2e_ms);
    s.itl.insert(s.itl.end(), f.itl_ms.begin(), f.itl_ms.end());
    if (meets_slo(f, r.workload.slo)) ++s.good;
  }
  return s;
}

// A record: the request's own fields, then where and when the bench ran it.
json record_json(const BenchRecord& rec, bool itl_samples = false) {
  json j = request_json(rec.result, {.text = false, .itl_samples = itl_samples});
  j.update({{"index", rec.index}, {"start_s", rec.start_s}, {"connection", rec.connection}, {"retry", rec.retry},
            {"cancel_requested", rec.cancel_requested}});
  return j;
}

// Numbers and booleans as they are; strings, and objects as their JSON, quoted.
std::string csv_field(const json& v) {
  if (v.is_null()) return "";
  if (v.is_primitive() && !v.is_string()) return dump_json(v);
  std::string s = v.is_string() ? v.get<std::string>() : dump_json(v), out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

json workers_json(const std::vector<BenchWorker>& workers) {
  json out = json::array();
  for (const auto& w : workers)
    out.push_back({{"file", w.file}, {"requests", w.requests}, {"connections", w.connections},
                   {"start_unix_s", w.start_unix_s}, {"duration_s", w.duration_s}});
  return out;
}

// A saved bench result read back; throws "ORIGIN: MEMBER: why" at the first bad member.
class BenchReader {
 public:
  explicit BenchReader(std::string origin) : origin_(std::move(origin)) {}

  BenchResult read(const json& d) {
    if (!d.is_object() || d.value("kind", "") != "bench") bad("kind", "not a bench result");
    BenchResult r;
    r.target = member(d, "target", json::value_t::string).get<std::string>();
    if (auto proxy = d.find("proxy"); proxy != d.end() && proxy->is_string()) r.proxy = proxy->get<std::string>();
    r.duration_s = number(d, "duration_s");
    r.connections = count(d, "connections");
    for (const auto& [code, n] : member(d, "errors", json::value_t::object).items()) r.errors[code] = count(d["errors"], code);
    for (const auto& w : d.value("warnings", json::array()))
      if (w.is_string()) r.warnings.push_back(w.get<std::string>());
    auto workload = workload_from_json(newer(d, "workload"));
    if (!workload) bad("workload", workload.error().detail);
    r.workload = *workload;
    newer(d, "start_unix_s");
    r.start_unix_s = number(d, "start_unix_s");
    r.start_clock_s = number(d, "start_clock_s");
    newer(d, "records");
    const json& records = member(d, "records", json::value_t::array);
    for (std::size_t i = 0; i < records.size(); ++i) r.records.push_back(record(records[i], i));
    for (const auto& w : d.value("workers", json::array())) r.workers.push_back(worker(w));
    summarize_bench(r);
    return r;
  }

 private:
  [[noreturn]] void bad(const std::string& what, const std::string& why) const {
    throw std::runtime_error(origin_ + ": " + what + ": " + why);
  }
  // A member that results written before `merge` existed lack.
  const json& newer(const json& d, const char* key) const {
    if (!d.contains(key)) bad(key, "missing (written by an anthro-wb older than merge): run the bench again");
    return d[key];
  }
  const json& member(const json& d, const std::string& key, json::value_t type) const {
    if (!d.is_object() || !d.contains(key) || d[key].type() != type) bad(key, "missing or of the wrong type");
    return d[key];
  }
  double number(const json& d, const std::string& key) const {
    if (!d.is_object() || !d.contains(key) || !d[key].is_number()) bad(key, "expected a number");
    return d[key].get<double>();
  }
  std::uint64_t count(const json& d, const std::string& key) const {
    if (!d.is_object() || !d.contains(key) || !d[key].is_number_unsigned()) bad(key, "expected a whole number ≥ 0");
    return d[key].get<std::uint64_t>();
  }
  bool flag(const json& d, const std::string& key) const { return member(d, key, json::value_t::boolean).get<bool>(); }

  // The bench's own members, then the request's (request_from_json keeps what it does not know).
  BenchRecord record(const json& j, std::size_t i) const {
    std::string where = "records[" + std::to_string(i) + "]";
    if (!j.is_object()) bad(where, "expected an object");
    BenchRecord rec;
    try {
      rec.index = count(j, "index");
      rec.start_s = number(j, "start_s");
      rec.connection = static_cast<unsigned>(count(j, "connection"));
      rec.retry = flag(j, "retry");
      rec.cancel_requested = flag(j, "cancel_requested");
    } catch (const std::runtime_error& e) {
      bad(where, std::string(e.what()).substr(origin_.size() + 2));
    }
    json request = j;
    for (const char* key : {"index", "start_s", "connection", "retry", "cancel_requested"}) request.erase(key);
    auto result = request_from_json(request, {.text = false, .itl_samples = true});
    if (!result) bad(where, result.error().detail);
    rec.result = std::move(*result);
    return rec;
  }

  BenchWorker worker(const json& w) const {
    return {member(w, "file", json::value_t::string).get<std::string>(), count(w, "requests"), count(w, "connections"),
            number(w, "start_unix_s"), number(w, "duration_s")};
  }

  std::string origin_;
};

}  // namespace

std::string progress_line(const BenchProgress& p) {
  char line[160];
  std::snprintf(line, sizeof line, "bench: %zu requests done, %llu errors, %zu connections, %.0f tokens/s", p.requests,
                static_cast<unsigned long long>(p.errors), p.connections, p.tokens_per_s);
  return line;
}

Result<BenchResult> run_bench(const BenchConfig& config) {
  if (config.concurrency == 0 && config.rate <= 0)
    return make_error(ErrorClass::Usage, "give --concurrency N (closed loop) or --rate R (open loop)");
  auto setup = prepare_client(config.session);
  if (!setup) return setup.error();
  asio::io_context io;
  Bench bench(config, *setup);
  bench.set_executor(io.get_executor());
  co_spawn(io, bench.run(), [&](std::exception_ptr e) {
    if (e) bench.note_failure(exception_text(e));
  });
  io.run();
  if (bench.failure()) return make_error(ErrorClass::Input, "internal", "internal error: " + *bench.failure());
  BenchResult result = bench.finish();
  if (setup->keylog)
    if (auto error = setup->keylog->error()) result.warnings.push_back(*error);  // once for all connections
  return result;
}

void summarize_bench(BenchResult& r) {
  BenchSamples s = bench_samples(r);
  r.requests = r.records.size();
  double d = std::max(r.duration_s, 1e-9);
  r.tokens_per_s = static_cast<double>(s.tokens) / d;
  r.goodput_per_s = static_cast<double>(s.good) / d;
  r.ttft_ms = summarize(s.ttft);
  r.tpot_ms = summarize(s.tpot);
  r.itl_ms = summarize(s.itl);
  r.e2e_ms = summarize(s.e2e);
}

std::string bench_json(const BenchResult& r) {
  json errors = json::object();
  for (const auto& [k, n] : r.errors) errors[k] = n;
  json j = {{"kind", "bench"}, {"schema_version", BenchResult::kSchemaVersion},
            {"target", r.target}, {"proxy", r.proxy.empty() ? json(nullptr) : json(r.proxy)},
            {"requests", r.requests}, {"errors", errors}, {"duration_s", r.duration_s},
            {"tokens_per_s", r.tokens_per_s}, {"goodput_per_s", r.goodput_per_s}, {"connections", r.connections},
            {"warnings", r.warnings}, {"workload", workload_json(r.workload)},
            {"start_unix_s", r.start_unix_s}, {"start_clock_s", r.start_clock_s},
            {"summary", {{"ttft_ms", summary_json(r.ttft_ms)}, {"tpot_ms", summary_json(r.tpot_ms)},
                         {"itl_ms", summary_json(r.itl_ms)}, {"e2e_ms", summary_json(r.e2e_ms)}}},
            {"records", json::array()}};
  // Every request with its ITL samples: what `compare` judges and `merge` pools.
  for (const auto& rec : r.records) j["records"].push_back(record_json(rec, true));
  if (!r.workers.empty()) j["workers"] = workers_json(r.workers);
  return dump_json(j);
}

Result<BenchResult> bench_from_json(const json& doc, const std::string& origin) {
  try {
    return BenchReader(origin).read(doc);
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, e.what());
  }
}

std::string bench_prometheus(const BenchResult& r) {
  auto target = parse_target(r.target);
  const PrometheusLabels labels = {{"target", r.target},
                                   {"path", target && target->http() ? "http" : "anthro-v1"}};
  PrometheusText out;
  auto one = [&](const char* name, MetricType type, const char* help, double value) {
    out.family(name, type, help);
    out.sample(name, labels, value);
  };
  one("anthro_wb_bench_requests_total", MetricType::Counter, "Requests the run sent.", static_cast<double>(r.requests));
  out.family("anthro_wb_bench_errors_total", MetricType::Counter, "Requests that failed, by error.");
  for (const auto& [code, n] : r.errors) {
    PrometheusLabels with = labels;
    with.emplace_back("error", code);
    out.sample("anthro_wb_bench_errors_total", with, static_cast<double>(n));
  }
  one("anthro_wb_bench_connections_total", MetricType::Counter, "Connections the run opened.",
      static_cast<double>(r.connections));
  one("anthro_wb_bench_duration_seconds", MetricType::Gauge, "How long the run took.", r.duration_s);
  one("anthro_wb_bench_tokens_per_second", MetricType::Gauge, "Tokens streamed per second over the run.",
      r.tokens_per_s);
  one("anthro_wb_bench_goodput_requests_per_second", MetricType::Gauge,
      "Requests per second that met the SLO (all successful ones without --slo).", r.goodput_per_s);
  BenchSamples s = bench_samples(r);
  write_seconds_histogram(out, "anthro_wb_bench_ttft_seconds", "Time to first token.", labels, s.ttft);
  write_seconds_histogram(out, "anthro_wb_bench_tpot_seconds", "Time per output token after the first.", labels, s.tpot);
  write_seconds_histogram(out, "anthro_wb_bench_itl_seconds", "Gap between consecutive tokens.", labels, s.itl);
  write_seconds_histogram(out, "anthro_wb_bench_e2e_seconds", "Request to last token.", labels, s.e2e);
  return out.text();
}

Result<bool> write_bench_records(const BenchResult& r, const std::string& path) {
  bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  std::string out;
  std::vector<std::string> columns;
  for (const auto& rec : r.records) {
    json j = record_json(rec);
    if (!csv) {
      out += dump_json(j) + "\n";
      continue;
    }
    if (columns.empty()) {
      for (auto& [k, _] : j.items()) columns.push_back(k);
      for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i];
      out += "\n";
    }
    for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_field(j[columns[i]]);
    out += "\n";
  }
  return write_file_atomic(path, out);
}

}  // namespace anthro
