#include "rollout/gates.h"

#include <cstdio>
#include <vector>

#include "metrics/stats.h"

namespace anthro {
namespace {

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g %%", v * 100);
  return buf;
}

}  // namespace

GateResult judge_rate(std::uint64_t successes, std::uint64_t n, double target) {
  GateResult g;
  g.n = n;
  g.statistic = n ? static_cast<double>(successes) / static_cast<double>(n) : 0;
  g.interval = wilson(successes, n);
  std::string seen = std::to_string(successes) + "/" + std::to_string(n) + ", 95 % bounds " + pct(g.interval.low) +
                     "–" + pct(g.interval.high) + " against " + pct(target);
  if (n > 0 && g.interval.low >= target) {
    g.verdict = Verdict::Pass;
    g.reason = seen;
  } else if (n > 0 && g.interval.high < target) {
    g.verdict = Verdict::Fail;
    g.reason = seen;
  } else {
    g.need_more = trials_needed(successes, n, target);
    g.reason = seen + (g.need_more ? "; need " + std::to_string(*g.need_more) + " more trials"
                                   : "; no number of further trials can prove it");
  }
  return g;
}

GateResult judge_latency(std::span<const double> candidate, std::span<const double> baseline, double margin,
                         std::uint64_t seed, std::size_t min_n) {
  GateResult g;
  g.n = std::min(candidate.size(), baseline.size());
  if (g.n < min_n) {
    g.need_more = min_n - g.n;
    g.reason = "need " + std::to_string(*g.need_more) + " more samples on each side";
    return g;
  }
  std::vector<double> shrunk(candidate.begin(), candidate.end());
  for (double& v : shrunk) v /= 1 + margin;
  MannWhitney shift = mann_whitney(shrunk, baseline, Alternative::Greater);
  g.p_value = shift.p;
  g.interval = bootstrap_p99_ratio(candidate, baseline, seed, 2000, 0.90);
  g.statistic = percentile(std::vector<double>(candidate.begin(), candidate.end()), 99) /
                percentile(std::vector<double>(baseline.begin(), baseline.end()), 99);
  double limit = 1 + margin;
  char line[200];
  std::snprintf(line, sizeof line, "P99 ratio %.3f (95 %% upper %.3f, limit %.3f); shift p = %.3g", g.statistic,
                g.interval.high, limit, shift.p);
  g.reason = line;
  if (shift.p < 0.05 || g.interval.low > limit) g.verdict = Verdict::Fail;
  else if (g.interval.high <= limit) g.verdict = Verdict::Pass;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

}  // namespace anthro
