#include "latency_charts.h"

// The only widget translation unit that includes qcustomplot.h (~8 s, 650 MB to compile),
// through chart_items.h.
#include "file_dialog.h"
#include "chart_items.h"
#include "chart_math.h"
#include "chart_series.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QMenu>
#include <QGridLayout>
#include <QTimer>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <utility>

namespace anthro::widgets {
namespace {

using namespace chart_detail;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kFlushIntervalMs = 50;
// Above this many points a series is drawn with smaller, translucent dots.
constexpr int kDotLimit = 5'000;
constexpr double kSparseDot = 5.5, kDenseDot = 4;
constexpr int kSparseAlpha = 210, kDenseAlpha = 80;
constexpr std::array<double, 3> kPercentiles = {50, 95, 99};
// The header's distance from the plot's edges, and the gap between title and legend.
constexpr int kHeaderInset = 6, kHeaderGap = 12;

// A legend entry's width besides its text: icon, padding and the item's margins.
int legendKeyWidth(const QCPLegend* legend) {
  return legend->iconSize().width() + legend->iconTextPadding() + 16;
}

}  // namespace

struct LatencyCharts::Impl {
  LatencyCharts* q;
  std::array<ChartSeries, kSeriesCount> series;
  std::size_t max_points = kMaxPoints;
  bool dirty = false;
  QTimer timer;
  Theme theme;

  std::array<QCustomPlot*, 4> plots{};
  std::array<QCPTextElement*, 4> titles{};
  std::array<HeaderGrid*, 4> headers{};
  std::array<PassiveText*, 4> empty_notes{};
  std::array<QCPGraph*, kSeriesCount> ttft{}, tps{}, cdf{};
  std::array<QCPBars*, kSeriesCount> hist{};
  std::array<std::array<PassiveLine*, 3>, kSeriesCount> pct_lines{};
  std::array<std::array<PassiveText*, 3>, kSeriesCount> pct_labels{};
  std::array<PassiveLine*, 3> cdf_guides{};
  std::array<PassiveText*, 3> cdf_guide_labels{};
  PassiveText* hist_note = nullptr;
  double hist_max = 0;  // the tallest bar's count
  std::array<bool, kSeriesCount> shown{true, true};
  // The request last clicked, ringed on the TTFT and token-rate charts.
  struct Marked {
    int series = 0;
    StoredRequest point;
  };
  std::optional<Marked> marked;
  std::array<PassiveTracer*, 2> marks{};  // on TtftOverTime, TokenRate
  // Dots as pixmaps for the screen or for 2x PNG exports, or as vector discs for PDF/SVG.
  enum class Dots { Screen, Png, Vector };
  std::array<std::array<QPixmap, 2>, kSeriesCount> dot_pixmaps;  // [series][dense]
  double dot_pixel_ratio = 0;                                     // of dot_pixmaps

  explicit Impl(LatencyCharts* owner) : q(owner) {}

