// Session affinity's rollout gate (profiles/session-affinity.md, "Rollout"): the candidate's
// context slots in use, as its /metrics says at the stage's end (the emulated GPU instance's
// gauges, session_slots.h), judged against the plan's bound.
#include <cmath>
#include <cstdio>

#include "affinity/format.h"
#include "endpoint/prometheus.h"
#include "rollout/plan_metric.h"

namespace anthro::affinity_plan {

std::string refuse_slot_threshold(double threshold) {
  return threshold > 0 && threshold <= 1 ? "" : "slot utilisation is a fraction above 0, at most 1";
}

// Context slots used ÷ slots.
GateResult slot_gate(std::string_view metrics, double threshold) {
  GateResult g;
  g.interval = {std::nan(""), std::nan("")};  // one reading: a value, not an estimate
  auto used = prometheus_sample(metrics, "anthropic_gpu_context_slots_used");
  auto slots = prometheus_sample(metrics, "anthropic_gpu_context_slots");
  if (!used || !slots || *slots <= 0) {
    set_reason(g, {Message("sa.slot_gate.no_metrics")});
    return g;
  }
  g.n = 1;
  g.statistic = *used / *slots;
  g.verdict = g.statistic < threshold ? Verdict::Pass : Verdict::Fail;
  set_reason(g, {Message("sa.slot_gate", {{"used", message_printf("%.0f", *used)}, {"slots", message_printf("%.0f", *slots)},
                                          {"share", message_printf("%.1f", g.statistic * 100)}})});
  return g;
}

}  // namespace anthro::affinity_plan

namespace anthro {

namespace {

const MessageTemplate kSlotGateMessages[] = {
    {"sa.slot_gate.no_metrics", "the candidate's metrics have no anthropic_gpu_context_slots_used and anthropic_gpu_context_slots",
     "候选的指标中没有 anthropic_gpu_context_slots_used 和 anthropic_gpu_context_slots"},
    {"sa.slot_gate", "{used} of {slots} context slots used ({share} %)", "{slots} 个上下文槽已用 {used} 个（{share} %）"},
};

}  // namespace

void register_session_affinity_plan_metrics() {
  register_messages(kSlotGateMessages);
  register_plan_metric({.name = "slot-utilisation", .what = "slot utilisation",
                        .refuse_threshold = affinity_plan::refuse_slot_threshold, .judge = affinity_plan::slot_gate});
}

}  // namespace anthro
