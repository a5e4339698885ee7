#include "rollout/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "metrics/stats.h"

namespace anthro {
namespace {

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Average ranks (1-based) of `all`, ties sharing their mean rank, and Σ(t³ − t) over tie groups.
std::vector<double> ranks(const std::vector<double>& all, double& tie_term) {
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  std::vector<double> rank(all.size());
  tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]]) ++j;
    double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return rank;
}

// P(U ≥ u) under H0 for samples of m and n without ties: counts of the orderings by U
// (f(m, n, u) = f(m − 1, n, u − n) + f(m, n − 1, u)), over C(m + n, m).
double exact_upper_tail(std::size_t m, std::size_t n, double u) {
  std::size_t max_u = m * n;
  // counts[j][v]: orderings of i x's and j y's with U = v, for the current i.
  std::vector<std::vector<double>> counts(n + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) counts[j][0] = 1;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0.0));
    for (std::size_t j = 0; j <= n; ++j)
      for (std::size_t v = 0; v <= i * j; ++v) {
        // The largest value is an x (it beats all j y's) or a y.
        double from_x = v >= j ? counts[j][v - j] : 0.0;
        double from_y = j > 0 ? next[j - 1][v] : 0.0;
        next[j][v] = from_x + from_y;
      }
    counts.swap(next);
  }
  double total = 0, tail = 0;
  for (std::size_t v = 0; v <= max_u; ++v) {
    total += counts[n][v];
    if (static_cast<double>(v) >= u - 1e-9) tail += counts[n][v];
  }
  return tail / total;
}

// Kolmogorov's limiting distribution: P(K > x).
double kolmogorov_sf(double x) {
  if (x <= 0) return 1;
  if (x < 0.3) {  // the series in exp(−(2k−1)² π² / 8x²) converges fast here
    double sum = 0;
    for (int k = 1; k <= 20; ++k) sum += std::exp(-std::pow(2 * k - 1, 2) * M_PI * M_PI / (8 * x * x));
    return std::clamp(1 - std::sqrt(2 * M_PI) / x * sum, 0.0, 1.0);
  }
  double sum = 0;
  for (int k = 1; k <= 100; ++k) sum += (k % 2 ? 1 : -1) * std::exp(-2.0 * k * k * x * x);
  return std::clamp(2 * sum, 0.0, 1.0);
}

}  // namespace

Interval wilson(std::uint64_t successes, std::uint64_t n, double z) {
  if (n == 0) return {0, 1};
  double nn = static_cast<double>(n), p = static_cast<double>(successes) / nn, z2 = z * z;
  double denominator = 1 + z2 / nn;
  double center = p + z2 / (2 * nn);
  double margin = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  return {std::max(0.0, (center - margin) / denominator), std::min(1.0, (center + margin) / denominator)};
}

std::optional<std::uint64_t> trials_needed(std::uint64_t successes, std::uint64_t n, double target, double z,
                                           std::uint64_t limit) {
  if (target >= 1) return std::nullopt;
  auto reaches = [&](std::uint64_t total) { return wilson(successes + (total - n), total, z).low >= target; };
  if (reaches(n) && n > 0) return 0;
  // The lower bound grows with every further success: find the first total that reaches it.
  std::uint64_t low = n, high = std::max<std::uint64_t>(n, 1);
  while (!reaches(high)) {
    if (high >= limit) return std::nullopt;
    low = high;
    high = std::min(limit, high * 2);
  }
  while (high - low > 1) {
    std::uint64_t mid = low + (high - low) / 2;
    (reaches(mid) ? high : low) = mid;
  }
  return high - n;
}

MannWhitney mann_whitney(std::span<const double> x, std::span<const double> y, Alternative alternative) {
  MannWhitney r;
  std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return r;
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  double tie_term = 0;
  std::vector<double> rank = ranks(all, tie_term);
  double r1 = 0;
  for (std::size_t i = 0; i < m; ++i) r1 += rank[i];
  double md = static_cast<double>(m), nd = static_cast<double>(n);
  r.u = r1 - md * (md + 1) / 2;
  // The statistic whose upper tail the alternative is about.
  double u = alternative == Alternative::Greater ? r.u : md * nd - r.u;
  if (tie_term == 0 && std::min(m, n) <= 8 && m * n <= 10000) {
    r.exact = true;
    r.p = exact_upper_tail(m, n, u);
    return r;
  }
  double total = md + nd;
  double sd = std::sqrt(md * nd / 12 * ((total + 1) - tie_term / (total * (total - 1))));
  r.p = sd > 0 ? normal_sf((u - md * nd / 2 - 0.5) / sd) : 1.0;
  return r;
}