  QCustomPlot* makePlot(Chart chart);
  void build();
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

QCustomPlot* LatencyCharts::Impl::makePlot(Chart chart) {
  const ChartFrame frame = makeChartFrame(q);
  QCustomPlot* plot = frame.plot;
  plot->setObjectName(QStringLiteral("latency-chart-%1").arg(int(chart)));
  frame.note->setText(tr("No data"));
  empty_notes[chart] = frame.note;
  titles[chart] = frame.title;
  headers[chart] = frame.header;
  plots[chart] = plot;
  frame.header->prepare = [this, chart] { arrangeHeader(chart); };
  QObject::connect(plot, &QCustomPlot::plottableClick, q,
                   [this](QCPAbstractPlottable* p, int index, QMouseEvent*) { onClick(p, index); });
  QObject::connect(plot, &QCustomPlot::legendClick, q,
                   [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { toggleFromLegend(item); });
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, q, [this, chart, plot](const QPoint& at) {
    QMenu menu(plot);
    for (int s = 0; s < kSeriesCount; ++s) {
      QAction* show = menu.addAction(tr("Show %1").arg(series[s].name), q,
                                     [this, s](bool on) { q->setSeriesVisible(s, on); });
      show->setCheckable(true);
      show->setChecked(shown[s]);
    }
    menu.addSeparator();
    menu.addAction(tr("Clear charts"), q, &LatencyCharts::clear);
    menu.addAction(tr("Export chart…"), q, [this, chart] { exportWithDialog(chart); });
    menu.exec(plot->mapToGlobal(at));
  });
  return plot;
}

// Asks where to write the chart; the outcome goes to the log, never to a dialog.
void LatencyCharts::Impl::exportWithDialog(Chart chart) {
  QString path = save_file_name(q, tr("Export chart"), titles[chart]->text() + ".png",
                                              tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
  if (path.isEmpty()) return;
  QString error;
  if (q->exportChart(chart, path, &error)) emit q->message(tr("Chart written to %1").arg(path));
  else emit q->message(error);
}

// Titles and axis labels in the current language (again on every language change).
void LatencyCharts::Impl::retranslate() {
  const QString texts[4][3] = {{tr("Time to first token"), tr("request start (s)"), tr("TTFT (ms)")},
                               {tr("Token rate"), tr("request start (s)"), tr("tokens/s")},
                               {tr("Inter-token latency"), tr("ITL (ms)"), tr("samples")},
                               {tr("TTFT distribution"), tr("TTFT (ms)"), tr("fraction")}};
  for (int chart = 0; chart < 4; ++chart) {
    titles[chart]->setText(texts[chart][0]);
    plots[chart]->xAxis->setLabel(texts[chart][1]);
    plots[chart]->yAxis->setLabel(texts[chart][2]);
    empty_notes[chart]->setText(tr("No data"));
  }
}

void LatencyCharts::Impl::build() {
  for (Chart chart : {TtftOverTime, TokenRate, ItlHistogram, TtftCdf}) makePlot(chart);
  retranslate();

  for (int s = 0; s < kSeriesCount; ++s) {
    ttft[s] = new SeriesGraph(plots[TtftOverTime]->xAxis, plots[TtftOverTime]->yAxis);
    tps[s] = new SeriesGraph(plots[TokenRate]->xAxis, plots[TokenRate]->yAxis);
    cdf[s] = plots[TtftCdf]->addGraph();
    cdf[s]->setLineStyle(QCPGraph::lsStepLeft);
    hist[s] = new QCPBars(plots[ItlHistogram]->xAxis, plots[ItlHistogram]->yAxis);
    hist[s]->setWidthType(QCPBars::wtPlotCoords);
    for (QCPAbstractPlottable* p :
         std::initializer_list<QCPAbstractPlottable*>{ttft[s], tps[s], cdf[s], hist[s]}) {
      p->setSelectable(QCP::stNone);
      p->setObjectName(QStringLiteral("series-%1").arg(s));
      p->removeFromLegend();
    }
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
      auto* line = makeLevelLine(plots[TtftOverTime], 0, QStringLiteral("thresholds"));
      line->setObjectName(QStringLiteral("p%1-%2").arg(kPercentiles[i]).arg(s));
      line->setVisible(false);
      pct_lines[s][i] = line;
      auto* label = makeMarginLabel(plots[TtftOverTime]);
      label->setObjectName(QStringLiteral("p%1-%2-label").arg(kPercentiles[i]).arg(s));
      label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      label->setVisible(false);
      pct_labels[s][i] = label;
    }
  }
  // Reading percentiles off the CDF: faint guides at 0.50, 0.95 and 0.99.
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    double y = kPercentiles[i] / 100;
    cdf_guides[i] = makeLevelLine(plots[TtftCdf], y, QStringLiteral("grid"));
    auto* label = makeMarginLabel(plots[TtftCdf]);
    label->position->setCoords(1, y);
    label->setPositionAlignment(Qt::AlignLeft | (i == 1 ? Qt::AlignTop : i == 2 ? Qt::AlignBottom
                                                                               : Qt::AlignVCenter));
    label->setText(QStringLiteral("p%1").arg(kPercentiles[i]));
    cdf_guide_labels[i] = label;
  }
  makeFractionAxis(plots[TtftCdf]->yAxis);
  plots[ItlHistogram]->yAxis->setTicker(QSharedPointer<CountTicker>::create());
  plots[ItlHistogram]->yAxis->ticker()->setTickCount(6);

  marks = {makeMark(plots[TtftOverTime]), makeMark(plots[TokenRate])};
  hist_note = makeCornerNote(plots[ItlHistogram]);
  hist_note->setObjectName(QStringLiteral("histogram-note"));
  hist_note->setVisible(false);

  QObject::connect(plots[TtftOverTime], &QCustomPlot::afterLayout, q,
                   [this] { placePercentileLabels(); });
  QObject::connect(plots[ItlHistogram], &QCustomPlot::afterLayout, q, [this] { fitHistogramRange(); });

  auto* grid = new QGridLayout(q);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(1);
  grid->addWidget(plots[TtftOverTime], 0, 0);
  grid->addWidget(plots[TtftCdf], 0, 1);
  grid->addWidget(plots[TokenRate], 1, 0);
  grid->addWidget(plots[ItlHistogram], 1, 1);
  grid->setColumnStretch(0, 3);
  grid->setColumnStretch(1, 2);

