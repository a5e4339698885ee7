// The stage loop: each stage's workload split between the arms, its gates judged on the pooled
// samples, Argo's limits applied, and the stop, pause or rollback a person or a verdict asks for.
#include "rollout/rollout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "diagnosis/diagnosis.h"
#include "diagnosis/live_workload.h"
#include "rollout/plan_metric.h"
#include "session/bench.h"
#include "session/http_rider.h"
#include "session/target.h"
#include "util/process_fds.h"

namespace anthro {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A request's arm depends on its id alone, so a rerun routes it the same way.
bool routed_to_candidate(std::uint64_t id, double split) {
  if (split >= 1) return true;
  if (split <= 0) return false;
  return static_cast<double>(mix(id) >> 11) * 0x1.0p-53 < split;
}

std::uint64_t request_id(std::size_t stage, std::uint64_t n) { return (static_cast<std::uint64_t>(stage) << 40) | n; }

// The request ended with the connection still carrying it (an error status is an answer).
bool connection_held(RequestEnd e) {
  return e == RequestEnd::Response || e == RequestEnd::Error || e == RequestEnd::ClientClosed ||
         e == RequestEnd::CancelClosed;
}

// One arm of a batch: its probes first, then the stage's requests by id.
struct Arm {
  std::string target;
  std::vector<RequestOptions> probes;
  std::vector<std::uint64_t> ids;
  Result<BenchResult> bench = make_error(ErrorClass::Network, "not run");

  std::optional<std::uint64_t> id_of(std::uint64_t index) const {
    if (index < probes.size()) return std::nullopt;
    return ids[index - probes.size()];
  }
  // The error statuses each ordinary request was answered, over all its attempts.
  std::map<std::uint64_t, std::set<int>> statuses() const {
    std::map<std::uint64_t, std::set<int>> by_id;
    if (bench)
      for (const auto& rec : bench->records)
        if (auto id = id_of(rec.index); id && rec.result.error_code) by_id[*id].insert(*rec.result.error_code);
    return by_id;
  }
  // The last attempt of each ordinary request, by id.
  std::map<std::uint64_t, const RequestResult*> answers() const {
    std::map<std::uint64_t, const RequestResult*> by_id;
    if (bench)
      for (const auto& rec : bench->records)
        if (auto id = id_of(rec.index)) by_id[*id] = &rec.result;
    return by_id;
  }
};

GateResult item_gate(const std::string& id, const Observations& o) {
  GateResult g;
  const ChecklistItem* item = builtin_latency_checklist().item(id);
  if (!item) {
    set_reason(g, {Message("gate.no_item", {{"id", id}})});
    return g;
  }
  ItemResult r = evaluate_item(*item, o);
  g.n = r.n;
  g.unit = r.unit;
  g.interval = {std::nan(""), std::nan("")};  // an item has a threshold, not an interval
  g.statistic = r.statistic.value_or(0);
  if (r.need_more) g.need_more = r.need_more;
  set_reason(g, {Message("gate.item", {{"id", id}, {"verdict", MessageText{Message(std::string("verdict.") + to_string(r.verdict))}}, {"reason", r.reason_text}})});
  // A flag of either kind fails a gate that asks the item to pass.
  if (r.verdict == Verdict::Pass) g.verdict = Verdict::Pass;
  else if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn) g.verdict = Verdict::Fail;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

GateResult recorded_improvement(const StageSamples& s, std::size_t min_n, std::uint64_t seed) {
  GateResult g;
  g.n = std::min(s.ttft_baseline_ms.size(), s.ttft_candidate_ms.size());
  std::size_t need = std::max<std::size_t>(min_n, 20);
  if (g.n < need) {
    g.need_more = need - g.n;
    set_reason(g, {Message("gate.need_each_side", {{"need", std::to_string(*g.need_more)}})});
    return g;
  }
  double ratio = percentile(s.ttft_candidate_ms, 99) / percentile(s.ttft_baseline_ms, 99);
  Interval r = bootstrap_p99_ratio(s.ttft_candidate_ms, s.ttft_baseline_ms, seed);
  g.statistic = 1 - ratio;
  g.interval = {1 - r.high, 1 - r.low};
  g.verdict = Verdict::Pass;
  set_reason(g, {Message("gate.improvement", {{"baseline", message_printf("%.1f", percentile(s.ttft_baseline_ms, 99))},
                                             {"candidate", message_printf("%.1f", percentile(s.ttft_candidate_ms, 99))},
                                             {"change", message_printf("%+.1f", g.statistic * 100)},
                                             {"low", message_printf("%+.1f", g.interval.low * 100)},
                                             {"high", message_printf("%+.1f", g.interval.high * 100)}})});
  return g;
}

// A metric a format registered: one reading of the candidate's /metrics at the stage's end.
GateResult registered_gate(const PlanMetric& m, const std::function<std::string()>& metrics, double threshold) {
  if (metrics) return m.judge(metrics(), threshold);
  GateResult g;
  g.interval = {std::nan(""), std::nan("")};  // one reading: a value, not an estimate
  set_reason(g, {Message("gate.no_metrics", {{"what", m.what}})});
  return g;
}

GateResult rollback_gate(const RollbackRehearsal& r) {
  GateResult g;
  g.n = r.sessions;
  g.statistic = r.seconds;
  g.unit = "s";
  g.interval = {std::nan(""), std::nan("")};
  set_reason(g, {Message("gate.rollback", {{"sessions", std::to_string(r.sessions)}, {"seconds", message_printf("%.2f", r.seconds)},
                                          {"left", std::to_string(r.candidate_sockets_after)},
                                          {"fds_before", std::to_string(r.fds_before)}, {"fds_after", std::to_string(r.fds_after)},
                                          {"requests", std::to_string(r.requests_after)}, {"failed", std::to_string(r.failed_after)}})});
  if (!r.clean() || r.failed_after > 0) g.verdict = Verdict::Fail;
  else if (r.sessions == 0 || r.requests_after == 0) g.verdict = Verdict::Inconclusive;  // nothing was switched
  else g.verdict = Verdict::Pass;
  return g;
}

class StageRunner {
 public:
  StageRunner(const RolloutConfig& config, StageResult& result, std::mutex& events, double t0)
      : c_(config), stage_(config.plan.stages[result.index]), r_(result), events_(events), t0_(t0) {}

