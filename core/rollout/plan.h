// Rollout plans as data (resources/rollout-plans/*.json, schema beside them): stages with their
// split and gates. A malformed plan is refused naming the file, the stage, the gate and the field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/checklist.h"
#include "util/result.h"

namespace anthro {

enum class SplitMode { Route, Mirror, Verify, Region };
enum class GateMetric {
  ConnectionSuccessRate, FrameDropRate, ResponseMatchRate, WriteConsistencyRate, StatusRate, ContextErrorRate,
  TtftP99Ratio, TtftP99, TtftP99Improvement, RollbackRehearsal, ChecklistItem
  // then the metrics formats registered (rollout/plan_metric.h), numbered in their order
};
enum class GateCompare { AtLeast, AtMost, Below, NotWorse, Passes, Recorded };
// The plan files' spellings: "route", "connection-success-rate", ">=", ...
const char* to_string(SplitMode m);
const char* to_string(GateMetric m);
const char* to_string(GateCompare c);
std::optional<SplitMode> parse_split_mode(std::string_view text);
// A metric that is a rate (a fraction 0–1 judged by Wilson bounds); the others are latencies,
// ratios or checks.
bool is_rate(GateMetric m);
std::optional<GateMetric> parse_gate_metric(std::string_view text);
std::optional<GateCompare> parse_gate_compare(std::string_view text);

struct PlanGate {
  std::string id;
  GateMetric metric = GateMetric::ConnectionSuccessRate;
  GateCompare comparison = GateCompare::AtLeast;
  std::optional<double> threshold, margin;
  std::optional<int> status;        // status-rate: the response status counted
  std::optional<std::string> item;  // checklist-item: the item that must pass
  std::string unit;
  std::size_t min_n = 0;
};

struct PlanStage {
  std::string name;
  LocalizedText title, rollback;
  double split = 0;
  SplitMode mode = SplitMode::Route;
  std::string region;  // region mode: the region's name (its endpoint is given when running)
  std::uint64_t requests = 0;
  double interval_s = 0;
  unsigned failure_limit = 0, inconclusive_limit = 0, consecutive_error_limit = 0;
  std::vector<PlanGate> gates;
};

struct RolloutPlan {
  // `profile`: the registered format the plan's candidate speaks (a format riding on HTTP: its
  // clients carry it on the Messages API), or empty.
  std::string id, source, profile;
  LocalizedText title;
  std::vector<PlanStage> stages;
};

// Errors (class input) say "FILE: stage N ("name"): gate M ("id"): field F: why"; values out
// of range are refused too (a rate threshold outside 0–1, a latency bound ≤ 0, a margin < 0).
Result<RolloutPlan> parse_plan(std::string_view json, const std::string& origin);
Result<RolloutPlan> load_plan(const std::string& path);
// The plans of resources/rollout-plans/, compiled in: anthro-v1's five stages first.
const std::vector<RolloutPlan>& builtin_rollout_plans();
// The built-in plan id an old one was renamed to, else `id` itself: scripts and saved results
// may still name a plan by its old id.
std::string current_plan_id(std::string_view id);
// A plan by built-in id ("anthro-v1-five-stages", or an old id), else the file at `id_or_path`.
Result<RolloutPlan> find_plan(const std::string& id_or_path);

}  // namespace anthro
