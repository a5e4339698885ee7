#include "chart_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anthro::widgets::chart_detail {

const std::vector<double>& itlBucketValues() {
  static const std::vector<double> values = [] {
    std::vector<double> v(kItlBuckets);
    v[0] = 0;  // below 1 µs
    for (int b = 1; b < kItlBuckets; ++b) v[b] = kItlMinMs * std::pow(kItlGrowth, b - 0.5);
    return v;
  }();
  return values;
}

double bucketLow(int bucket) {
  return bucket <= 0 ? 0 : kItlMinMs * std::pow(kItlGrowth, bucket - 1);
}

std::uint16_t itlBucket(double ms) {
  static const double log_growth = std::log(kItlGrowth);
  if (!(ms >= kItlMinMs)) return 0;
  double b = std::floor(std::log(ms / kItlMinMs) / log_growth) + 1;
  return static_cast<std::uint16_t>(std::min<double>(b, kItlBuckets - 1));
}

void ItlSamples::add(double ms) {
  std::uint16_t b = itlBucket(ms);
  buckets_.push_back(b);
  ++counts_[b];
  ++added_;
}

void ItlSamples::dropUpTo(std::uint64_t end) {
  while (dropped_ < end && !buckets_.empty()) dropOne();
}

void ItlSamples::dropBeyond(std::size_t max_held) {
  while (buckets_.size() > max_held) dropOne();
}

void ItlSamples::dropOne() {
  --counts_[buckets_.front()];
  buckets_.pop_front();
  ++dropped_;
}

std::optional<HistogramBins> histogramBins(const std::vector<std::uint64_t>& bucket_counts) {
  const auto& values = itlBucketValues();
  std::uint64_t total = 0;
  for (auto c : bucket_counts) total += c;
  if (total == 0) return std::nullopt;
  // The sample of rank floor(p * (n - 1)), counting from 0.
  auto quantile = [&](double p) {
    const auto rank = static_cast<std::uint64_t>(std::floor(p * static_cast<double>(total - 1)));
    std::uint64_t cumulative = 0;
    for (int b = 0; b < kItlBuckets; ++b) {
      cumulative += bucket_counts[b];
      if (cumulative > rank) return values[b];
    }
    return values[kItlBuckets - 1];
  };
  int first = 0, last = kItlBuckets - 1;
  while (bucket_counts[first] == 0) ++first;
  while (bucket_counts[last] == 0) --last;
  const double lo = values[first], hi = values[last];
  const double q25 = quantile(0.25), q75 = quantile(0.75), q999 = quantile(0.999);
  const double visible_hi = std::max(q999, q75);
  const double span = visible_hi - lo;
  double width = 2 * (q75 - q25) / std::cbrt(static_cast<double>(total));
  if (!(width > 0)) width = span > 0 ? span / 30 : std::max(lo * 0.02, 0.01);
  if (span > 0) width = std::clamp(width, span / 60, std::max(span / 12, 1e-6));
  HistogramBins result;
  result.width = niceStep(width);
  result.start = std::floor(lo / result.width) * result.width;
  result.bins = static_cast<std::size_t>(std::floor((visible_hi - result.start) / result.width)) + 1;
  // Fold the tail into the regular bins when that stays readable, else one overflow bar.
  const auto bins_to_max = static_cast<std::size_t>(std::floor((hi - result.start) / result.width)) + 1;
  result.overflow = bins_to_max > std::max<std::size_t>(result.bins + 3, result.bins * 5 / 4);
  if (!result.overflow) result.bins = bins_to_max;
  return result;
}

std::vector<std::uint64_t> binCounts(const std::vector<std::uint64_t>& bucket_counts,
                                     const HistogramBins& bins) {
  std::vector<std::uint64_t> counts(bins.barCount(), 0);
  auto slot = [&](double x) {
    if (x < 0) return std::size_t{0};
    auto i = static_cast<std::size_t>(x);
    return i >= bins.bins ? (bins.overflow ? bins.bins : bins.bins - 1) : i;
  };
  for (int b = 0; b < static_cast<int>(bucket_counts.size()); ++b) {
    const std::uint64_t c = bucket_counts[b];
    if (c == 0) continue;
    // Spread the bucket's samples over the bins its interval overlaps, in whole samples
    // (rounded cumulatively, so the counts add up exactly): bins never alias with buckets.
    const double from = (bucketLow(b) - bins.start) / bins.width;
    const double to = (bucketLow(b + 1) - bins.start) / bins.width;
    std::size_t i = slot(from);
    const std::size_t i_end = slot(to);
    std::uint64_t given = 0;
    for (; i < i_end; ++i) {
      const double fraction = std::clamp((static_cast<double>(i + 1) - from) / (to - from), 0.0, 1.0);
      const auto upto = static_cast<std::uint64_t>(std::llround(fraction * static_cast<double>(c)));
      counts[i] += upto - given;
      given = upto;
    }
    counts[i_end] += c - given;
  }
  return counts;
}

double finiteOr(const std::optional<double>& v, double fallback) {
  return v && std::isfinite(*v) ? *v : fallback;
}

double percentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  double rank = p / 100 * static_cast<double>(sorted.size() - 1);
  double below = std::floor(rank);
  auto lo = static_cast<std::size_t>(below);
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return std::lerp(sorted[lo], sorted[hi], rank - below);
}

void mergeSorted(std::vector<double>& sorted, std::vector<double> add) {
  if (add.empty()) return;
  std::sort(add.begin(), add.end());
  auto old = static_cast<std::ptrdiff_t>(sorted.size());
  sorted.insert(sorted.end(), add.begin(), add.end());
  std::inplace_merge(sorted.begin(), sorted.begin() + old, sorted.end());
}

void removeSorted(std::vector<double>& sorted, std::vector<double> remove) {
  if (remove.empty() || sorted.empty()) return;
  std::sort(remove.begin(), remove.end());
  auto out = std::lower_bound(sorted.begin(), sorted.end(), remove.front());
  auto r = remove.begin();
  for (auto in = out; in != sorted.end(); ++in) {
    while (r != remove.end() && *r < *in) ++r;
    if (r != remove.end() && *r == *in) {
      ++r;
      continue;
    }
    *out++ = *in;
  }
  sorted.erase(out, sorted.end());
}

double niceStep(double step) {
  if (!(step > 0) || !std::isfinite(step)) return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(step)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  return 10 * magnitude;
}

void spreadLabels(std::vector<double>& ys, double gap, double top, double bottom) {
  if (ys.empty()) return;
  for (std::size_t i = 1; i < ys.size(); ++i) ys[i] = std::max(ys[i], ys[i - 1] + gap);
  if (ys.back() > bottom) {
    ys.back() = bottom;
    for (std::size_t i = ys.size() - 1; i-- > 0;) ys[i] = std::min(ys[i], ys[i + 1] - gap);
  }
  if (ys.front() < top) {
    ys.front() = top;
    for (std::size_t i = 1; i < ys.size(); ++i) ys[i] = std::max(ys[i], ys[i - 1] + gap);
  }
}

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QColor withAlpha(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

QString formatMs(double v) {
  if (std::fabs(v) >= 100) return QString::number(v, 'f', 0);
  if (std::fabs(v) >= 10) return QString::number(v, 'f', 1);
  return QString::number(v, 'f', 2);
}

}  // namespace anthro::widgets::chart_detail