  // Runs one batch of the stage's workload and pools what it measured.
  void run_batch(std::uint64_t count) {
    Arm baseline, candidate;
    baseline.target = c_.baseline;
    candidate.target = r_.candidate;
    for (const auto& gate : stage_.gates)
      if (gate.metric == GateMetric::ChecklistItem && gate.item)
        if (auto probe = probe_for_item(*gate.item)) candidate.probes.push_back(*probe);
    for (std::uint64_t n = r_.samples.workload; n < r_.samples.workload + count; ++n) {
      std::uint64_t id = request_id(r_.index, n);
      baseline.ids.push_back(id);
      if (stage_.mode == SplitMode::Mirror || routed_to_candidate(id, stage_.split)) candidate.ids.push_back(id);
    }
    r_.samples.workload += count;
    std::thread candidate_thread([&] { run_arm(candidate, true); });
    run_arm(baseline, false);
    candidate_thread.join();
    if (halt_time_) drain_s_ = std::chrono::duration<double>(Clock::now() - *halt_time_).count();
    if (candidate.bench) candidate_connections_ += candidate.bench->connection_log.size();
    pool(baseline, candidate);
  }

  void judge() {
    r_.gates.clear();
    r_.need.clear();
    r_.need_text.clear();
    r_.ttft_baseline = summarize(r_.samples.ttft_baseline_ms);
    r_.ttft_candidate = summarize(r_.samples.ttft_candidate_ms);
    bool failed = false, open = false;
    for (const auto& gate : stage_.gates) {
      GateOutcome out{gate.id, gate.metric, gate.comparison, gate.threshold, gate.unit, judge_gate(gate)};
      if (out.unit.empty()) out.unit = out.result.unit.empty() && gate.metric == GateMetric::TtftP99 ? "ms" : out.result.unit;
      if (gate.comparison == GateCompare::NotWorse) out.threshold = 1 + gate.margin.value_or(0);
      failed |= out.result.verdict == Verdict::Fail;
      if (out.result.verdict == Verdict::Inconclusive) {
        open = true;
        const auto& more = out.result.need_more;
        MessageText what = more ? MessageText{Message(is_rate(gate.metric) ? "stage.more_trials" : "stage.more_samples",
                                                      {{"need", std::to_string(*more)}})}
                                : out.result.reason_text;
        r_.need_text.push_back(Message("stage.gate_needs", {{"id", gate.id}, {"what", what}}));
        r_.need = render(r_.need_text);
      }
      r_.gates.push_back(std::move(out));
    }
    r_.verdict = failed ? Verdict::Fail : open ? Verdict::Inconclusive : Verdict::Pass;
  }

