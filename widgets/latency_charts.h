// Live latency charts for series of requests ("baseline" and "candidate", or one per target
// and protocol: "anthro-v1 · anthro://…"), each run on its own time base: TTFT per request
// over time with P50/P95/P99 lines, token rate over time, an ITL histogram and the TTFT CDF.
// Each chart is its own QCustomPlot, so each can be exported on its own.
//
// The time charts zoom (mouse wheel, around the cursor) and pan (drag) together; the scroll
// bar under them shows and moves the visible window of the whole run; Reset view (or a
// double-click) shows everything again. While zoomed or panned, new points never move the
// view; after Reset view it follows the data again.
//
// addPoints() only stores the batch and marks the widget dirty; a coalescing 50 ms timer
// applies pending points to the charts and queues one replot, so feeding thousands of points
// a second costs one replot per 50 ms. At most maxPoints() requests (kMaxPoints unless
// changed) are held per series, and at most kMaxItlSamples inter-token latencies; beyond
// that the oldest are dropped, from the held data and from every chart.
//
// qcustomplot.h is deliberately not included here (it costs ~8 s per translation unit).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;

namespace anthro::widgets {

struct RequestPoint {
  double t_s = 0;  // when the request started, seconds since its run began
  std::optional<double> ttft_ms;
  std::optional<double> tokens_per_s;
  std::vector<double> itl_ms;  // inter-token latencies of this request
  int request = 0;             // caller's id, given back by requestClicked
};

// A point of a run, in a series by name: request_point names it by protocol and target. The
// run's key (its start's wall-clock seconds) tells runs apart; its label lists it.
struct RunPoint {
  RequestPoint point;
  QString series;
  double run = 0;
  QString run_label;
};

class LatencyCharts : public QWidget {
  Q_OBJECT
 public:
  enum Chart { TtftOverTime, TokenRate, ItlHistogram, TtftCdf };
  Q_ENUM(Chart)

  static constexpr int kSeriesCount = 2;  // series made at construction: baseline, candidate
  static constexpr int kMaxSeries = 12;   // beyond, points of new names go to the last series
  static constexpr int kMaxRuns = 16;     // the oldest run is dropped beyond, or while all runs
                                          // hold more than two full series
  static constexpr std::size_t kMaxPoints = 2'000'000;         // requests held per series
  static constexpr std::size_t kMaxItlSamples = 32'000'000;    // ITL samples held per series
  static constexpr int kExportWidth = 900, kExportHeight = 540;  // smallest export size

  struct Percentiles {
    double p50 = 0, p95 = 0, p99 = 0;
  };

  explicit LatencyCharts(QWidget* parent = nullptr);
  ~LatencyCharts() override;

  // series is 0 .. seriesCount() - 1; setSeriesName adds series up to it (below kMaxSeries).
  // Other values are ignored (or give empty results).
  void setSeriesName(int series, const QString& name);
  QString seriesName(int series) const;
  int seriesCount() const;
  // The series of that name, added if new (the colour it takes at its first data stays its own).
  int seriesIndex(const QString& name);

  // Stores the batch (cheap); the charts follow within ~50 ms, or at once with flush().
  // Values that are not finite are treated as missing; a point whose t_s is not finite is
  // ignored.
  void addPoints(int series, const std::vector<RequestPoint>& batch);
  // Each point to its run, in the series its `series` names (series 0 when empty).
  void addPoints(const std::vector<RunPoint>& batch);
  // Empties every chart (also from the charts' context menu), then emits cleared().
  void clear();

  // Shows or hides a series on every chart; a hidden series keeps its data and its legend
  // entry (struck out: clicking it, or the context menu, shows the series again) and no longer
  // sets the axes' ranges or the histogram's bins.
  void setSeriesVisible(int series, bool visible);
  bool seriesVisible(int series) const;

  // Inter-token latencies of a request still streaming, in the histogram until
  // clearRunningItl(): its point (addPoints, with the ITL measured at its end) replaces them.
  void addRunningItl(int series, const std::vector<double>& itl_ms);
  void clearRunningItl(int series);

  // The runs held, oldest first (their labels), and the one the charts show: the latest
  // unless one was picked (the run selector under the charts). -1 picks the latest again.
  QStringList runLabels() const;
  int shownRun() const;
  void showRun(int index);

  // What the time charts show is the user's (wheel, drag, scroll bar) until resetView(),
  // which shows the whole run again and follows new points.
  void resetView();
  bool followsData() const;

  // A shaded span of the time charts with its name at the top (a rollout stage), from its
  // start to the next one's (the last to the last point); a stage resumed under the same name
  // keeps its band. clear() removes them.
  void addStage(const QString& name, double start_s);
  int stageCount() const;

  // The series and queries below are of the run shown.
  // Exactly the TTFT values held for the series, oldest first (points without TTFT skipped).
  std::vector<double> ttftValues(int series) const;
  std::size_t pointCount(int series) const;     // requests held
  std::size_t itlSampleCount(int series) const;  // inter-token latencies held, running ones too
  // numpy-linear percentiles of ttftValues(series); nullopt without TTFT values.
  std::optional<Percentiles> ttftPercentiles(int series) const;

  // The per-series bound on held requests (kMaxPoints by default); lowering it drops the
  // oldest at once.
  void setMaxPoints(std::size_t max_points);
  // QCustomPlot's adaptive sampling of the dense graphs (on by default); off draws every point,
  // the reference the benches measure it against.
  void setAdaptiveSampling(bool on);
  std::size_t maxPoints() const;

  // Applies pending points to the charts now and queues a replot (the timer does this
  // otherwise).
  void flush();

  // Hides a chart a page has no data for (the Rollout page's requests carry TTFT alone); the
  // charts shown take its room.
  void setChartVisible(Chart chart, bool visible);

  // The chart's plot, for tests and benches (owned by this widget).
  QCustomPlot* plot(Chart chart) const;

  // Writes the chart as PNG, PDF or SVG, chosen by the extension of path (case-insensitive),
  // at its on-screen size but at least kExportWidth x kExportHeight, laid out for that size.
  // Writes path + ".tmp" and renames it over path, so path is never half-written. On failure
  // returns false, leaves no file and sets *error to a message naming the path.
  bool exportChart(Chart chart, const QString& path, QString* error = nullptr);

 signals:
  // A point of the TTFT or token-rate chart was clicked (it is ringed on both until another
  // is, or the charts are cleared): the series and the RequestPoint's `request`.
  void requestClicked(int series, int request);
  // What happened to an export the user asked for from a chart's context menu.
  void message(const QString& text);
  void cleared();
  void seriesVisibilityChanged(int series, bool visible);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> d_;
};

}  // namespace anthro::widgets
