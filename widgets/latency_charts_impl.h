// LatencyCharts' private state, shared by its two translation units: latency_charts.cpp
// (the widget, its charts' construction, headers and legends, export) and
// latency_charts_data.cpp (the held requests onto the charts). Include it only there: it
// brings qcustomplot.h (~8 s, 650 MB a translation unit).
#pragma once

#include <QTimer>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "chart_items.h"
#include "chart_series.h"
#include "latency_charts.h"

class QGridLayout;

namespace anthro::widgets {

struct LatencyCharts::Impl {
  static constexpr std::array<double, 3> kPercentiles = {50, 95, 99};  // the TTFT lines and CDF guides
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // a missing value

  LatencyCharts* q;
  std::array<ChartSeries, kSeriesCount> series;
  std::size_t max_points = kMaxPoints;
  bool dirty = false;
  QTimer timer;
  chart_detail::Theme theme;

  std::array<QCustomPlot*, 4> plots{};
  QGridLayout* grid = nullptr;  // the charts shown, placed by placeCharts()
  std::array<QCPTextElement*, 4> titles{};
  std::array<chart_detail::HeaderGrid*, 4> headers{};
  std::array<chart_detail::PassiveText*, 4> empty_notes{};
  std::array<QCPGraph*, kSeriesCount> ttft{}, tps{}, cdf{};
  std::array<QCPBars*, kSeriesCount> hist{};
  std::array<std::array<chart_detail::PassiveLine*, 3>, kSeriesCount> pct_lines{};
  std::array<std::array<chart_detail::PassiveText*, 3>, kSeriesCount> pct_labels{};
  std::array<chart_detail::PassiveLine*, 3> cdf_guides{};
  std::array<chart_detail::PassiveText*, 3> cdf_guide_labels{};
  chart_detail::PassiveText* hist_note = nullptr;
  double hist_max = 0;  // the tallest bar's count
  std::array<bool, kSeriesCount> shown{true, true};
  // The request last clicked, ringed on the TTFT and token-rate charts.
  struct Marked {
    int series = 0;
    StoredRequest point;
  };
  std::optional<Marked> marked;
  std::array<chart_detail::PassiveTracer*, 2> marks{};  // on TtftOverTime, TokenRate
  // Dots as pixmaps for the screen or for 2x PNG exports, or as vector discs for PDF/SVG.
  enum class Dots { Screen, Png, Vector };
  std::array<std::array<QPixmap, 2>, kSeriesCount> dot_pixmaps;  // [series][dense]
  double dot_pixel_ratio = 0;                                     // of dot_pixmaps

  explicit Impl(LatencyCharts* owner) : q(owner) {}

  QCustomPlot* makePlot(Chart chart);
  void build();
  void placeCharts();
  void retranslate();
  void exportWithDialog(Chart chart);
  void applyTheme();
  void applyMargins();
  void styleGraph(QCPGraph* g, int s, Dots dots = Dots::Screen);
  void sync(ChartSeries& s, int index);
  void updateCharts();
  void updateHistogram();
  std::vector<std::uint64_t> itlCounts(int s) const;
  void updateLegends();
  struct LegendFit {
    int room = 0, row = 0, column = 0;
    bool fitsOneLine() const { return row <= room; }
  };
  LegendFit legendFit(Chart chart, int width) const;
  void arrangeHeader(Chart chart);
  void fitHistogramRange();
  void placePercentileLabels();
  void toggleFromLegend(QCPAbstractLegendItem* item);
  QCPAbstractPlottable* plottable(Chart chart, int s) const {
    switch (chart) {
      case TtftOverTime: return ttft[s];
      case TokenRate: return tps[s];
      case TtftCdf: return cdf[s];
      case ItlHistogram: return hist[s];
    }
    return nullptr;
  }
  void onClick(QCPAbstractPlottable* plottable, int data_index);
  void placeMarks();
  // Something changed: the charts follow at the next tick of the coalescing timer.
  void markDirty() {
    dirty = true;
    if (!timer.isActive()) timer.start();
  }
};

}  // namespace anthro::widgets
