#include "chart_series.h"

#include <algorithm>

namespace anthro::widgets {
namespace {

using chart_detail::mergeSorted;
using chart_detail::removeSorted;

// Appends each request's finite TTFT and token-rate values.
template <class It>
void collect(It first, It last, KeyValues& ttft, KeyValues& tps) {
  for (; first != last; ++first) {
    if (std::isfinite(first->ttft)) ttft.emplace_back(first->t, first->ttft);
    if (std::isfinite(first->tps)) tps.emplace_back(first->t, first->tps);
  }
}

std::vector<double> values(const KeyValues& points) {
  std::vector<double> v;
  v.reserve(points.size());
  for (const auto& p : points) v.push_back(p.second);
  return v;
}

}  // namespace

void ChartSeries::add(const StoredRequest& request) {
  if (std::isfinite(request.ttft)) ++ttft_held;
  points.push_back(request);
  ++unsynced_;
}

void ChartSeries::dropOldest(std::size_t count) {
  for (std::size_t i = 0; i < count && !points.empty(); ++i) {
    const StoredRequest p = points.front();
    points.pop_front();
    if (std::isfinite(p.ttft)) --ttft_held;
    if (points.size() < unsynced_) {
      --unsynced_;  // never reached the charts
    } else if (!rebuild_) {
      dropped_.push_back(p);
      // Removing more than a quarter of what the charts hold: rebuild them instead.
      if (dropped_.size() > (points.size() + dropped_.size()) / 4 + 64) {
        rebuild_ = true;
        dropped_.clear();
        dropped_.shrink_to_fit();
      }
    }
    itl.dropUpTo(p.itl_end);
  }
}

SeriesSync ChartSeries::sync() {
  SeriesSync change;
  if (rebuild_) {
    change.rebuild = true;
    collect(points.begin(), points.end(), change.added_ttft, change.added_tps);
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(change.added_ttft.begin(), change.added_ttft.end(), by_key);
    std::stable_sort(change.added_tps.begin(), change.added_tps.end(), by_key);
    sorted_ttft = values(change.added_ttft);
    sorted_tps = values(change.added_tps);
    std::sort(sorted_ttft.begin(), sorted_ttft.end());
    std::sort(sorted_tps.begin(), sorted_tps.end());
    rebuild_ = false;
    dropped_.clear();
    unsynced_ = 0;
    return change;
  }
  collect(dropped_.begin(), dropped_.end(), change.removed_ttft, change.removed_tps);
  if (!change.removed_ttft.empty()) removeSorted(sorted_ttft, values(change.removed_ttft));
  if (!change.removed_tps.empty()) removeSorted(sorted_tps, values(change.removed_tps));
  dropped_.clear();
  collect(points.end() - static_cast<std::ptrdiff_t>(unsynced_), points.end(), change.added_ttft, change.added_tps);
  if (!change.added_ttft.empty()) mergeSorted(sorted_ttft, values(change.added_ttft));
  if (!change.added_tps.empty()) mergeSorted(sorted_tps, values(change.added_tps));
  unsynced_ = 0;
  return change;
}

}  // namespace anthro::widgets