  applyTheme();
  updateCharts();
}

// Fixed margins from the font, the same in each column of the grid, so the data areas line up
// and never move as tick labels change.
void LatencyCharts::Impl::applyMargins() {
  QFontMetrics fm(q->font());
  const int tick_label = fm.horizontalAdvance(QStringLiteral("88888"));
  const int left = 4 + 4 + tick_label + 6 + fm.height() + 6;
  const int bottom = 4 + 4 + fm.height() + 6 + fm.height() + 6;
  const int top = fm.height() / 2 + 2;
  const int right_time = fm.horizontalAdvance(QStringLiteral("p99 8888.8")) + 12;
  const int right_dist = std::max(fm.horizontalAdvance(QStringLiteral("p99")) + 12, tick_label / 2 + 8);
  // The header (title, legend) spans the plot; its height follows the plot's width only
  // (arrangeHeader), so a legend appearing never moves the axes.
  for (int c = 0; c < 4; ++c) {
    const int right = (c == TtftOverTime || c == TokenRate) ? right_time : right_dist;
    plots[c]->axisRect()->setMargins(QMargins(left, top, right, bottom));
    headers[c]->setMargins(QMargins(kHeaderInset, 0, kHeaderInset, 0));
  }
}

void LatencyCharts::Impl::applyTheme() {
  theme = themeFor(q->palette());
  QFont font = q->font();
  QFont title_font = font;
  title_font.setBold(true);
  QFont small = font;
  small.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 0.9 : 8);
  for (int c = 0; c < 4; ++c) {
    stylePlot(plots[c], theme, font);
    titles[c]->setFont(title_font);
    titles[c]->setTextColor(theme.text);
    empty_notes[c]->setColor(theme.muted);
    empty_notes[c]->setFont(font);
  }
  for (int s = 0; s < kSeriesCount; ++s) {
    QPen cdf_pen(theme.series[s], 1.6);
    cdf[s]->setPen(cdf_pen);
    QColor fill = withAlpha(theme.series[s], 115);
    hist[s]->setPen(Qt::NoPen);
    hist[s]->setBrush(fill);
    const std::array<Qt::PenStyle, 3> styles = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
      QPen pen(theme.strong[s], i == 0 ? 1.5 : 1.3, styles[i]);
      pen.setCapStyle(Qt::FlatCap);
      pct_lines[s][i]->setPen(pen);
      pct_labels[s][i]->setColor(theme.strong[s]);
      pct_labels[s][i]->setFont(small);
    }
  }
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    cdf_guides[i]->setPen(QPen(mix(theme.base, theme.text, 0.35), 1, Qt::DashLine));
    cdf_guide_labels[i]->setColor(theme.muted);
    cdf_guide_labels[i]->setFont(small);
  }
  hist_note->setColor(theme.muted);
  hist_note->setFont(small);
  for (PassiveTracer* mark : marks) mark->setPen(QPen(theme.text, 1.8));
  dot_pixel_ratio = 0;  // colours changed: new pixmaps
  for (int s = 0; s < kSeriesCount; ++s) {
    styleGraph(ttft[s], s);
    styleGraph(tps[s], s);
  }
  applyMargins();
}

// One dot per request. Few points: larger, nearly opaque dots. Many: small translucent ones,
// so overlapping series and the density of each stay readable. On screen the dots are
// pre-rendered pixmaps (cheap to blit; adaptive sampling keeps about one per 4 pixels of
// value per pixel column, so 10^6 points replot in a few ms); vector exports get real discs.
void LatencyCharts::Impl::styleGraph(QCPGraph* g, int s, Dots dots) {
  const bool dense = g->dataCount() > kDotLimit;
  const QColor colour = withAlpha(theme.series[s], dense ? kDenseAlpha : kSparseAlpha);
  const double size = dense ? kDenseDot : kSparseDot;
  g->setLineStyle(QCPGraph::lsNone);
  g->setPen(QPen(colour, 1));
  static_cast<SeriesGraph*>(g)->key_colour = theme.series[s];
  g->setAdaptiveSampling(true);
  if (dots == Dots::Vector) {
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, size));
    return;
  }
  const double ratio = dots == Dots::Png ? 2.0 : std::max(1.0, q->devicePixelRatioF());
  if (ratio != dot_pixel_ratio) {
    for (int i = 0; i < kSeriesCount; ++i) {
      dot_pixmaps[i][0] = dotPixmap(withAlpha(theme.series[i], kSparseAlpha), kSparseDot, ratio);
      dot_pixmaps[i][1] = dotPixmap(withAlpha(theme.series[i], kDenseAlpha), kDenseDot, ratio);
    }
    dot_pixel_ratio = ratio;
  }
  g->setScatterStyle(QCPScatterStyle(dot_pixmaps[s][dense ? 1 : 0]));
}

