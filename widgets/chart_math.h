// Computations behind LatencyCharts that need no QCustomPlot: the ITL log histogram (buckets,
// held samples, display bins), sorted-vector upkeep, percentiles of sorted values, tick steps,
// label spreading, colours and number formatting.
#pragma once

#include <QColor>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace anthro::widgets::chart_detail {

// ITL samples are kept as buckets of a log histogram (0.5% wide, from 1 µs to ~20 min):
// 2 bytes a sample, and the displayed bins are re-binned from the bucket counts in O(buckets).
constexpr double kItlMinMs = 1e-3;
constexpr double kItlGrowth = 1.005;
constexpr int kItlBuckets = 4200;

// The value that stands for each bucket (its geometric middle; 0 for bucket 0).
const std::vector<double>& itlBucketValues();
// Lower edge of a bucket (bucket 0, below 1 µs, starts at 0).
double bucketLow(int bucket);
std::uint16_t itlBucket(double ms);

// The ITL samples of one series as buckets, oldest first, with the count per bucket.
class ItlSamples {
 public:
  void add(double ms);
  // Drops the oldest samples until the first `end` ever added are gone (or none are held).
  void dropUpTo(std::uint64_t end);
  void dropBeyond(std::size_t max_held);  // drops the oldest beyond max_held
  std::size_t size() const { return buckets_.size(); }
  bool empty() const { return buckets_.empty(); }
  std::uint64_t added() const { return added_; }  // ever, dropped ones included
  const std::vector<std::uint64_t>& counts() const { return counts_; }

 private:
  void dropOne();
  std::deque<std::uint16_t> buckets_;
  std::uint64_t added_ = 0, dropped_ = 0;
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(kItlBuckets, 0);
};

// Display bins shared by both series.
struct HistogramBins {
  double start = 0, width = 1;
  std::size_t bins = 0;   // regular bins from start
  bool overflow = false;  // one more bar after them holds every sample beyond
  std::size_t barCount() const { return bins + (overflow ? 1 : 0); }
};

// Freedman-Diaconis width rounded to a nice step, 12..60 bins over min..p99.9 of the combined
// bucket counts (extended to the maximum when that stays readable, else an overflow bar).
// nullopt without samples.
std::optional<HistogramBins> histogramBins(const std::vector<std::uint64_t>& bucket_counts);
// One series' bucket counts spread over the bars, in whole samples that add up exactly.
std::vector<std::uint64_t> binCounts(const std::vector<std::uint64_t>& bucket_counts,
                                     const HistogramBins& bins);

double finiteOr(const std::optional<double>& v, double fallback);

// numpy's default ("linear") percentile of ascending values; NaN when empty. Not
// anthro::percentile (core/metrics/stats.h): that one takes unsorted samples and sorts a copy
// on every call, too slow for the charts' 10^6 values re-read on every update; this one reads
// the sorted vector the charts keep. (Interpolation is std::lerp; core's may differ in the
// last bit.)
double percentileOfSorted(const std::vector<double>& sorted, double p);
void mergeSorted(std::vector<double>& sorted, std::vector<double> add);
// Removes one occurrence of each value of `remove` (a sub-multiset of `sorted`).
void removeSorted(std::vector<double>& sorted, std::vector<double> remove);

// Rounds a positive step up to 1, 2, 2.5 or 5 times a power of ten.
double niceStep(double step);

// Moves label centres (ascending pixel y) apart by at least `gap`, keeping them in
// top..bottom where there is room.
void spreadLabels(std::vector<double>& ys, double gap, double top, double bottom);

QColor mix(const QColor& a, const QColor& b, double t);
QColor withAlpha(QColor c, int alpha);
QString formatMs(double v);

}  // namespace anthro::widgets::chart_detail
