#include "rollout/gates.h"

#include <algorithm>
#include <cstdio>
#include <limits>
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

GateResult judge_bad_rate(std::uint64_t bad, std::uint64_t n, double limit) {
  GateResult g = judge_rate(n - std::min(bad, n), n, 1 - limit);
  g.statistic = n ? static_cast<double>(bad) / static_cast<double>(n) : 0;
  g.interval = {1 - g.interval.high, 1 - g.interval.low};
  std::string seen = std::to_string(bad) + "/" + std::to_string(n) + ", 95 % bounds " + pct(g.interval.low) + "–" +
                     pct(g.interval.high) + " against " + pct(limit);
  if (g.verdict != Verdict::Inconclusive) g.reason = seen;
  else g.reason = seen + (g.need_more ? "; need " + std::to_string(*g.need_more) + " more trials" : "; cannot be proven");
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
  g.interval = bootstrap_p99_ratio(candidate, baseline, seed, 2000, 0.95);
  g.statistic = percentile(std::vector<double>(candidate.begin(), candidate.end()), 99) /
                percentile(std::vector<double>(baseline.begin(), baseline.end()), 99);
  double limit = 1 + margin;
  char line[200];
  std::snprintf(line, sizeof line, "P99 ratio %.3f (95 %% interval %.3f–%.3f, limit %.3f); shift p = %.3g", g.statistic,
                g.interval.low, g.interval.high, limit, shift.p);
  g.reason = line;
  if (shift.p < 0.05 || g.interval.low > limit) g.verdict = Verdict::Fail;
  else if (g.interval.high <= limit) g.verdict = Verdict::Pass;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

namespace {

// Whether the upper bound of the P99 is under `bound` once `extra` samples below it are added.
bool proven_below(const std::vector<double>& sorted, double bound, std::size_t extra) {
  std::vector<double> more(extra, -std::numeric_limits<double>::infinity());
  more.insert(more.end(), sorted.begin(), sorted.end());
  return quantile_bounds(more, 0.99).high < bound;
}

std::optional<std::uint64_t> samples_needed(const std::vector<double>& sorted, double bound) {
  const std::size_t limit = 1'000'000;
  std::size_t high = 1;
  while (high < limit && !proven_below(sorted, bound, high)) high *= 2;
  if (!proven_below(sorted, bound, high)) return std::nullopt;
  std::size_t low = high / 2;  // not enough (or 0)
  while (high - low > 1) {
    std::size_t mid = (low + high) / 2;
    (proven_below(sorted, bound, mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace

GateResult judge_p99_below(std::span<const double> samples, double bound, std::size_t min_n) {
  GateResult g;
  g.n = samples.size();
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  if (g.n < std::max<std::size_t>(min_n, 1)) {
    g.need_more = std::max<std::size_t>(min_n, 1) - g.n;
    g.reason = "need " + std::to_string(*g.need_more) + " more samples";
    return g;
  }
  g.statistic = percentile(sorted, 99);
  g.interval = quantile_bounds(sorted, 0.99);
  char line[200];
  std::snprintf(line, sizeof line, "P99 %.1f (95 %% bounds %.1f–%.1f) against < %.1f, n = %zu", g.statistic,
                g.interval.low, g.interval.high, bound, g.n);
  g.reason = line;
  if (g.interval.high < bound) {
    g.verdict = Verdict::Pass;
  } else if (g.interval.low >= bound) {
    g.verdict = Verdict::Fail;
  } else {
    g.need_more = samples_needed(sorted, bound);
    g.reason += g.need_more ? "; need " + std::to_string(*g.need_more) + " more samples" : "; cannot be proven";
  }
  return g;
}

}  // namespace anthro
