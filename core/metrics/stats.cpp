#include "metrics/stats.h"

#include <algorithm>
#include <cmath>

namespace anthro {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy's _lerp: from the nearer end, so t = 1 gives exactly b (it matters for bit-equal
// results against numpy, not for size).
double lerp(double a, double b, double t) {
  double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double percentile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || !(p >= 0 && p <= 100)) return kNaN;
  double rank = p / 100 * static_cast<double>(sorted.size() - 1);
  double below = std::floor(rank);
  auto lo = static_cast<std::size_t>(below);
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return lerp(sorted[lo], sorted[hi], rank - below);
}

bool has_nan(std::span<const double> samples) {
  return std::any_of(samples.begin(), samples.end(), [](double x) { return std::isnan(x); });
}

}  // namespace

double mean_of(std::span<const double> samples) {
  double sum = 0;
  for (double x : samples) sum += x;
  return sum / static_cast<double>(samples.size());
}

// Two passes, as numpy's std: the one-pass formula loses digits when the spread is small
// against the mean (ITLs of 20 ms ± 1 µs).
double population_stddev(std::span<const double> samples, double mean) {
  double squares = 0;
  for (double x : samples) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / static_cast<double>(samples.size()));
}

double percentile(std::vector<double> samples, double p) {
  if (has_nan(samples)) return kNaN;
  std::sort(samples.begin(), samples.end());
  return percentile_of_sorted(samples, p);
}

double percentile_unsorted(std::vector<double>& samples, double p) {
  if (samples.empty() || !(p >= 0 && p <= 100) || has_nan(samples)) return kNaN;
  double rank = p / 100 * static_cast<double>(samples.size() - 1);
  double below = std::floor(rank);
  auto lo = samples.begin() + static_cast<std::ptrdiff_t>(below);
  std::nth_element(samples.begin(), lo, samples.end());
  double hi = lo + 1 == samples.end() ? *lo : *std::min_element(lo + 1, samples.end());
  return lerp(*lo, hi, rank - below);
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  if (has_nan(samples)) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.p50 = percentile_of_sorted(sorted, 50);
  s.p90 = percentile_of_sorted(sorted, 90);
  s.p95 = percentile_of_sorted(sorted, 95);
  s.p99 = percentile_of_sorted(sorted, 99);
  s.mean = mean_of(samples);
  s.stddev = population_stddev(samples, s.mean);
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

}  // namespace anthro
