// Gates of a rollout stage judged on the statistics of statistics.h: a gate never passes on
// thin data — too few samples give inconclusive, with the samples still needed.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "diagnosis/checklist.h"
#include "rollout/statistics.h"

namespace anthro {

struct GateResult {
  Verdict verdict = Verdict::Inconclusive;
  double statistic = 0;          // the observed rate, or the P99 ratio
  Interval interval;             // Wilson bounds, or the bootstrap interval of the ratio
  std::size_t n = 0;
  std::optional<std::uint64_t> need_more;  // inconclusive rate gates: trials still needed
  std::optional<double> p_value;           // latency gates: the one-sided Mann-Whitney p
  std::string reason;
  std::string unit;  // of the statistic, when the gate's plan entry names none
};

// "rate ≥ target": pass when the lower one-sided 95 % Wilson bound reaches the target, fail when
// the upper bound stays below it, else inconclusive with the trials still needed.
GateResult judge_rate(std::uint64_t successes, std::uint64_t n, double target);

// "rate of bad events ≤ limit" (drops, a status, errors): judge_rate on the good events, with
// the statistic and interval given back as the bad rate.
GateResult judge_bad_rate(std::uint64_t bad, std::uint64_t n, double limit);

// "candidate latency not worse than baseline by more than `margin`" (0.05 = 5 %): fail when a
// one-sided Mann-Whitney U (α = 0.05) finds the candidate, shrunk by 1 + margin, still slower,
// or when the two-sided 95 % bootstrap interval of the P99 ratio lies wholly above 1 + margin;
// pass when the test finds nothing and the interval's upper end stays ≤ 1 + margin; else
// inconclusive. (The shrunk shift test rarely fires on equal arms, so the two together keep an
// A/A comparison's false failures under 5 %.)
// Fewer than `min_n` samples on either side is inconclusive.
GateResult judge_latency(std::span<const double> candidate, std::span<const double> baseline, double margin,
                         std::uint64_t seed, std::size_t min_n = 20);

// "P99 < bound" (an absolute SLO): pass when the distribution-free upper 95 % bound of the P99
// is below `bound`, fail when the lower one is not, else inconclusive with the samples still
// needed if every further one were under the bound.
GateResult judge_p99_below(std::span<const double> samples, double bound, std::size_t min_n = 20);

}  // namespace anthro