  bool halted() const { return halted_; }
  bool error_limit_hit() const { return error_limit_hit_; }
  // From the moment the stage was told to stop until both arms had closed their connections.
  double drain_s() const { return drain_s_; }
  unsigned candidate_connections() const { return static_cast<unsigned>(candidate_connections_); }

 private:
  BenchConfig bench_config(Arm& arm, bool candidate_arm) {
    BenchConfig b;
    b.session = c_.session;
    b.session.target = arm.target;
    b.session.stream = true;
    carry_plan_format(b.session, candidate_arm);
    b.concurrency = std::max(c_.concurrency, 1u);
    b.requests = arm.probes.size() + arm.ids.size();
    b.seed = c_.seed;
    b.stop = &halted_;
    b.plan = [&arm](std::uint64_t index) {
      if (index < arm.probes.size()) return arm.probes[index];
      RequestOptions o;
      o.messages = user_message(workload_prompt(*arm.id_of(index) & 0xFFFFFFFFFFull));
      return o;
    };
    b.on_record = [this, &arm, candidate_arm](const BenchRecord& rec) { on_record(arm, candidate_arm, rec); };
    return b;
  }

  void run_arm(Arm& arm, bool candidate_arm) {
    if (arm.probes.empty() && arm.ids.empty()) return;
    arm.bench = run_bench(bench_config(arm, candidate_arm));
  }

  void on_record(const Arm& arm, bool candidate_arm, const BenchRecord& rec) {
    std::lock_guard lock(events_);
    if (candidate_arm && arm.id_of(rec.index)) {
      consecutive_errors_ = connection_held(rec.result.end) ? 0 : consecutive_errors_ + 1;
      if (stage_.consecutive_error_limit && consecutive_errors_ > stage_.consecutive_error_limit) {
        error_limit_hit_ = true;
        halt();
      }
    }
    if (c_.control && (c_.control->pause || c_.control->roll_back)) halt();
    if (!c_.on_event) return;
    RolloutEvent e;
    e.kind = RolloutEvent::Kind::Progress;
    e.stage = r_.index;
    e.candidate_arm = candidate_arm;
    e.request = rec.index;
    e.ttft_ms = rec.result.figures.ttft_ms;
    if (rec.result.timeline.request_written > 0) e.sent_s = rec.result.timeline.request_written - t0_;
    e.text = {Message("rollout.request", {{"arm", {Message(candidate_arm ? "arm.candidate" : "arm.baseline")}},
                                           {"n", std::to_string(rec.index + 1)},
                                           {"end", {Message(std::string("end.") + to_string(rec.result.end))}}})};
    e.line = render(e.text, "en");
    c_.on_event(e);
  }

  void halt() {
    if (!halted_) halt_time_ = Clock::now();
    halted_ = true;
  }