// Brings the TTFT and token-rate graphs in line with the held requests.
void LatencyCharts::Impl::sync(ChartSeries& s, int index) {
  SeriesSync change = s.sync();
  if (change.rebuild) {
    ttft[index]->data()->set(graphData(change.added_ttft), true);
    tps[index]->data()->set(graphData(change.added_tps), true);
    return;
  }
  removeFromGraph(*ttft[index]->data(), std::move(change.removed_ttft));
  removeFromGraph(*tps[index]->data(), std::move(change.removed_tps));
  addToGraph(*ttft[index]->data(), graphData(change.added_ttft));
  addToGraph(*tps[index]->data(), graphData(change.added_tps));
}

void LatencyCharts::Impl::updateCharts() {
  // Time axes: shared by the TTFT and token-rate charts so they line up.
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = -t_lo;
  double ttft_lo = t_lo, ttft_hi = 0, tps_hi = 0;
  bool any_ttft = false, any_tps = false;
  for (int s = 0; s < kSeriesCount; ++s) {
    for (QCPAbstractPlottable* p : std::initializer_list<QCPAbstractPlottable*>{ttft[s], tps[s], cdf[s], hist[s]})
      p->setVisible(shown[s]);
    styleGraph(ttft[s], s);
    styleGraph(tps[s], s);
    if (!shown[s]) continue;
    for (QCPGraph* g : {ttft[s], tps[s]}) {
      auto data = g->data();
      if (data->isEmpty()) continue;
      t_lo = std::min(t_lo, data->constBegin()->key);
      t_hi = std::max(t_hi, (data->constEnd() - 1)->key);
    }
    const ChartSeries& ser = series[s];
    if (!ser.sorted_ttft.empty()) {
      any_ttft = true;
      ttft_lo = std::min(ttft_lo, ser.sorted_ttft.front());
      ttft_hi = std::max(ttft_hi, ser.sorted_ttft.back());
    }
    if (!ser.sorted_tps.empty()) {
      any_tps = true;
      tps_hi = std::max(tps_hi, ser.sorted_tps.back());
    }
  }
  if (t_lo <= t_hi) {
    // Padded on both sides, so the first and last dots (a lone one too) sit inside the axes.
    const double pad = t_hi > t_lo ? (t_hi - t_lo) * 0.04 : 0.5;
    for (Chart c : {TtftOverTime, TokenRate}) plots[c]->xAxis->setRange(t_lo - pad, t_hi + pad);
  } else {
    for (Chart c : {TtftOverTime, TokenRate}) plots[c]->xAxis->setRange(0, 60);
  }
  plots[TtftOverTime]->yAxis->setRange(0, any_ttft ? std::max(ttft_hi * 1.08, 1.0) : 500);
  plots[TokenRate]->yAxis->setRange(0, any_tps ? std::max(tps_hi * 1.08, 1.0) : 100);

  // Percentile lines and the CDF.
  for (int s = 0; s < kSeriesCount; ++s) {
    const auto& sorted = series[s].sorted_ttft;
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
      if (sorted.empty() || !shown[s]) {
        pct_lines[s][i]->setVisible(false);
        pct_labels[s][i]->setVisible(false);
        continue;
      }
      double v = percentileOfSorted(sorted, kPercentiles[i]);
      pct_lines[s][i]->point1->setCoords(0, v);
      pct_lines[s][i]->point2->setCoords(1, v);
      pct_lines[s][i]->setVisible(true);
      pct_labels[s][i]->setText(QStringLiteral("p%1 %2").arg(kPercentiles[i]).arg(formatMs(v)));
      pct_labels[s][i]->position->setCoords(1, v);
      pct_labels[s][i]->setProperty("value", v);
      pct_labels[s][i]->setVisible(true);
    }
    cdf[s]->data()->set(cdfPoints(sorted), true);
  }
  if (any_ttft) {
    double span = std::max(ttft_hi - ttft_lo, std::max(ttft_hi * 0.05, 1.0));
    plots[TtftCdf]->xAxis->setRange(std::max(0.0, ttft_lo - span * 0.04), ttft_hi + span * 0.04);
  } else {
    plots[TtftCdf]->xAxis->setRange(0, 500);
  }

  updateHistogram();

  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    cdf_guides[i]->setVisible(any_ttft);
    cdf_guide_labels[i]->setVisible(any_ttft);
  }
  empty_notes[TtftOverTime]->setVisible(!any_ttft);
  empty_notes[TtftCdf]->setVisible(!any_ttft);
  empty_notes[TokenRate]->setVisible(!any_tps);
  updateLegends();
  placeMarks();
}