KolmogorovSmirnov kolmogorov_smirnov(std::span<const double> x, std::span<const double> y) {
  KolmogorovSmirnov r;
  if (x.empty() || y.empty()) return r;
  std::vector<double> a(x.begin(), x.end()), b(y.begin(), y.end());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double v = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == v) ++i;
    while (j < b.size() && b[j] == v) ++j;
    double fa = static_cast<double>(i) / static_cast<double>(a.size());
    double fb = static_cast<double>(j) / static_cast<double>(b.size());
    r.d = std::max(r.d, std::abs(fa - fb));
  }
  double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
  r.p = kolmogorov_sf(r.d * std::sqrt(m * n / (m + n)));
  return r;
}

std::vector<double> bootstrap_p99_ratios(std::span<const double> candidate, std::span<const double> baseline,
                                         std::uint64_t seed, unsigned rounds) {
  std::vector<double> ratios;
  if (candidate.empty() || baseline.empty()) return ratios;
  std::mt19937_64 rng(seed);
  std::vector<double> draw;
  auto resampled_p99 = [&rng, &draw](std::span<const double> sample) {
    std::uniform_int_distribution<std::size_t> pick(0, sample.size() - 1);
    draw.resize(sample.size());
    for (double& v : draw) v = sample[pick(rng)];
    return percentile_unsorted(draw, 99);
  };
  ratios.reserve(rounds);
  for (unsigned k = 0; k < rounds; ++k) {
    double c = resampled_p99(candidate), b = resampled_p99(baseline);
    ratios.push_back(b > 0 ? c / b : NAN);
  }
  return ratios;
}

Interval bootstrap_p99_ratio(std::span<const double> candidate, std::span<const double> baseline, std::uint64_t seed,
                             unsigned rounds, double level) {
  if (candidate.empty() || baseline.empty() || rounds == 0) return {NAN, NAN};
  std::vector<double> ratios = bootstrap_p99_ratios(candidate, baseline, seed, rounds);
  double tail = (1 - level) / 2 * 100;
  return {percentile(ratios, tail), percentile(ratios, 100 - tail)};
}

Interval proportion_difference(std::uint64_t x, std::uint64_t n_x, std::uint64_t y, std::uint64_t n_y, double z) {
  if (n_x == 0 || n_y == 0) return {-1, 1};
  double px = static_cast<double>(x) / static_cast<double>(n_x), py = static_cast<double>(y) / static_cast<double>(n_y);
  Interval wx = wilson(x, n_x, z), wy = wilson(y, n_y, z);
  double d = px - py;
  double below = std::sqrt((px - wx.low) * (px - wx.low) + (wy.high - py) * (wy.high - py));
  double above = std::sqrt((wx.high - px) * (wx.high - px) + (py - wy.low) * (py - wy.low));
  return {std::max(-1.0, d - below), std::min(1.0, d + above)};
}

std::vector<double> holm_adjusted(std::span<const double> p) {
  std::vector<std::size_t> order(p.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 0;  // adjusted p-values never fall along the order
  for (std::size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(p.size() - k) * p[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

double normal_upper_quantile(double p) {
  double low = -40, high = 40;  // normal_sf falls from 1 to 0 across it
  for (int i = 0; i < 200 && high - low > 1e-12; ++i) {
    double mid = (low + high) / 2;
    (normal_sf(mid) > p ? low : high) = mid;
  }
  return (low + high) / 2;
}

Interval quantile_bounds(std::span<const double> sorted, double q, double confidence) {
  const double inf = std::numeric_limits<double>::infinity();
  Interval b{-inf, inf};
  const std::size_t n = sorted.size();
  if (n == 0 || q <= 0 || q >= 1) return b;
  // cdf[k] = P(Bin(n, q) ≤ k), summed from log-space terms so large n does not underflow.
  std::vector<double> cdf(n + 1);
  double sum = 0;
  for (std::size_t k = 0; k <= n; ++k) {
    double log_pmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(q) +
                     (n - k) * std::log1p(-q);
    sum += std::exp(log_pmf);
    cdf[k] = std::min(sum, 1.0);
  }
  for (std::size_t u = 1; u <= n; ++u)
    if (cdf[u - 1] >= confidence) {
      b.high = sorted[u - 1];
      break;
    }
  for (std::size_t l = n; l >= 1; --l)
    if (1 - cdf[l - 1] >= confidence) {  // P(Bin ≥ l)
      b.low = sorted[l - 1];
      break;
    }
  return b;
}

}  // namespace anthro