  void pool(const Arm& baseline, const Arm& candidate) {
    StageSamples& s = r_.samples;
    auto base = baseline.answers(), cand = candidate.answers();
    for (const auto& [id, b] : base)
      if (b->figures.ttft_ms) s.ttft_baseline_ms.push_back(*b->figures.ttft_ms);
    // A status counts once per request that was answered it, whichever attempt: a 409 that the
    // client followed with a resend is still a migration.
    std::map<std::uint64_t, std::set<int>> statuses = candidate.statuses();
    for (const auto& [id, q] : cand) {
      ++s.requests;
      s.connection_ok += connection_held(q->end);
      for (int status : statuses[id]) ++s.statuses[status];
      if (q->figures.ttft_ms) s.ttft_candidate_ms.push_back(*q->figures.ttft_ms);
      auto b = base.find(id);
      if (b == base.end() || b->second->end != RequestEnd::Response) continue;  // nothing to compare with
      bool same = q->end == RequestEnd::Response && q->text == b->second->text;
      ++s.compared;
      s.matched += same;
      ++s.verified;
      s.consistent += same && q->stop_reason == b->second->stop_reason &&
                      q->figures.usage_output_tokens == b->second->figures.usage_output_tokens;
    }
    if (candidate.bench)
      for (const auto& rec : candidate.bench->records)
        if (!connection_held(rec.result.end) && rec.result.error) warn("candidate: " + *rec.result.error);
    if (!candidate.bench && (candidate.ids.size() || candidate.probes.size()))
      warn("candidate " + candidate.target + ": " + candidate.bench.error().detail);
    if (!baseline.bench) warn("baseline " + baseline.target + ": " + baseline.bench.error().detail);
    if (candidate.bench) {
      Observations o = observe_bench(*candidate.bench, candidate.target);
      FrameDrops d = count_frame_drops(o);
      s.frames += d.frames;
      s.frames_dropped += d.dropped;
      if (needs_utf8_pair()) pair_utf8_probe(c_.session, http_baseline(), o);
      merge_observations(observed_, std::move(o));
    }
  }

  // Each distinct warning once, and not too many of them.
  void warn(const std::string& line) {
    if (r_.warnings.size() < 20 && std::find(r_.warnings.begin(), r_.warnings.end(), line) == r_.warnings.end())
      r_.warnings.push_back(line);
  }

  bool needs_utf8_pair() const {
    for (const auto& g : stage_.gates)
      if (g.metric == GateMetric::ChecklistItem && g.item == std::string(kProbeUtf8)) return true;
    return false;
  }

  // The HTTP path the utf8 probe's answer must equal: the baseline when it is one, else the
  // candidate's own HTTP baseline (its TLS port, ALPN http/1.1).
  std::string http_baseline() const {
    auto b = parse_target(c_.baseline);
    if (b && b->http()) return c_.baseline;
    auto t = parse_target(r_.candidate);
    if (!t) return c_.baseline;
    return http_baseline_url(*t);
  }

  GateResult judge_gate(const PlanGate& gate) {
    const StageSamples& s = r_.samples;
    double t = gate.threshold.value_or(0);
    std::uint64_t seed = c_.seed ^ mix(r_.index + 1);
    switch (gate.metric) {
      case GateMetric::ConnectionSuccessRate: return rate(gate, s.connection_ok, s.requests);
      case GateMetric::FrameDropRate: return judge_bad_rate(s.frames_dropped, s.frames, t);
      case GateMetric::ResponseMatchRate: return rate(gate, s.matched, s.compared);
      case GateMetric::WriteConsistencyRate: return rate(gate, s.consistent, s.verified);
      case GateMetric::StatusRate: return judge_bad_rate(status_count(gate.status.value_or(0)), s.requests, t);
      case GateMetric::ContextErrorRate: return judge_bad_rate(status_count(400), s.requests, t);
      case GateMetric::TtftP99Ratio:
        return judge_latency(s.ttft_candidate_ms, s.ttft_baseline_ms, gate.margin.value_or(0), seed,
                             std::max<std::size_t>(gate.min_n, 1));
      case GateMetric::TtftP99: return judge_p99_below(s.ttft_candidate_ms, t, gate.min_n);
      case GateMetric::TtftP99Improvement: return recorded_improvement(s, gate.min_n, seed);
      case GateMetric::RollbackRehearsal:
        if (!r_.rollback)
          r_.rollback = rehearse_rollback(c_.session, c_.baseline, r_.candidate, c_.concurrency, c_.rollback_load_s);
        return rollback_gate(*r_.rollback);
      case GateMetric::ChecklistItem: return item_gate(gate.item.value_or(""), observed_);
    }
    if (const PlanMetric* registered = plan_metric(gate.metric)) return registered_gate(*registered, c_.candidate_metrics, t);
    return {};
  }