void LatencyCharts::Impl::placeMarks() {
  const bool on = marked && shown[marked->series];
  const std::array<double, 2> values = {marked ? marked->point.ttft : kNaN, marked ? marked->point.tps : kNaN};
  for (std::size_t i = 0; i < marks.size(); ++i) {
    marks[i]->setVisible(on && std::isfinite(values[i]));
    if (marks[i]->visible()) marks[i]->position->setCoords(marked->point.t, values[i]);
  }
}

// A series' ITL bucket counts: its requests' and the streaming request's.
std::vector<std::uint64_t> LatencyCharts::Impl::itlCounts(int s) const {
  std::vector<std::uint64_t> counts = series[s].itl.counts();
  if (!series[s].running_itl.empty())
    for (int b = 0; b < kItlBuckets; ++b) counts[b] += series[s].running_itl.counts()[b];
  return counts;
}

// Bins shared by both series (see histogramBins); the samples beyond the last regular bin,
// if any, are one overflow bar explained by a note in the corner.
void LatencyCharts::Impl::updateHistogram() {
  std::vector<std::uint64_t> combined(kItlBuckets, 0);
  std::array<std::vector<std::uint64_t>, kSeriesCount> counts_of;
  for (int s = 0; s < kSeriesCount; ++s) {
    counts_of[s] = itlCounts(s);
    if (shown[s])
      for (int b = 0; b < kItlBuckets; ++b) combined[b] += counts_of[s][b];
  }
  const std::optional<HistogramBins> layout = histogramBins(combined);
  hist_note->setVisible(false);
  if (!layout) {
    for (auto* bars : hist) bars->data()->clear();
    plots[ItlHistogram]->xAxis->setRange(0, 50);
    plots[ItlHistogram]->yAxis->setRange(0, 10);
    hist_max = 0;
    empty_notes[ItlHistogram]->setVisible(true);
    return;
  }
  empty_notes[ItlHistogram]->setVisible(false);
  const double start = layout->start, width = layout->width;
  const std::size_t bar_count = layout->barCount();
  double max_count = 0;
  std::uint64_t overflow_total = 0;
  for (int s = 0; s < kSeriesCount; ++s) {
    if (!shown[s]) {
      hist[s]->data()->clear();
      continue;
    }
    const std::vector<std::uint64_t> counts = binCounts(counts_of[s], *layout);
    QVector<QCPBarsData> data;
    data.reserve(static_cast<int>(bar_count));
    for (std::size_t i = 0; i < bar_count; ++i) {
      if (counts[i] == 0) continue;
      const auto count = static_cast<double>(counts[i]);
      data.append(QCPBarsData(start + (static_cast<double>(i) + 0.5) * width, count));
      max_count = std::max(max_count, count);
    }
    if (layout->overflow) overflow_total += counts[layout->bins];
    hist[s]->setWidth(width);
    hist[s]->data()->set(data, true);
  }
  if (layout->overflow && overflow_total > 0) {
    hist_note->setText(tr("last bar: ≥ %1 ms (%2 samples)")
                           .arg(formatMs(start + static_cast<double>(layout->bins) * width))
                           .arg(overflow_total));
    hist_note->setVisible(true);
  }
  plots[ItlHistogram]->xAxis->setRange(start, start + static_cast<double>(bar_count) * width);
  hist_max = max_count;
  fitHistogramRange();
}

// The note sits in the top right corner of the data area: the count axis leaves it a band of
// its own above the tallest bar (known once the plot is laid out, so again after each layout).
void LatencyCharts::Impl::fitHistogramRange() {
  if (hist_max <= 0) return;
  QCustomPlot* plot = plots[ItlHistogram];
  double top = std::max(hist_max * 1.1, 1.0);
  const double height = plot->axisRect()->height();
  const double band = QFontMetrics(hist_note->font()).height() + 12;  // padding and a gap
  if (hist_note->visible() && height > 2 * band) top = std::max(top, hist_max / (1 - band / height));
  plot->yAxis->setRange(0, top);
}

// Series with data are listed; a hidden one struck out and muted.
void LatencyCharts::Impl::updateLegends() {
  for (int c = 0; c < 4; ++c) {
    QCustomPlot* plot = plots[c];
    plot->legend->clearItems();
    for (int s = 0; s < kSeriesCount; ++s) {
      QCPAbstractPlottable* p = plottable(Chart(c), s);
      p->setName(series[s].name);
      bool has_data = c == ItlHistogram ? !series[s].itl.empty() || !series[s].running_itl.empty()
                      : c == TokenRate  ? !series[s].sorted_tps.empty()
                                        : !series[s].sorted_ttft.empty();
      if (!has_data) continue;
      p->addToLegend();
      auto* item = plot->legend->itemWithPlottable(p);
      QFont font = plot->legend->font();
      font.setStrikeOut(!shown[s]);
      item->setFont(font);
      item->setTextColor(shown[s] ? theme.text : theme.muted);
    }
  }
}

