// LatencyCharts' private state, shared by its three translation units: latency_charts.cpp
// (the widget, its charts' construction, headers and legends, export), latency_charts_data.cpp
// (the held requests, in their runs, onto the charts) and latency_charts_view.cpp (zoom, pan,
// the scroll bar, Reset view, the run shown, stage bands). Include it only there: it brings
// qcustomplot.h (~8 s, 650 MB a translation unit).
#pragma once

#include <QTimer>
#include <deque>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "chart_items.h"
#include "chart_series.h"
#include "latency_charts.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QScrollBar;

namespace anthro::widgets {

struct LatencyCharts::Impl {
  static constexpr std::array<double, 3> kPercentiles = {50, 95, 99};  // the TTFT lines and CDF guides
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // a missing value

  // One series' plottables on every chart, shared by all runs (so its colour is the same in each).
  struct SeriesPlot {
    QString name;
    bool shown = true;
    int colour = -1;  // into the theme's colours, taken when the series first gets data
    QCPGraph *ttft = nullptr, *tps = nullptr, *cdf = nullptr;
    QCPBars* hist = nullptr;
    std::array<chart_detail::PassiveLine*, 3> pct_lines{};
    std::array<chart_detail::PassiveText*, 3> pct_labels{};
    std::array<QPixmap, 2> dots;  // [dense]
  };
  // A run's requests, per series, on its own time base.
  struct Run {
    double key = 0;
    QString label;
    std::vector<ChartSeries> series;  // as many as `lines`
  };

  LatencyCharts* q;
  std::vector<SeriesPlot> lines;
  std::deque<Run> runs;          // oldest first, at most kMaxRuns
  Run no_run;                    // shown while no run holds a point
  std::optional<double> picked;  // the run the user chose; unset: the latest
  std::optional<double> drawn;   // the run the graphs hold
  std::size_t max_points = kMaxPoints;
  bool dirty = false;
  QTimer timer;
  chart_detail::Theme theme;

  std::array<QCustomPlot*, 4> plots{};
  QGridLayout* grid = nullptr;  // the charts shown, placed by placeCharts()
  std::array<QCPTextElement*, 4> titles{};
  std::array<chart_detail::HeaderGrid*, 4> headers{};
  std::array<chart_detail::PassiveText*, 4> empty_notes{};
  std::array<chart_detail::PassiveLine*, 3> cdf_guides{};
  std::array<chart_detail::PassiveText*, 3> cdf_guide_labels{};
  chart_detail::PassiveText* hist_note = nullptr;
  double hist_max = 0;  // the tallest bar's count
  // The request last clicked, ringed on the TTFT and token-rate charts.
  struct Marked {
    int series = 0;
    StoredRequest point;
  };
  std::optional<Marked> marked;
  std::array<chart_detail::PassiveTracer*, 2> marks{};  // on TtftOverTime, TokenRate
  // Dots as pixmaps for the screen or for 2x PNG exports, or as vector discs for PDF/SVG.
  enum class Dots { Screen, Png, Vector };
  double dot_pixel_ratio = 0;  // of the series' dots

  // The time view (latency_charts_view.cpp): what the time charts show of the run, whether
  // it follows the data, and the strip under the charts (run, scroll bar, Reset view).
  QWidget* strip = nullptr;
  QComboBox* run_box = nullptr;
  QScrollBar* scroll = nullptr;
  QPushButton* reset = nullptr;
  QLabel* run_label = nullptr;
  double scroll_origin = 0, scroll_unit = 1;  // the scroll bar's 0, and time per step
  bool follow = true;           // false once the user zoomed or panned, until Reset view
  bool setting_range = false;   // the range is being set by the charts, not the user
  QCPRange full{0, 60};         // the whole run, padded
  std::vector<chart_detail::StageBand> stages;
  std::vector<chart_detail::PassiveRect*> band_rects;
  std::vector<chart_detail::PassiveText*> band_labels;

  explicit Impl(LatencyCharts* owner) : q(owner) {}

  Run& shownRun() {
    if (runs.empty()) return no_run;
    if (picked)
      for (Run& r : runs)
        if (r.key == *picked) return r;
    return runs.back();
  }
  const Run& shownRun() const { return const_cast<Impl*>(this)->shownRun(); }
  std::vector<ChartSeries>& series() { return shownRun().series; }
  const std::vector<ChartSeries>& series() const { return shownRun().series; }
  int seriesCount() const { return static_cast<int>(lines.size()); }
  int addSeries(const QString& name);
  int seriesNamed(const QString& name);
  Run& runFor(double key, const QString& label);
  void boundRuns();
  std::size_t stored_since_bound = 0;
  void takeColour(int s);
  QColor colour(int s) const { return theme.series[std::max(lines[s].colour, 0) % chart_detail::kColours]; }
  QColor strong(int s) const { return theme.strong[std::max(lines[s].colour, 0) % chart_detail::kColours]; }

  void buildStrip();
  void retranslateStrip();
  void updateRunBox();
  void onUserRange(QCustomPlot* from, const QCPRange& range);
  void applyTimeRange(double lo, double hi);
  void updateScroll();
  void resetView();
  void updateStages();

  QCustomPlot* makePlot(Chart chart);
  void build();
  void placeCharts();
  void retranslate();
  void exportWithDialog(Chart chart);
  void applyTheme();
  void applyMargins();
  void styleGraph(QCPGraph* g, int s, Dots dots = Dots::Screen);
  void styleSeries(int s);
  bool store(int series, const RequestPoint& point, double run, const QString& run_label);
  bool hasData(Chart chart, int s) const;
  std::vector<int> legendSeries() const;
  void makeNavigable(QCustomPlot* plot);
  void sync(ChartSeries& s, int index);
  void updateCharts();
  void updateHistogram();
  std::vector<std::uint64_t> itlCounts(int s) const;
  void updateLegends();
  struct LegendFit {
    int room = 0, row = 0, column = 0, entries = 0;
    bool fitsOneLine() const { return row <= room; }
  };
  LegendFit legendFit(Chart chart, int width) const;
  void arrangeHeader(Chart chart);
  void fitHistogramRange();
  void placePercentileLabels();
  void toggleFromLegend(QCPAbstractLegendItem* item);
  QCPAbstractPlottable* plottable(Chart chart, int s) const {
    switch (chart) {
      case TtftOverTime: return lines[s].ttft;
      case TokenRate: return lines[s].tps;
      case TtftCdf: return lines[s].cdf;
      case ItlHistogram: return lines[s].hist;
    }
    return nullptr;
  }
  void onClick(QCPAbstractPlottable* plottable, int data_index);
  void placeMarks();
  // Queues a replot of every chart, or of the two time charts.
  void replot() {
    for (QCustomPlot* p : plots) p->replot(QCustomPlot::rpQueuedReplot);
  }
  void replotTime() {
    for (Chart c : {TtftOverTime, TokenRate}) plots[c]->replot(QCustomPlot::rpQueuedReplot);
  }
  // Something changed: the charts follow at the next tick of the coalescing timer.
  void markDirty() {
    dirty = true;
    if (!timer.isActive()) timer.start();
  }
};

}  // namespace anthro::widgets
