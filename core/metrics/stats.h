// Exact statistics over timing samples (spec §6): percentiles as numpy's default method
// ("linear": interpolation between closest ranks), standard deviations with ddof 0.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace anthro {

// p in 0..100, as np.percentile(samples, p). NaN for no samples, for p outside 0..100,
// and when a sample is NaN (as numpy, which propagates NaN).
double percentile(std::vector<double> samples, double p);
// The same value as percentile(), by partial selection instead of a sort: for many percentiles of
// large resamples (the bootstrap). Reorders `samples`.
double percentile_unsorted(std::vector<double>& samples, double p);
// summarize()'s mean and population stddev (two passes, as numpy's std) of samples, in their order.
double mean_of(std::span<const double> samples);
double population_stddev(std::span<const double> samples, double mean);

struct Summary {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0;
  double p50 = kNone, p90 = kNone, p95 = kNone, p99 = kNone, mean = kNone, stddev = kNone,
         min = kNone, max = kNone;
};

// stddev is the population one (ddof 0). For n = 0 every figure is NaN: callers write null.
// A NaN sample makes every figure NaN, as in numpy.
Summary summarize(std::span<const double> samples);

}  // namespace anthro