// The room the legend has beside the title at `width`, and the widths of its entries in one
// row and stacked (the wider entry). Measured on both names whether or not a series has data
// yet, so the axes stay put as data arrives.
LatencyCharts::Impl::LegendFit LatencyCharts::Impl::legendFit(Chart chart, int width) const {
  const QCPLegend* legend = plots[chart]->legend;
  const QFontMetrics title_fm(titles[chart]->font()), fm(legend->font());
  LegendFit fit;
  fit.room = width - 2 * kHeaderInset - title_fm.horizontalAdvance(titles[chart]->text()) - kHeaderGap;
  for (int s = 0; s < kSeriesCount; ++s) {
    const int entry = legendKeyWidth(legend) + fm.horizontalAdvance(series[s].name);
    fit.row += entry + (s > 0 ? legend->columnSpacing() : 0);
    fit.column = std::max(fit.column, entry);
  }
  return fit;
}

// One line when the title and both series' names fit the width being drawn; else the legend
// stacks its entries on the right (a taller header), and only names that still do not fit
// are shortened. On screen a header is as tall as the other one in its row of the grid, so
// their data areas line up; an export, drawn at a size of its own, needs only its own.
void LatencyCharts::Impl::arrangeHeader(Chart chart) {
  QCustomPlot* plot = plots[chart];
  QCPLegend* legend = plot->legend;
  const LegendFit fit = legendFit(chart, plot->viewport().width());
  const bool one_line = fit.fitsOneLine();
  const int wrap = one_line ? 0 : 1;
  if (legend->wrap() != wrap) {
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  }
  const QFontMetrics fm(legend->font());
  const int key = legendKeyWidth(legend);
  for (int s = 0; s < kSeriesCount; ++s) {
    const QString name = one_line || fit.column <= fit.room
                             ? series[s].name
                             : fm.elidedText(series[s].name, Qt::ElideMiddle, std::max(fit.room - key, fm.averageCharWidth() * 3));
    plottable(chart, s)->setName(name);
  }
  const Chart partner = chart == TtftOverTime ? TtftCdf
                        : chart == TtftCdf    ? TtftOverTime
                        : chart == TokenRate  ? ItlHistogram
                                              : TokenRate;
  const bool on_screen = plot->viewport() == plot->rect();
  const bool partner_tall = on_screen && plots[partner]->isVisible() &&
                            !legendFit(partner, plots[partner]->viewport().width()).fitsOneLine();
  const int line = std::max(fm.height(), legend->iconSize().height()) + 4;
  const int height = std::max(QFontMetrics(titles[chart]->font()).height(), one_line && !partner_tall ? line : 2 * line) + 10;
  headers[chart]->setMinimumSize(0, height);
  headers[chart]->setMaximumSize(QWIDGETSIZE_MAX, height);
}

void LatencyCharts::Impl::toggleFromLegend(QCPAbstractLegendItem* item) {
  auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!entry) return;
  for (int s = 0; s < kSeriesCount; ++s)
    for (int c = 0; c < 4; ++c)
      if (entry->plottable() == plottable(Chart(c), s)) return q->setSeriesVisible(s, !shown[s]);
}

// Percentile labels sit in the right margin at their line's height, pushed apart so that
// labels of close values (or of both series) never overlap.
void LatencyCharts::Impl::placePercentileLabels() {
  QCustomPlot* plot = plots[TtftOverTime];
  QFontMetrics fm(pct_labels[0][0]->font());
  const double gap = fm.height();
  struct Label {
    PassiveText* item;
    double y;
  };
  std::vector<Label> labels;
  for (auto& per_series : pct_labels)
    for (PassiveText* item : per_series)
      if (item->visible())
        labels.push_back({item, plot->yAxis->coordToPixel(item->property("value").toDouble())});
  if (labels.empty()) return;
  // Highest value (smallest pixel y) first.
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  const QRect rect = plot->axisRect()->rect();
  std::vector<double> ys;
  for (const Label& l : labels) ys.push_back(l.y);
  spreadLabels(ys, gap, rect.top() + gap / 2, rect.bottom() - gap / 2);
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i].item->position->setCoords(1, plot->yAxis->pixelToCoord(ys[i]));
}

