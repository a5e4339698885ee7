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
};

// "rate ≥ target": pass when the lower one-sided 95 % Wilson bound reaches the target, fail when
// the upper bound stays below it, else inconclusive with the trials still needed.
GateResult judge_rate(std::uint64_t successes, std::uint64_t n, double target);

// "candidate latency not worse than baseline by more than `margin`" (0.05 = 5 %): fail when a
// one-sided Mann-Whitney U (α = 0.05) finds the candidate, shrunk by 1 + margin, still slower,
// or when the bootstrap interval of the P99 ratio lies wholly above 1 + margin; pass when the
// test finds nothing and the interval's upper end stays ≤ 1 + margin; else inconclusive.
// Fewer than `min_n` samples on either side is inconclusive.
GateResult judge_latency(std::span<const double> candidate, std::span<const double> baseline, double margin,
                         std::uint64_t seed, std::size_t min_n = 20);

}  // namespace anthro