  // A plan of a format riding on HTTP: the candidate's clients carry it (its live rider, with
  // its defaults unless the session set its options), the baseline's do not.
  void carry_plan_format(SessionConfig& session, bool candidate_arm) const {
    const Profile* format = find_profile(c_.plan.profile);
    if (!format || !live_http_riders().find(format->id)) return;
    if (candidate_arm) session.riders.try_emplace(format->id);
    else session.riders.erase(format->id);
  }

  // A rate gate in its direction: ">=" on the good events, "<=" and "<" on the bad ones.
  static GateResult rate(const PlanGate& gate, std::uint64_t good, std::uint64_t n) {
    double t = gate.threshold.value_or(0);
    if (gate.comparison == GateCompare::AtLeast) return judge_rate(good, n, t);
    return judge_bad_rate(n - good, n, t);
  }

  std::uint64_t status_count(int status) const {
    auto it = r_.samples.statuses.find(status);
    return it == r_.samples.statuses.end() ? 0 : it->second;
  }

  const RolloutConfig& c_;
  const PlanStage& stage_;
  StageResult& r_;
  std::mutex& events_;
  double t0_;  // the rollout's start, in the clock of the requests' timelines
  std::atomic<bool> halted_{false};
  std::optional<Clock::time_point> halt_time_;
  double drain_s_ = 0;
  std::size_t candidate_connections_ = 0;
  unsigned consecutive_errors_ = 0;
  bool error_limit_hit_ = false;
  Observations observed_;  // the candidate arm, for checklist-item gates
};

void emit(const RolloutConfig& c, std::mutex& m, RolloutEvent::Kind kind, std::size_t stage, MessageText text,
          const StageResult* result = nullptr) {
  if (!c.on_event) return;
  std::lock_guard lock(m);
  RolloutEvent e;
  e.kind = kind;
  e.stage = stage;
  e.line = render(text, "en");
  e.text = std::move(text);
  e.result = result;
  c.on_event(e);
}

Message stage_named(const StageResult& s) {
  return Message("stage.name", {{"stage", std::to_string(s.index + 1)}, {"name", s.name}});
}

MessageText failed_gates(const StageResult& s) {
  MessageText out;
  for (const auto& g : s.gates)
    if (g.result.verdict == Verdict::Fail) out.push_back(Message("stage.gate_needs", {{"id", g.id}, {"what", g.result.reason_text}}));
  return out;
}

Message translated(const LocalizedText& t) {
  return Message("translated", {{"en", t.en}, {"zh_CN", t.zh_CN.empty() ? t.en : t.zh_CN}});
}

Message verdict_word(Verdict v) { return Message(std::string("verdict.") + to_string(v)); }

void set_message(RolloutResult& r, Message m) {
  r.message_text = {std::move(m)};
  r.message = render(r.message_text);
}

// Runs a stage's batches until Argo's loop settles it: pass, fail beyond failureLimit,
// inconclusive beyond inconclusiveLimit, or a person's pause or rollback. Gives the time the
// candidate arm took to drain after it was told to stop, and its connections.
std::pair<double, unsigned> run_stage(const RolloutConfig& c, StageResult& sr, std::mutex& events, double t0,
                                      std::optional<std::uint64_t> first_batch) {
  const PlanStage& stage = c.plan.stages[sr.index];
  std::uint64_t batch = c.requests_per_stage.value_or(stage.requests);
  StageRunner runner(c, sr, events, t0);
  unsigned failures = 0, inconclusives = 0;
  for (;;) {
    runner.run_batch(first_batch.value_or(batch));
    first_batch.reset();
    runner.judge();
    if (runner.error_limit_hit()) {
      sr.verdict = Verdict::Fail;
      sr.warnings.push_back("more than " + std::to_string(stage.consecutive_error_limit) +
                            " consecutive candidate requests lost their connection (consecutiveErrorLimit)");
      break;
    }
    if (runner.halted() || sr.verdict == Verdict::Pass) break;
    if (sr.verdict == Verdict::Fail && ++failures > stage.failure_limit) break;
    if (sr.verdict == Verdict::Inconclusive && ++inconclusives > stage.inconclusive_limit) break;
    emit(c, events, RolloutEvent::Kind::Progress, sr.index,
         {Message("rollout.measuring_again", {{"stage", {stage_named(sr)}}, {"verdict", {verdict_word(sr.verdict)}}})});
    std::this_thread::sleep_for(std::chrono::duration<double>(stage.interval_s));
  }
  return {runner.drain_s(), runner.candidate_connections()};
}

}  // namespace