void LatencyCharts::Impl::onClick(QCPAbstractPlottable* plottable, int data_index) {
  for (int s = 0; s < kSeriesCount; ++s) {
    const bool is_ttft = plottable == ttft[s];
    if (!is_ttft && plottable != tps[s]) continue;
    auto data = static_cast<QCPGraph*>(plottable)->data();
    if (data_index < 0 || data_index >= data->size()) return;
    const QCPGraphData point = *data->at(data_index);
    const auto& points = series[s].points;
    for (auto it = points.rbegin(); it != points.rend(); ++it) {
      if (it->t == point.key && (is_ttft ? it->ttft : it->tps) == point.value) {
        marked = Marked{s, *it};
        placeMarks();
        for (Chart c : {TtftOverTime, TokenRate}) plots[c]->replot(QCustomPlot::rpQueuedReplot);
        emit q->requestClicked(s, it->request);
        return;
      }
    }
    return;
  }
}

LatencyCharts::LatencyCharts(QWidget* parent) : QWidget(parent), d_(std::make_unique<Impl>(this)) {
  d_->series[0].name = tr("baseline");
  d_->series[1].name = tr("candidate");
  d_->timer.setSingleShot(true);
  d_->timer.setInterval(kFlushIntervalMs);
  connect(&d_->timer, &QTimer::timeout, this, &LatencyCharts::flush);
  d_->build();
}

LatencyCharts::~LatencyCharts() = default;

void LatencyCharts::setSeriesName(int series, const QString& name) {
  if (series < 0 || series >= kSeriesCount) return;
  d_->series[series].name = name;
  d_->updateLegends();
  for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
}

QString LatencyCharts::seriesName(int series) const {
  if (series < 0 || series >= kSeriesCount) return {};
  return d_->series[series].name;
}

void LatencyCharts::addPoints(int series, const std::vector<RequestPoint>& batch) {
  if (series < 0 || series >= kSeriesCount || batch.empty()) return;
  ChartSeries& s = d_->series[series];
  std::size_t added = 0;
  for (const RequestPoint& p : batch) {
    if (!std::isfinite(p.t_s)) continue;
    StoredRequest stored;
    stored.t = p.t_s;
    stored.ttft = finiteOr(p.ttft_ms, kNaN);
    stored.tps = finiteOr(p.tokens_per_s, kNaN);
    stored.request = p.request;
    for (double itl : p.itl_ms)
      if (std::isfinite(itl)) s.itl.add(itl);
    stored.itl_end = s.itl.added();
    s.add(stored);
    ++added;
  }
  if (s.points.size() > d_->max_points) s.dropOldest(s.points.size() - d_->max_points);
  s.itl.dropBeyond(kMaxItlSamples);
  if (added == 0) return;
  d_->markDirty();
}

void LatencyCharts::clear() {
  for (int i = 0; i < kSeriesCount; ++i) {
    ChartSeries& s = d_->series[i];
    QString name = s.name;
    s = ChartSeries{};
    s.name = name;
    d_->ttft[i]->data()->clear();
    d_->tps[i]->data()->clear();
  }
  d_->marked.reset();
  d_->timer.stop();
  d_->dirty = false;
  d_->updateCharts();
  for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
  emit cleared();
}

void LatencyCharts::setSeriesVisible(int series, bool visible) {
  if (series < 0 || series >= kSeriesCount || d_->shown[series] == visible) return;
  d_->shown[series] = visible;
  flush();  // pending points first, so the redraw below shows them too
  d_->updateCharts();
  for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
  emit seriesVisibilityChanged(series, visible);
}

bool LatencyCharts::seriesVisible(int series) const {
  return series >= 0 && series < kSeriesCount && d_->shown[series];
}

void LatencyCharts::addRunningItl(int series, const std::vector<double>& itl_ms) {
  if (series < 0 || series >= kSeriesCount) return;
  std::size_t added = 0;
  for (double itl : itl_ms)
    if (std::isfinite(itl)) {
      d_->series[series].running_itl.add(itl);
      ++added;
    }
  if (added == 0) return;
  d_->markDirty();
}

void LatencyCharts::clearRunningItl(int series) {
  if (series < 0 || series >= kSeriesCount || d_->series[series].running_itl.empty()) return;
  d_->series[series].running_itl = {};
  d_->markDirty();
}

std::vector<double> LatencyCharts::ttftValues(int series) const {
  std::vector<double> values;
  if (series < 0 || series >= kSeriesCount) return values;
  const ChartSeries& s = d_->series[series];
  values.reserve(s.ttft_held);
  for (const StoredRequest& p : s.points)
    if (std::isfinite(p.ttft)) values.push_back(p.ttft);
  return values;
}

std::size_t LatencyCharts::pointCount(int series) const {
  if (series < 0 || series >= kSeriesCount) return 0;
  return d_->series[series].points.size();
}

