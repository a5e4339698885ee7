// The statistics of the rollout judge (checklists.md "Grayscale rollout"): one-sided Wilson
// bounds for rate gates and how many more trials a gate needs, one-sided Mann-Whitney U for a
// shift of a latency distribution, a seeded bootstrap interval of the candidate/baseline P99
// ratio (tail-aware), and the two-sample Kolmogorov-Smirnov distance.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace anthro {

// The z of a one-sided 95 % bound: the 0.95 quantile of the standard normal.
inline constexpr double kZ95 = 1.6448536269514722;

struct Interval {
  double low = 0, high = 0;
};

// Wilson score bounds of a proportion: `successes` of `n`, each bound one-sided at `z`.
// n = 0 gives [0, 1].
Interval wilson(std::uint64_t successes, std::uint64_t n, double z = kZ95);

// A gate "rate ≥ target": the trials still needed, if all further trials succeed, before the
// lower Wilson bound reaches `target`; 0 when it already does; nullopt when no number of
// trials can (target 1, or so many failures that it never will within `limit` trials).
std::optional<std::uint64_t> trials_needed(std::uint64_t successes, std::uint64_t n, double target,
                                           double z = kZ95, std::uint64_t limit = 1'000'000'000);

enum class Alternative { Greater, Less };

struct MannWhitney {
  double u = 0;         // U of the first sample: pairs (x, y) with x > y, ties counting ½
  double p = 1;         // one-sided p-value for `alternative`
  bool exact = false;   // from the exact distribution (small samples, no ties)
};

// One-sided Mann-Whitney U of x against y. Exact when both samples are small (< 8 each, as
// SciPy's "auto") and there are no ties; otherwise the normal approximation with tie correction
// and continuity correction.
MannWhitney mann_whitney(std::span<const double> x, std::span<const double> y, Alternative alternative);

// The two-sample Kolmogorov-Smirnov distance D = sup |F_x − F_y| and its asymptotic two-sided
// p-value, Q_KS(D √(m n / (m + n))) from Kolmogorov's limiting distribution.
struct KolmogorovSmirnov {
  double d = 0;
  double p = 1;
};
KolmogorovSmirnov kolmogorov_smirnov(std::span<const double> x, std::span<const double> y);

// A percentile-bootstrap interval (two-sided `level`) of P99(candidate) / P99(baseline), both
// samples resampled with replacement `rounds` times from a generator seeded with `seed`.
Interval bootstrap_p99_ratio(std::span<const double> candidate, std::span<const double> baseline, std::uint64_t seed,
                             unsigned rounds = 2000, double level = 0.90);
// The `rounds` resampled ratios behind that interval, in the order drawn (the same seed gives the
// same ratios): what a one-sided bootstrap p-value counts.
std::vector<double> bootstrap_p99_ratios(std::span<const double> candidate, std::span<const double> baseline,
                                         std::uint64_t seed, unsigned rounds = 2000);

// Newcombe's hybrid score interval (his method 10, built from the two Wilson intervals) of the
// difference of two proportions, p_x − p_y with p_x = x / n_x, each bound one-sided at `z`.
// An empty side gives [−1, 1].
Interval proportion_difference(std::uint64_t x, std::uint64_t n_x, std::uint64_t y, std::uint64_t n_y, double z = kZ95);

// Holm's step-down adjustment of a family of p-values (same order as given): the family-wise
// error rate stays at α when each hypothesis with adjusted p < α is rejected.
std::vector<double> holm_adjusted(std::span<const double> p);

// The z with P(Z > z) = p for a standard normal Z (p in (0, 1)).
double normal_upper_quantile(double p);

// Distribution-free bounds of the q-quantile from sorted samples, each one-sided at
// `confidence`: the order statistics whose ranks Binomial(n, q) gives (the upper bound is
// x(u) for the least u with P(Bin(n, q) ≤ u − 1) ≥ confidence). A bound no rank reaches is
// −infinity or +infinity: with no failures, proving P99 needs n ≥ ln 0.05 / ln 0.99 ≈ 299.
Interval quantile_bounds(std::span<const double> sorted, double q, double confidence = 0.95);

}  // namespace anthro
