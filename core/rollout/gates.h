// Gates of a rollout stage judged on the statistics of statistics.h: a gate never passes on
// thin data — too few samples give inconclusive, with the samples still needed.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "diagnosis/checklist.h"
#include "rollout/statistics.h"
#include "util/message.h"

namespace anthro {

struct GateResult {
  Verdict verdict = Verdict::Inconclusive;
  double statistic = 0;          // the observed rate, or the P99 ratio
  Interval interval;             // Wilson bounds, or the bootstrap interval of the ratio
  std::size_t n = 0;
  std::optional<std::uint64_t> need_more;  // inconclusive rate gates: trials still needed
  std::optional<double> p_value;           // latency gates: the one-sided Mann-Whitney p
  // The evidence of "worse" as one p-value, so a family of judgements can be corrected (Holm):
  // latency, min(1, shift p, 2 × the bootstrap's share of ratios at or under the limit), which is
  // < 0.05 exactly when one of the two rules below fails the gate; rates, the one-sided p of
  // the difference being over the margin.
  std::optional<double> worse_p;
  std::string reason;       // in English (the JSON's `reason`)
  MessageText reason_text;  // the same, to render in any language (util/message.h)
  std::string unit;  // of the statistic, when the gate's plan entry names none
};

// Sets the reason (both forms), or adds a message to it ("; " between).
void set_reason(GateResult& g, MessageText text);
void add_reason(GateResult& g, Message m);
// The gates' texts in the message catalogue.
void register_rollout_messages();

// "rate ≥ target": pass when the lower one-sided 95 % Wilson bound reaches the target, fail when
// the upper bound stays below it, else inconclusive with the trials still needed.
GateResult judge_rate(std::uint64_t successes, std::uint64_t n, double target);

// "rate of bad events ≤ limit" (drops, a status, errors): judge_rate on the good events, with
// the statistic and interval given back as the bad rate.
GateResult judge_bad_rate(std::uint64_t bad, std::uint64_t n, double limit);

// Which way a figure gets better: latencies lower, throughput higher.
enum class Better { Lower, Higher };

// "candidate latency not worse than baseline by more than `margin`" (0.05 = 5 %): fail when a
// one-sided Mann-Whitney U (α = 0.05) finds the candidate, shrunk by 1 + margin, still slower,
// or when the two-sided 95 % bootstrap interval of the P99 ratio lies wholly above 1 + margin;
// pass when the test finds nothing and the interval's upper end stays ≤ 1 + margin; else
// inconclusive. (The shrunk shift test rarely fires on equal arms, so the two together keep an
// A/A comparison's false failures under 5 %.)
// Fewer than `min_n` samples on either side is inconclusive.
// A higher-is-better figure (tokens per second) is judged on its reciprocal (time per token): the
// rank test does not change under it, and the tail that hurts, the slowest 1 %, becomes the P99
// (its statistic and interval are then ratios of the reciprocals' P99s).
GateResult judge_latency(std::span<const double> candidate, std::span<const double> baseline, double margin,
                         std::uint64_t seed, std::size_t min_n = 20, Better better = Better::Lower);

// "candidate rate of bad events not above the baseline's by more than `margin` (absolute)":
// fail when the lower one-sided 95 % bound of Newcombe's interval of the difference
// (candidate − baseline) is over the margin, pass when its upper bound is at most the margin,
// else inconclusive. statistic: the difference; interval: its bounds.
GateResult judge_rate_difference(std::uint64_t bad_candidate, std::uint64_t n_candidate, std::uint64_t bad_baseline,
                                 std::uint64_t n_baseline, double margin);

// "P99 < bound" (an absolute SLO): pass when the distribution-free upper 95 % bound of the P99
// is below `bound`, fail when the lower one is not, else inconclusive with the samples still
// needed if every further one were under the bound.
GateResult judge_p99_below(std::span<const double> samples, double bound, std::size_t min_n = 20);

}  // namespace anthro
