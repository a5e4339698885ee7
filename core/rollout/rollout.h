// A grayscale-rollout rehearsal (cli.md `rollout`, checklists.md "Grayscale rollout"): each
// stage of a plan drives the same workload to a baseline and a candidate target in the stage's
// split, judges every gate (gates.h) and follows Argo's loop: `fail` stops and rolls back,
// `inconclusive` pauses for a person, who resumes (pooling more samples, or promoting).
// The CLI, the GUI's Rollout page and the tests all call run_rollout.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/stats.h"
#include "rollout/gates.h"
#include "rollout/plan.h"
#include "session/session.h"
#include "util/message.h"

namespace anthro {

enum class RolloutState { Passed, Failed, Paused, RolledBack };
const char* to_string(RolloutState s);  // "passed", "failed", "paused", "rolled_back"
std::optional<RolloutState> parse_rollout_state(std::string_view text);

struct GateOutcome {
  std::string id;
  GateMetric metric = GateMetric::ConnectionSuccessRate;
  GateCompare comparison = GateCompare::AtLeast;
  std::optional<double> threshold;  // the target rate, absolute bound, or 1 + margin of a ratio
  std::string unit;
  GateResult result;
};

// Counts a stage pools across resumes, so "need N more" is met by running more of the stage.
struct StageSamples {
  std::uint64_t workload = 0;                         // the stage's requests so far (the next one's id follows)
  std::uint64_t requests = 0, connection_ok = 0;      // candidate requests, and those whose connection held
  std::uint64_t frames = 0, frames_dropped = 0;       // candidate anthro-v1 frames
  std::uint64_t compared = 0, matched = 0;            // candidate answers compared with the baseline's
  std::uint64_t verified = 0, consistent = 0;         // candidate answers re-checked on the baseline
  std::map<int, std::uint64_t> statuses;              // candidate error statuses (409, 400, ...)
  std::vector<double> ttft_baseline_ms, ttft_candidate_ms;
};

struct RollbackRehearsal {
  double seconds = 0;              // from the switch until no candidate socket was left
  unsigned sessions = 0;           // candidate connections open at the switch
  std::uint64_t requests_after = 0, failed_after = 0;  // served by the baseline after the switch
  int fds_before = 0, fds_after = 0;  // the process's open descriptors, before the load and after it
  int candidate_sockets_after = 0;    // this process's sockets still connected to the candidate
  bool clean() const { return candidate_sockets_after == 0 && fds_after <= fds_before; }
};

struct StageResult {
  std::size_t index = 0;  // 0-based; shown as index + 1
  std::string name;
  LocalizedText title;
  SplitMode mode = SplitMode::Route;
  double split = 0;
  std::string candidate;  // the target the candidate arm used (a region's endpoint in region mode)
  StageSamples samples;
  Summary ttft_baseline, ttft_candidate;
  std::vector<GateOutcome> gates;
  Verdict verdict = Verdict::Inconclusive;  // pass, fail or inconclusive
  std::optional<RollbackRehearsal> rollback;
  bool promoted = false;  // a person let it through while inconclusive
  std::vector<std::string> warnings;
  std::string need;  // inconclusive: what more it needs, for a person ("connection-success: 26053 more trials")
  MessageText need_text;  // the same, to render in any language
};

struct RolloutResult {
  static constexpr int kSchemaVersion = 1;
  std::string plan_id, plan_origin;
  LocalizedText plan_title;
  std::string baseline, candidate;
  std::map<std::string, std::string> regions;
  bool embedded_endpoint = false;  // the targets were the workbench's own endpoint (a resume starts a new one)
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> requests_per_stage;
  std::size_t last_stage = 0;  // the last stage asked for (0-based)
  std::vector<StageResult> stages;  // those run, in order
  RolloutState state = RolloutState::Passed;
  std::optional<std::size_t> stopped_at;  // the stage that failed or paused
  std::optional<RollbackRehearsal> rollback;  // after a failure or a person's "roll back"
  std::string message;  // "paused at stage 1 (shadow): need …", "stage 4 (region) failed: …"
  MessageText message_text;  // the same, to render in any language
};

// What a person asks of a running rollout (the GUI's buttons; the CLI's SIGINT). Another
// thread sets them; the rollout reads them between requests.
struct RolloutControl {
  std::atomic<bool> pause{false};      // finish the requests in flight, judge, pause
  std::atomic<bool> roll_back{false};  // stop and roll back now
};

// The stage requests an inconclusive stage still needs for every gate's "need N more" (rate
// gates count candidate trials, the others samples on each side): the largest need, over the
// share of the stage's requests its candidate arm gets. None when no gate says.
std::optional<std::uint64_t> requests_to_settle(const StageResult& stage);

struct RolloutEvent {
  enum class Kind { StageStarted, Progress, StageFinished, RollbackStarted, Finished } kind = Kind::Progress;
  std::size_t stage = 0;
  std::string line;                 // for a person, in English
  MessageText text;                 // the same line as messages, for the reader's language
  const StageResult* result = nullptr;  // StageFinished: the stage; valid during the callback only
  // Progress: a finished request's arm, when it was sent (seconds since the rollout began) and
  // its TTFT, for live charts.
  bool candidate_arm = false;
  std::optional<double> sent_s, ttft_ms;
  std::optional<std::uint64_t> request;  // Progress: the request of the stage that ended (none: a line only)
};

struct RolloutConfig {
  RolloutPlan plan;
  std::string plan_origin;
  SessionConfig session;  // trust, API key, model; its target is ignored
  std::string baseline, candidate;
  std::map<std::string, std::string> regions;  // region name → URL; a region not named uses the candidate
  bool embedded_endpoint = false;              // the targets are the workbench's own endpoint
  std::size_t first_stage = 0, last_stage = SIZE_MAX;  // 0-based, inclusive
  std::optional<std::uint64_t> requests_per_stage;     // else each stage's own count
  unsigned concurrency = 4;                            // connections per arm
  std::uint64_t seed = 1;
  double rollback_load_s = 1.0;         // the rollback rehearsal's load before the switch
  std::optional<RolloutResult> resume;  // continue this result: pool more samples into its stopped stage
  bool promote = false;                 // with resume: a person lets the paused stage through
  // With resume: the paused stage's next batch (then its usual one), to meet what its gates
  // need (requests_to_settle).
  std::optional<std::uint64_t> more_requests;
  RolloutControl* control = nullptr;
  std::function<void(const RolloutEvent&)> on_event;  // on the rollout's thread
  // The candidate's Prometheus text (its /metrics), read at each stage's end by the gates of
  // metrics formats registered (rollout/plan_metric.h); unset, those gates are inconclusive.
  std::function<std::string()> candidate_metrics;
};

// Errors: a bad target, stage range or resume file (usage/input). Network trouble is judged
// by the gates, not an error. An error about one of the config's inputs has the input's name
// as its reason (kRolloutInputs) and a detail that starts with it in the interface's words
// ("baseline: …", "region eu: …", "stage 8: …", "resume: …"): a caller that names the input
// its own way (the CLI: "--baseline: …") can tell which it is.
Result<RolloutResult> run_rollout(const RolloutConfig& config);
inline constexpr std::string_view kRolloutInputs[] = {"baseline", "candidate", "region", "stage", "resume"};

// Switches every open candidate session back to the baseline while load runs (checklists.md
// stage 5), measuring the time and the sockets left behind.
RollbackRehearsal rehearse_rollback(const SessionConfig& session, const std::string& baseline,
                                    const std::string& candidate, unsigned connections, double load_s = 1.0);

// The result JSON (kind "rollout"; the report issue renders it) and its reader for --resume.
std::string rollout_json(const RolloutResult& r, std::string_view lang = "en");
// The outcome in Prometheus text format (anthro_wb_rollout_*), each sample with `labels` and
// the plan's id: the rollout's state, each stage's verdict, requests and TTFT by arm, each gate's verdict.
std::string rollout_prometheus(const RolloutResult& r, const PrometheusLabels& labels);
Result<RolloutResult> parse_rollout_result(std::string_view json, const std::string& origin);
// One block per stage, a line per gate, for a person.
std::string rollout_text(const RolloutResult& r, std::string_view lang = "en");

}  // namespace anthro