std::optional<std::uint64_t> requests_to_settle(const StageResult& stage) {
  const double share = stage.mode == SplitMode::Mirror ? 1.0 : std::min(stage.split, 1.0);
  if (share <= 0) return std::nullopt;
  std::optional<std::uint64_t> most;
  for (const auto& g : stage.gates)
    if (g.result.verdict == Verdict::Inconclusive && g.result.need_more) {
      const auto requests = static_cast<std::uint64_t>(std::ceil(static_cast<double>(*g.result.need_more) / share));
      most = std::max(most.value_or(0), requests);
    }
  return most;
}

namespace {

// After a failure or a person's "roll back": the candidate arm has stopped (`drain_s` after it
// was told to); what it left open.
RollbackRehearsal roll_back_now(const std::string& candidate, int fds_before, double drain_s, unsigned sessions) {
  RollbackRehearsal r;
  r.seconds = drain_s;
  r.sessions = sessions;
  r.fds_before = fds_before;
  auto t = parse_target(candidate);
  r.candidate_sockets_after = t ? static_cast<int>(sockets_to_port(t->port).size()) : 0;
  r.fds_after = settled_fd_count(fds_before);
  return r;
}

Message passed_message(const RolloutResult& r) {
  std::string ran, promoted;
  for (const auto& s : r.stages) {
    ran += (ran.empty() ? "" : ", ") + std::to_string(s.index + 1);
    if (s.promoted) promoted += (promoted.empty() ? "" : ", ") + std::to_string(s.index + 1);
  }
  if (promoted.empty()) return Message("rollout.passed", {{"stages", ran}});
  return Message("rollout.passed_promoted", {{"stages", ran}, {"promoted", promoted}});
}

Result<bool> check_targets(const RolloutConfig& c) {
  if (auto t = parse_target(c.baseline); !t) return make_error(ErrorClass::Usage, "baseline", "baseline: " + t.error().detail);
  if (auto t = parse_target(c.candidate); !t) return make_error(ErrorClass::Usage, "candidate", "candidate: " + t.error().detail);
  for (const auto& [name, url] : c.regions)
    if (auto t = parse_target(url); !t) return make_error(ErrorClass::Usage, "region", "region " + name + ": " + t.error().detail);
  return true;
}

// Where a resumed rollout starts, with the stages it keeps.
Result<std::size_t> resume_into(const RolloutConfig& c, RolloutResult& r) {
  const RolloutResult& old = *c.resume;
  if (old.plan_id != c.plan.id)
    return make_error(ErrorClass::Usage, "resume", "resume: the result is of plan \"" + old.plan_id + "\", not \"" + c.plan.id + "\"");
  if (old.state != RolloutState::Paused || !old.stopped_at)
    return make_error(ErrorClass::Usage, "resume", std::string("resume: nothing to resume, the rollout ") + to_string(old.state));
  r = old;
  std::size_t next = *old.stopped_at;
  std::erase_if(r.stages, [next](const StageResult& s) { return s.index > next; });
  if (!r.stages.empty() && r.stages.back().index == next && c.promote) {
    r.stages.back().promoted = true;
    ++next;
  }
  return next;
}

}  // namespace

