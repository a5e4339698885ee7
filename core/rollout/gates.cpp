#include "rollout/gates.h"

#include <algorithm>
#include <cmath>
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

namespace {

std::vector<double> judged_values(std::span<const double> samples, Better better) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (double v : samples)
    if (better == Better::Lower) out.push_back(v);
    else if (v > 0) out.push_back(1 / v);  // a rate of 0 has no time per token
  return out;
}

}  // namespace

GateResult judge_latency(std::span<const double> candidate_in, std::span<const double> baseline_in, double margin,
                         std::uint64_t seed, std::size_t min_n, Better better) {
  GateResult g;
  const std::vector<double> candidate = judged_values(candidate_in, better), baseline = judged_values(baseline_in, better);
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
  std::vector<double> ratios = bootstrap_p99_ratios(candidate, baseline, seed, 2000);
  g.interval = {percentile(ratios, 2.5), percentile(ratios, 97.5)};  // bootstrap_p99_ratio at level 0.95
  g.statistic = percentile(candidate, 99) / percentile(baseline, 99);
  double limit = 1 + margin;
  double at_or_under = static_cast<double>(std::count_if(ratios.begin(), ratios.end(), [&](double r) { return !(r > limit); }));
  g.worse_p = std::min({1.0, shift.p, 2 * at_or_under / static_cast<double>(ratios.size())});
  char line[200];
  std::snprintf(line, sizeof line, "P99 ratio %.3f (95 %% interval %.3f–%.3f, limit %.3f); shift p = %.3g", g.statistic,
                g.interval.low, g.interval.high, limit, shift.p);
  g.reason = line;
  if (better == Better::Higher) g.reason += " (on the time per unit)";
  if (shift.p < 0.05 || g.interval.low > limit) g.verdict = Verdict::Fail;
  else if (g.interval.high <= limit) g.verdict = Verdict::Pass;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

GateResult judge_rate_difference(std::uint64_t bad_candidate, std::uint64_t n_candidate, std::uint64_t bad_baseline,
                                 std::uint64_t n_baseline, double margin) {
  GateResult g;
  g.n = std::min(n_candidate, n_baseline);
  auto rate = [](std::uint64_t bad, std::uint64_t n) { return n ? static_cast<double>(bad) / static_cast<double>(n) : 0.0; };
  g.statistic = rate(bad_candidate, n_candidate) - rate(bad_baseline, n_baseline);
  g.interval = proportion_difference(bad_candidate, n_candidate, bad_baseline, n_baseline);
  // The one-sided p of "difference > margin": the z at which the lower bound meets the margin.
  auto lower_at = [&](double z) { return proportion_difference(bad_candidate, n_candidate, bad_baseline, n_baseline, z).low; };
  double low = 0, high = 40;
  if (lower_at(0) <= margin) high = 0;
  for (int i = 0; i < 100 && high - low > 1e-9; ++i) (lower_at((low + high) / 2) > margin ? low : high) = (low + high) / 2;
  g.worse_p = 0.5 * std::erfc(low / std::sqrt(2.0));
  char line[200];
  std::snprintf(line, sizeof line, "%llu/%llu against %llu/%llu: difference %+.4g (95 %% bounds %+.4g to %+.4g, margin %.4g)",
                static_cast<unsigned long long>(bad_candidate), static_cast<unsigned long long>(n_candidate),
                static_cast<unsigned long long>(bad_baseline), static_cast<unsigned long long>(n_baseline), g.statistic,
                g.interval.low, g.interval.high, margin);
  g.reason = line;
  if (n_candidate == 0 || n_baseline == 0) g.verdict = Verdict::Inconclusive;
  else if (g.interval.low > margin) g.verdict = Verdict::Fail;
  else if (g.interval.high <= margin) g.verdict = Verdict::Pass;
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