std::size_t LatencyCharts::itlSampleCount(int series) const {
  if (series < 0 || series >= kSeriesCount) return 0;
  return d_->series[series].itl.size() + d_->series[series].running_itl.size();
}

std::optional<LatencyCharts::Percentiles> LatencyCharts::ttftPercentiles(int series) const {
  if (series < 0 || series >= kSeriesCount) return std::nullopt;
  const ChartSeries& s = d_->series[series];
  std::vector<double> fresh;
  const std::vector<double>* sorted = &s.sorted_ttft;
  if (s.pending()) {
    fresh = ttftValues(series);
    std::sort(fresh.begin(), fresh.end());
    sorted = &fresh;
  }
  if (sorted->empty()) return std::nullopt;
  return Percentiles{percentileOfSorted(*sorted, 50), percentileOfSorted(*sorted, 95),
                     percentileOfSorted(*sorted, 99)};
}

void LatencyCharts::setAdaptiveSampling(bool on) {
  for (int s = 0; s < kSeriesCount; ++s)
    for (QCPGraph* g : {d_->ttft[s], d_->tps[s], d_->cdf[s]})
      if (g) g->setAdaptiveSampling(on);
}

void LatencyCharts::setMaxPoints(std::size_t max_points) {
  d_->max_points = std::max<std::size_t>(max_points, 1);
  bool dropped = false;
  for (auto& s : d_->series) {
    if (s.points.size() > d_->max_points) {
      s.dropOldest(s.points.size() - d_->max_points);
      dropped = true;
    }
  }
  if (dropped) d_->markDirty();
}

std::size_t LatencyCharts::maxPoints() const { return d_->max_points; }

void LatencyCharts::flush() {
  d_->timer.stop();
  if (!d_->dirty) return;
  d_->dirty = false;
  for (int i = 0; i < kSeriesCount; ++i) d_->sync(d_->series[i], i);
  d_->updateCharts();
  for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
}

void LatencyCharts::setChartVisible(Chart chart, bool visible) {
  if (QCustomPlot* p = plot(chart)) p->setVisible(visible);
}

QCustomPlot* LatencyCharts::plot(Chart chart) const {
  if (chart < TtftOverTime || chart > TtftCdf) return nullptr;
  return d_->plots[chart];
}

bool LatencyCharts::exportChart(Chart chart, const QString& path, QString* error) {
  auto fail = [&](const QString& message) {
    if (error) *error = message;
    return false;
  };
  QCustomPlot* p = plot(chart);
  if (!p) return fail(tr("Cannot export to %1: unknown chart").arg(QDir::toNativeSeparators(path)));
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("pdf") &&
      suffix != QLatin1String("svg"))
    return fail(tr("Cannot export to %1: unknown file type \"%2\" (use .png, .pdf or .svg)")
                    .arg(QDir::toNativeSeparators(path), suffix.isEmpty() ? tr("none") : suffix));
  flush();
  // The on-screen size when it is larger than a report's; the header is arranged for the
  // size written (arrangeHeader runs before each layout), so nothing is cut at either.
  int width = kExportWidth, height = kExportHeight;
  if (p->isVisible()) {
    width = std::max(width, p->width());
    height = std::max(height, p->height());
  }
  // Vector formats get vector dots (pixmap dots would be embedded as images); the PNG, drawn
  // at twice the size, dots drawn for that.
  auto restyle = [&](Impl::Dots dots) {
    for (int s = 0; s < kSeriesCount; ++s) {
      if (chart == TtftOverTime) d_->styleGraph(d_->ttft[s], s, dots);
      if (chart == TokenRate) d_->styleGraph(d_->tps[s], s, dots);
    }
  };
  restyle(suffix == QLatin1String("png") ? Impl::Dots::Png : Impl::Dots::Vector);
  QString reason;
  const bool ok =
      writePlot(p, suffix, path, QSize(width, height), d_->titles[chart]->text(), &reason);
  restyle(Impl::Dots::Screen);
  // Exports lay the plot out at their own size: lay it out for the screen again.
  p->replot(QCustomPlot::rpQueuedReplot);
  if (!ok)
    return fail(reason.isEmpty()
                    ? tr("Cannot write %1").arg(QDir::toNativeSeparators(path))
                    : tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), reason));
  return true;
}

void LatencyCharts::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (!d_ || !d_->plots[0]) return;
  switch (event->type()) {
    case QEvent::LanguageChange:
      d_->retranslate();
      d_->updateCharts();  // the histogram's note too
      for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
      break;
    case QEvent::PaletteChange:
    case QEvent::StyleChange:
    case QEvent::FontChange:
      d_->applyTheme();
      d_->updateLegends();
      for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
      break;
    default:
      break;
  }
}

}  // namespace anthro::widgets