Result<RolloutResult> run_rollout(const RolloutConfig& c) {
  if (c.plan.stages.empty()) return make_error(ErrorClass::Input, c.plan_origin + ": the plan has no stages");
  if (auto ok = check_targets(c); !ok) return ok.error();
  std::size_t count = c.plan.stages.size();
  std::size_t last = std::min(c.last_stage, count - 1);
  if (c.first_stage >= count || c.first_stage > last)
    return make_error(ErrorClass::Usage, "stage",
                      "stage " + std::to_string(c.first_stage + 1) + ": the plan has " + std::to_string(count) + " stages");
  RolloutResult r;
  r.plan_id = c.plan.id;
  r.plan_origin = c.plan_origin;
  r.plan_title = c.plan.title;
  r.baseline = c.baseline;
  r.candidate = c.candidate;
  r.regions = c.regions;
  r.seed = c.seed;
  r.requests_per_stage = c.requests_per_stage;
  r.embedded_endpoint = c.embedded_endpoint;
  std::size_t first = c.first_stage;
  if (c.resume) {
    auto next = resume_into(c, r);
    if (!next) return next.error();
    first = *next;
  }
  r.last_stage = last;
  r.baseline = c.baseline;  // a resumed rollout may run against a new embedded endpoint
  r.candidate = c.candidate;
  r.regions = c.regions;
  r.state = RolloutState::Passed;
  r.stopped_at.reset();
  r.message.clear();
  r.message_text.clear();
  std::mutex events;
  const double t0 = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  if (c.resume && c.control && c.control->roll_back) {  // a person rolls back a paused rollout: nothing more runs
    r.rollback = roll_back_now(c.candidate, open_fd_count(), 0, 0);
    r.state = RolloutState::RolledBack;
    r.stopped_at = first;
    set_message(r, Message("rollout.rolled_back_paused", {{"stage", std::to_string(first + 1)}}));
    emit(c, events, RolloutEvent::Kind::Finished, first, r.message_text);
    return r;
  }

  for (std::size_t k = first; k <= last; ++k) {
    const PlanStage& stage = c.plan.stages[k];
    bool pooled = !r.stages.empty() && r.stages.back().index == k;  // the paused stage of a resumed rollout
    if (!pooled) {
      StageResult fresh;
      fresh.index = k;
      fresh.name = stage.name;
      fresh.title = stage.title;
      fresh.mode = stage.mode;
      fresh.split = stage.split;
      auto region = c.regions.find(stage.region);
      fresh.candidate = stage.mode == SplitMode::Region && region != c.regions.end() ? region->second : c.candidate;
      r.stages.push_back(std::move(fresh));
    }
    StageResult& sr = r.stages.back();
    emit(c, events, RolloutEvent::Kind::StageStarted, k,
         {Message("rollout.stage_started", {{"stage", {stage_named(sr)}}, {"title", {translated(stage.title)}}})});
    int fds_before = open_fd_count();
    auto [drain_s, connections] = run_stage(c, sr, events, t0, pooled ? c.more_requests : std::nullopt);
    emit(c, events, RolloutEvent::Kind::StageFinished, k,
         {Message("rollout.stage_finished", {{"stage", {stage_named(sr)}}, {"verdict", {verdict_word(sr.verdict)}}})}, &sr);

    bool person_rolls_back = c.control && c.control->roll_back;
    if (person_rolls_back || sr.verdict == Verdict::Fail) {
      emit(c, events, RolloutEvent::Kind::RollbackStarted, k,
           {Message("rollout.rolling_back", {{"stage", {stage_named(sr)}}, {"rollback", {translated(stage.rollback)}}})});
      r.rollback = roll_back_now(sr.candidate, fds_before, drain_s, connections);
      r.state = person_rolls_back ? RolloutState::RolledBack : RolloutState::Failed;
      r.stopped_at = k;
      set_message(r, person_rolls_back
                         ? Message("rollout.rolled_back_by_person", {{"stage", {stage_named(sr)}}})
                         : Message("rollout.failed", {{"stage", {stage_named(sr)}}, {"gates", failed_gates(sr)},
                                                      {"rollback", {translated(stage.rollback)}}}));
      break;
    }
    if (sr.verdict == Verdict::Inconclusive) {
      r.state = RolloutState::Paused;
      r.stopped_at = k;
      set_message(r, Message("rollout.paused_need", {{"stage", {stage_named(sr)}}, {"need", sr.need_text}}));
      break;
    }
    if (c.control && c.control->pause && k < last) {
      r.state = RolloutState::Paused;
      r.stopped_at = k + 1;
      set_message(r, Message("rollout.paused_by_person", {{"stage", std::to_string(k + 2)}}));
      break;
    }
  }
  if (r.state == RolloutState::Passed) set_message(r, passed_message(r));
  emit(c, events, RolloutEvent::Kind::Finished, r.stopped_at.value_or(last), r.message_text);
  return r;
}

}  // namespace anthro
