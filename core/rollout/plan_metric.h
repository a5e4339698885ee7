// A gate metric a wire format registers from its folder, for a plan of its own: one reading of
// the candidate's /metrics (Prometheus text) at the stage's end. A registered metric is numbered
// after the built-in GateMetric values, so plans, results and the pages carry it as they carry
// the others.
#pragma once

#include <string>
#include <string_view>

#include "rollout/gates.h"
#include "rollout/plan.h"

namespace anthro {

struct PlanMetric {
  std::string name;  // the plan files' spelling of "metric"
  std::string what;  // what it judges, for the reason when the candidate has no metrics source
  // Why a plan's threshold for it is refused, or "" (it is not a rate: a bound above 0).
  std::string (*refuse_threshold)(double threshold) = nullptr;
  // The gate's result from the candidate's Prometheus text, against the threshold.
  GateResult (*judge)(std::string_view metrics, double threshold) = nullptr;
};

// Adds a metric and returns its number; a name some metric already has throws. Called from a
// format's register function (register_builtin_formats), before any plan is read.
GateMetric register_plan_metric(PlanMetric m);
// The registered metric `m`; null for a built-in one.
const PlanMetric* plan_metric(GateMetric m);

}  // namespace anthro
