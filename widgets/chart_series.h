// The requests one chart series holds (oldest first, bounded), their values kept sorted for
// percentiles, and what the plotted graphs must add or remove to match them. Plain C++: the
// QCustomPlot side applies a SeriesSync in latency_charts_data.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "chart_math.h"

namespace anthro::widgets {

// One held request; NaN marks a missing value.
struct StoredRequest {
  double t = 0;
  double ttft = std::numeric_limits<double>::quiet_NaN();
  double tps = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t itl_end = 0;  // ITL samples ever added up to and including this request
  int request = 0;
};

using KeyValues = std::vector<std::pair<double, double>>;  // (time, value)

// What the graphs must do to show the series again. With `rebuild`, `added_*` is the whole
// series sorted by time, to replace what the graphs hold.
struct SeriesSync {
  bool rebuild = false;
  KeyValues added_ttft, added_tps, removed_ttft, removed_tps;
};

struct ChartSeries {
  std::deque<StoredRequest> points;  // oldest first
  std::size_t ttft_held = 0;
  std::vector<double> sorted_ttft, sorted_tps;  // values the graphs show, ascending
  chart_detail::ItlSamples itl;
  // The request still streaming: its inter-token latencies so far, until its point replaces them.
  chart_detail::ItlSamples running_itl;

  void add(const StoredRequest& request);
  void dropOldest(std::size_t count);
  // The changes since the last call; sorted_ttft / sorted_tps follow them.
  SeriesSync sync();
  // The graphs hold another run's requests: the next sync() gives all of these.
  void redraw() {
    rebuild_ = true;
    dropped_.clear();
  }
  // Changes not yet synced (sorted_ttft is then behind the held requests).
  bool pending() const { return unsynced_ > 0 || !dropped_.empty() || rebuild_; }

 private:
  // Requests at the back not yet in the graphs, and shown ones dropped since (to remove).
  // `rebuild` replaces both when removing that much is cheaper done by redrawing.
  std::size_t unsynced_ = 0;
  std::vector<StoredRequest> dropped_;
  bool rebuild_ = false;
};

}  // namespace anthro::widgets
