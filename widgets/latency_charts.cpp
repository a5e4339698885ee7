#include "latency_charts.h"

// The only widget translation unit that includes qcustomplot.h (~8 s, 650 MB to compile).
#include <qcustomplot.h>

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QGridLayout>
#include <QPainter>
#include <QSvgGenerator>
#include <QTimer>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <utility>

#include <stdio.h>  // ::rename: atomic replacement of the target on POSIX

namespace anthro::widgets {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kFlushIntervalMs = 50;
// Above this many points a series is drawn with smaller, translucent dots.
constexpr int kDotLimit = 5'000;
constexpr double kSparseDot = 5.5, kDenseDot = 4;
constexpr int kSparseAlpha = 210, kDenseAlpha = 80;
// A CDF of more values is drawn through this many evenly spaced ranks (plus the last).
constexpr std::size_t kCdfPoints = 2'000;
constexpr std::array<double, 3> kPercentiles = {50, 95, 99};

// ITL samples are kept as buckets of a log histogram (0.5% wide, from 1 µs to ~20 min):
// 2 bytes a sample, and the displayed bins are re-binned from the bucket counts in O(buckets).
constexpr double kItlMinMs = 1e-3;
constexpr double kItlGrowth = 1.005;
constexpr int kItlBuckets = 4200;

const std::vector<double>& itlBucketValues() {
  static const std::vector<double> values = [] {
    std::vector<double> v(kItlBuckets);
    v[0] = 0;  // below 1 µs
    for (int b = 1; b < kItlBuckets; ++b) v[b] = kItlMinMs * std::pow(kItlGrowth, b - 0.5);
    return v;
  }();
  return values;
}

// Lower edge of a bucket (bucket 0 starts at 0).
double bucketLow(int bucket) {
  return bucket <= 0 ? 0 : kItlMinMs * std::pow(kItlGrowth, bucket - 1);
}

std::uint16_t itlBucket(double ms) {
  static const double log_growth = std::log(kItlGrowth);
  if (!(ms >= kItlMinMs)) return 0;
  double b = std::floor(std::log(ms / kItlMinMs) / log_growth) + 1;
  return static_cast<std::uint16_t>(std::min<double>(b, kItlBuckets - 1));
}

double finiteOr(const std::optional<double>& v, double fallback) {
  return v && std::isfinite(*v) ? *v : fallback;
}

// numpy's default ("linear") percentile of sorted values, as anthro::percentile.
double percentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return kNaN;
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

// Removes one occurrence of each value of `remove` (a sub-multiset of `sorted`).
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

// Removes one data point per (key, value) of `remove` from a graph's key-sorted container.
// Only the prefix up to the largest removed key is touched (the oldest points usually have
// the smallest keys), and the removed slots end up at the front, where removeBefore() drops
// them without moving the rest.
void removeFromGraph(QCPGraphDataContainer& data, std::vector<std::pair<double, double>> remove) {
  if (remove.empty() || data.isEmpty()) return;
  std::sort(remove.begin(), remove.end());
  QCPGraphData* const begin = &*data.begin();
  QCPGraphData* const prefix_end = std::upper_bound(
      begin, begin + data.size(), remove.back().first,
      [](double key, const QCPGraphData& d) { return key < d.key; });
  const auto n = static_cast<std::size_t>(prefix_end - begin);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::pair(begin[a].key, begin[a].value) < std::pair(begin[b].key, begin[b].value);
  });
  std::vector<char> drop(n, 0);
  std::size_t dropped = 0;
  auto r = remove.begin();
  for (std::uint32_t i : order) {
    const std::pair<double, double> kv(begin[i].key, begin[i].value);
    while (r != remove.end() && *r < kv) ++r;
    if (r != remove.end() && *r == kv) {
      drop[i] = 1;
      ++dropped;
      ++r;
    }
  }
  if (dropped == 0) return;
  if (dropped == static_cast<std::size_t>(data.size())) {
    data.clear();
    return;
  }
  std::size_t write = n;
  for (std::size_t i = n; i-- > 0;)
    if (!drop[i]) begin[--write] = begin[i];
  for (std::size_t i = 0; i < write; ++i)
    begin[i].key = -std::numeric_limits<double>::infinity();
  data.removeBefore(begin[write].key);
}

void addToGraph(QCPGraphDataContainer& data, QVector<QCPGraphData> add) {
  if (add.isEmpty()) return;
  std::stable_sort(add.begin(), add.end(),
                   [](const QCPGraphData& a, const QCPGraphData& b) { return a.key < b.key; });
  data.add(add, true);
}

// Rounds a positive step up to 1, 2, 2.5 or 5 times a power of ten.
double niceStep(double step) {
  if (!(step > 0) || !std::isfinite(step)) return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(step)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  return 10 * magnitude;
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

// Decorations that never take a click from the data points under them.
class PassiveLine : public QCPItemStraightLine {
 public:
  using QCPItemStraightLine::QCPItemStraightLine;
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
};

class PassiveText : public QCPItemText {
 public:
  using QCPItemText::QCPItemText;
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
};

// A request series drawn as dots. Its legend key is a solid dot whatever the dots on the chart
// look like. With adaptive sampling on, it samples its dots itself, as QCPGraph does for
// scatters (per pixel column: the lowest, the highest, and every k-th point so that about one
// dot per 4 pixels of the column's value span remains, which keeps the density visible),
// but without QCPGraph's division by a zero span, which draws *every* point of a column
// whose values are all equal (e.g. a server pacing tokens at a fixed rate).
class SeriesGraph : public QCPGraph {
 public:
  using QCPGraph::QCPGraph;
  QColor key_colour;

 protected:
  void draw(QCPPainter* painter) override {
    if (!mAdaptiveSampling || mLineStyle != lsNone || mScatterStyle.isNone() || !mKeyAxis ||
        !mValueAxis || mDataContainer->isEmpty() || mKeyAxis->range().size() <= 0) {
      QCPGraph::draw(painter);
      return;
    }
    QVector<QPointF> dots;
    sampleDots(&dots);
    drawScatterPlot(painter, dots, mScatterStyle);
  }

  void sampleDots(QVector<QPointF>* dots) const {
    QCPAxis* key_axis = mKeyAxis.data();
    QCPAxis* value_axis = mValueAxis.data();
    QCPGraphDataContainer::const_iterator begin, end;
    getVisibleDataBounds(begin, end, QCPDataRange(0, mDataContainer->size()));
    const QCPRange values = value_axis->range();
    auto visible = [&](double v) { return v >= values.lower && v <= values.upper; };
    auto it = begin;
    while (it != end) {
      // One pixel column: [it, column_end), the points left of the next pixel's key.
      const double next_pixel = std::floor(key_axis->coordToPixel(it->key)) + 1;
      const double limit = key_axis->pixelToCoord(next_pixel);
      const bool forward = limit > it->key;  // else a reversed axis: one point per step
      auto column_end = it;
      auto lowest = end, highest = end;
      double low = std::numeric_limits<double>::infinity(), high = -low;
      int count = 0;
      do {
        const double v = column_end->value;
        if (v < low && v >= values.lower) {
          low = v;
          lowest = column_end;
        }
        if (v > high && v <= values.upper) {
          high = v;
          highest = column_end;
        }
        ++column_end;
        ++count;
      } while (forward && column_end != end && column_end->key < limit);
      if (lowest != end && visible(lowest->value)) {
        const double span = std::fabs(value_axis->coordToPixel(high) - value_axis->coordToPixel(low));
        const int keep = std::max(1, static_cast<int>(span / 4));
        const int every = std::max(1, (count + keep - 1) / keep);
        int countdown = 0;
        for (auto p = it; p != column_end; ++p) {
          const bool nth = countdown == 0;
          countdown = nth ? every - 1 : countdown - 1;
          if ((nth || p == lowest || p == highest) && visible(p->value))
            dots->append(coordsToPixels(p->key, p->value));
        }
      }
      it = column_end;
    }
  }

  // Pixmap dots centred by their size in device-independent pixels (QCPScatterStyle uses
  // device pixels, which puts high-DPI pixmaps off centre).
  void drawScatterPlot(QCPPainter* painter, const QVector<QPointF>& dots,
                       const QCPScatterStyle& style) const override {
    if (style.shape() != QCPScatterStyle::ssPixmap) {
      QCPGraph::drawScatterPlot(painter, dots, style);
      return;
    }
    const QPixmap& pixmap = style.pixmap();
    const QSizeF half = pixmap.deviceIndependentSize() / 2;
    for (const QPointF& dot : dots)
      painter->drawPixmap(QPointF(dot.x() - half.width(), dot.y() - half.height()), pixmap);
  }

  void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
    const double d = std::min(rect.height(), 8.0);
    painter->setAntialiasing(true);
    painter->setPen(Qt::NoPen);
    painter->setBrush(key_colour);
    painter->drawEllipse(QRectF(rect.center().x() - d / 2, rect.center().y() - d / 2, d, d));
  }
};

QPixmap dotPixmap(const QColor& colour, double diameter, double pixel_ratio) {
  const int side = static_cast<int>(std::ceil(diameter)) + 1;
  const int device_side = static_cast<int>(std::ceil(side * pixel_ratio));
  QPixmap pixmap(device_side, device_side);
  pixmap.setDevicePixelRatio(pixel_ratio);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(Qt::NoPen);
  painter.setBrush(colour);
  const double inset = (side - diameter) / 2;
  painter.drawEllipse(QRectF(inset, inset, diameter, diameter));
  return pixmap;
}

// Sample counts: 800k, 1.2M rather than 800000, 1.2e+06.
class CountTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar, int) override {
    const double magnitude = std::fabs(tick);
    if (magnitude >= 1e6) return locale.toString(tick / 1e6, 'g', 4) + QLatin1Char('M');
    if (magnitude >= 1e4) return locale.toString(tick / 1e3, 'g', 4) + QLatin1Char('k');
    return locale.toString(tick, 'g', 6);
  }
};

struct Theme {
  QColor base, text, muted, axis, grid;
  std::array<QColor, LatencyCharts::kSeriesCount> series, strong;
};

Theme themeFor(const QPalette& palette) {
  Theme t;
  t.base = palette.color(QPalette::Base);
  t.text = palette.color(QPalette::Text);
  const bool dark = t.base.lightnessF() < 0.5;
  t.muted = mix(t.base, t.text, 0.72);
  t.axis = mix(t.base, t.text, 0.45);
  t.grid = mix(t.base, t.text, dark ? 0.16 : 0.11);
  // Blue and orange (Okabe-Ito based): colour-blind safe, distinct on light and dark bases.
  if (dark) {
    t.series = {QColor(0x5a, 0xa9, 0xe6), QColor(0xf0, 0xa2, 0x3b)};
    t.strong = {QColor(0xa8, 0xd4, 0xf7), QColor(0xff, 0xd0, 0x8a)};
  } else {
    t.series = {QColor(0x1f, 0x6f, 0xb4), QColor(0xe0, 0x7b, 0x00)};
    t.strong = {QColor(0x0b, 0x3c, 0x6b), QColor(0x8a, 0x45, 0x00)};
  }
  return t;
}

}  // namespace

struct LatencyCharts::Impl {
  // One held request; NaN marks a missing value.
  struct Stored {
    double t = 0, ttft = kNaN, tps = kNaN;
    std::uint64_t itl_end = 0;  // ITL samples ever added up to and including this point
    int request = 0;
  };

  struct Series {
    QString name;
    std::deque<Stored> points;  // oldest first
    std::size_t ttft_held = 0;
    // Points at the back not yet in the graphs/sorted values, and synced points dropped
    // since (to remove from them). `rebuild` replaces both when dropping that much is
    // cheaper done by rebuilding.
    std::size_t unsynced = 0;
    std::vector<Stored> dropped;
    bool rebuild = false;
    std::vector<double> sorted_ttft, sorted_tps;  // synced values, ascending
    // ITL samples as log-histogram buckets, oldest first, and the counts per bucket.
    std::deque<std::uint16_t> itl;
    std::uint64_t itl_added = 0, itl_dropped = 0;
    std::vector<std::uint64_t> itl_counts = std::vector<std::uint64_t>(kItlBuckets, 0);
  };

  LatencyCharts* q;
  std::array<Series, kSeriesCount> series;
  std::size_t max_points = kMaxPoints;
  bool dirty = false;
  QTimer timer;
  Theme theme;

  std::array<QCustomPlot*, 4> plots{};
  std::array<QCPTextElement*, 4> titles{};
  std::array<QCPLayoutGrid*, 4> headers{};
  std::array<PassiveText*, 4> empty_notes{};
  std::array<QCPGraph*, kSeriesCount> ttft{}, tps{}, cdf{};
  std::array<QCPBars*, kSeriesCount> hist{};
  std::array<std::array<PassiveLine*, 3>, kSeriesCount> pct_lines{};
  std::array<std::array<PassiveText*, 3>, kSeriesCount> pct_labels{};
  std::array<PassiveLine*, 3> cdf_guides{};
  std::array<PassiveText*, 3> cdf_guide_labels{};
  PassiveText* hist_note = nullptr;
  // Dots as pixmaps for the screen or for 2x PNG exports, or as vector discs for PDF/SVG.
  enum class Dots { Screen, Png, Vector };
  std::array<std::array<QPixmap, 2>, kSeriesCount> dot_pixmaps;  // [series][dense]
  double dot_pixel_ratio = 0;                                     // of dot_pixmaps

  explicit Impl(LatencyCharts* owner) : q(owner) {}

  QCustomPlot* makePlot(Chart chart, const QString& title, const QString& x_label,
                        const QString& y_label);
  void build();
  void retranslate();
  void exportWithDialog(Chart chart);
  void applyTheme();
  void applyMargins();
  void styleGraph(QCPGraph* g, int s, Dots dots = Dots::Screen);
  void dropOldest(Series& s, std::size_t count);
  void sync(Series& s, int index);
  void updateCharts();
  void updateHistogram();
  void updateLegends();
  void placePercentileLabels();
  void onClick(QCPAbstractPlottable* plottable, int data_index);
};

QCustomPlot* LatencyCharts::Impl::makePlot(Chart chart, const QString& title,
                                           const QString& x_label, const QString& y_label) {
  auto* plot = new QCustomPlot(q);
  plot->setObjectName(QStringLiteral("latency-chart-%1").arg(int(chart)));
  plot->setInteractions(QCP::Interactions());
  plot->setSelectionTolerance(8);
  plot->setMinimumSize(320, 220);

  // Header row: title on the left, a one-line legend on the right, outside the data area.
  plot->plotLayout()->insertRow(0);
  auto* header = new QCPLayoutGrid;
  plot->plotLayout()->addElement(0, 0, header);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
  plot->plotLayout()->setRowSpacing(0);
  header->setAutoMargins(QCP::msNone);
  header->setColumnSpacing(8);
  auto* title_element = new QCPTextElement(plot, title);
  title_element->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  title_element->setAutoMargins(QCP::msNone);
  title_element->setMargins(QMargins(0, 6, 0, 4));
  header->addElement(0, 0, title_element);
  plot->legend->setVisible(true);
  plot->axisRect()->insetLayout()->take(plot->legend);
  header->addElement(0, 1, plot->legend);
  header->setColumnStretchFactor(0, 1);
  header->setColumnStretchFactor(1, 0.001);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setAutoMargins(QCP::msNone);
  plot->legend->setMargins(QMargins(0, 6, 0, 4));
  plot->legend->setColumnSpacing(14);
  plot->legend->setRowSpacing(0);
  plot->legend->setIconSize(16, 10);
  plot->legend->setIconTextPadding(6);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setBrush(Qt::NoBrush);
  plot->legend->setSelectableParts(QCPLegend::spNone);

  // Percentile lines are drawn above the data points.
  plot->addLayer(QStringLiteral("thresholds"), plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);

  auto* rect = plot->axisRect();
  rect->setAutoMargins(QCP::msNone);
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel(y_label);
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setSubTicks(false);
    axis->setTickLengthIn(0);
    axis->setTickLengthOut(4);
    axis->setTickLabelPadding(4);
    axis->setLabelPadding(6);
    axis->setNumberFormat(QStringLiteral("g"));
    axis->setNumberPrecision(6);
    axis->setSelectableParts(QCPAxis::spNone);
    axis->ticker()->setTickCount(6);
  }
  plot->xAxis->grid()->setVisible(true);

  auto* note = new PassiveText(plot);
  note->setClipToAxisRect(false);
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setAxisRect(rect);
  note->position->setCoords(0.5, 0.5);
  note->setPositionAlignment(Qt::AlignCenter);
  note->setText(tr("No data"));
  empty_notes[chart] = note;

  titles[chart] = title_element;
  headers[chart] = header;
  plots[chart] = plot;
  QObject::connect(plot, &QCustomPlot::plottableClick, q,
                   [this](QCPAbstractPlottable* p, int index, QMouseEvent*) { onClick(p, index); });
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, q, [this, chart, plot](const QPoint& at) {
    QMenu menu(plot);
    menu.addAction(tr("Export chart…"), q, [this, chart] { exportWithDialog(chart); });
    menu.exec(plot->mapToGlobal(at));
  });
  return plot;
}

// Asks where to write the chart; the outcome goes to the log, never to a dialog.
void LatencyCharts::Impl::exportWithDialog(Chart chart) {
  QString path = QFileDialog::getSaveFileName(q, tr("Export chart"), titles[chart]->text() + ".png",
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
  for (Chart chart : {TtftOverTime, TokenRate, ItlHistogram, TtftCdf}) makePlot(chart, {}, {}, {});
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
      auto* line = new PassiveLine(plots[TtftOverTime]);
      line->setObjectName(QStringLiteral("p%1-%2").arg(kPercentiles[i]).arg(s));
      line->point1->setCoords(0, 0);
      line->point2->setCoords(1, 0);
      line->setLayer(QStringLiteral("thresholds"));
      line->setVisible(false);
      pct_lines[s][i] = line;
      auto* label = new PassiveText(plots[TtftOverTime]);
      label->setObjectName(QStringLiteral("p%1-%2-label").arg(kPercentiles[i]).arg(s));
      label->setClipToAxisRect(false);
      label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
      label->position->setTypeY(QCPItemPosition::ptPlotCoords);
      label->position->setAxisRect(plots[TtftOverTime]->axisRect());
      label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      label->setPadding(QMargins(6, 0, 0, 0));
      label->setVisible(false);
      pct_labels[s][i] = label;
    }
  }
  // Reading percentiles off the CDF: faint guides at 0.50, 0.95 and 0.99.
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    double y = kPercentiles[i] / 100;
    auto* guide = new PassiveLine(plots[TtftCdf]);
    guide->point1->setCoords(0, y);
    guide->point2->setCoords(1, y);
    guide->setLayer(QStringLiteral("grid"));
    cdf_guides[i] = guide;
    auto* label = new PassiveText(plots[TtftCdf]);
    label->setClipToAxisRect(false);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->position->setAxisRect(plots[TtftCdf]->axisRect());
    label->position->setCoords(1, y);
    label->setPositionAlignment(Qt::AlignLeft | (i == 1 ? Qt::AlignTop : i == 2 ? Qt::AlignBottom
                                                                               : Qt::AlignVCenter));
    label->setPadding(QMargins(6, 0, 0, 0));
    label->setText(QStringLiteral("p%1").arg(kPercentiles[i]));
    cdf_guide_labels[i] = label;
  }
  auto fraction_ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  fraction_ticker->setTickStep(0.25);
  fraction_ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  plots[TtftCdf]->yAxis->setTicker(fraction_ticker);
  plots[TtftCdf]->yAxis->setNumberFormat(QStringLiteral("f"));
  plots[TtftCdf]->yAxis->setNumberPrecision(2);
  plots[TtftCdf]->yAxis->setRange(0, 1.02);
  plots[ItlHistogram]->yAxis->setTicker(QSharedPointer<CountTicker>::create());
  plots[ItlHistogram]->yAxis->ticker()->setTickCount(6);

  hist_note = new PassiveText(plots[ItlHistogram]);
  hist_note->position->setType(QCPItemPosition::ptAxisRectRatio);
  hist_note->position->setAxisRect(plots[ItlHistogram]->axisRect());
  hist_note->position->setCoords(1, 0);
  hist_note->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  hist_note->setPadding(QMargins(0, 4, 4, 0));
  hist_note->setVisible(false);

  QObject::connect(plots[TtftOverTime], &QCustomPlot::afterLayout, q,
                   [this] { placePercentileLabels(); });

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
  // The header (title, legend) has a fixed height too: a legend appearing never moves the axes.
  const int header = fm.height() + 16;
  for (int c = 0; c < 4; ++c) {
    const int right = (c == TtftOverTime || c == TokenRate) ? right_time : right_dist;
    plots[c]->axisRect()->setMargins(QMargins(left, top, right, bottom));
    headers[c]->setMargins(QMargins(left, 0, right, 0));
    headers[c]->setMinimumSize(0, header);
    headers[c]->setMaximumSize(QWIDGETSIZE_MAX, header);
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
    QCustomPlot* plot = plots[c];
    plot->setBackground(QBrush(theme.base));
    plot->axisRect()->setBackground(QBrush(theme.base));
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
      axis->setBasePen(QPen(theme.axis, 1));
      axis->setTickPen(QPen(theme.axis, 1));
      axis->setTickLabelColor(theme.text);
      axis->setTickLabelFont(font);
      axis->setLabelColor(theme.muted);
      axis->setLabelFont(font);
      axis->grid()->setPen(QPen(theme.grid, 1, Qt::SolidLine));
      axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    titles[c]->setFont(title_font);
    titles[c]->setTextColor(theme.text);
    plot->legend->setFont(font);
    plot->legend->setTextColor(theme.text);
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

void LatencyCharts::Impl::dropOldest(Series& s, std::size_t count) {
  for (std::size_t i = 0; i < count && !s.points.empty(); ++i) {
    const Stored p = s.points.front();
    s.points.pop_front();
    if (std::isfinite(p.ttft)) --s.ttft_held;
    if (s.points.size() < s.unsynced) {
      --s.unsynced;  // never reached the charts
    } else if (!s.rebuild) {
      s.dropped.push_back(p);
      // Removing more than a quarter of what the charts hold: rebuild them instead.
      if (s.dropped.size() > (s.points.size() + s.dropped.size()) / 4 + 64) {
        s.rebuild = true;
        s.dropped.clear();
        s.dropped.shrink_to_fit();
      }
    }
    while (s.itl_dropped < p.itl_end && !s.itl.empty()) {
      --s.itl_counts[s.itl.front()];
      s.itl.pop_front();
      ++s.itl_dropped;
    }
  }
}

void LatencyCharts::Impl::sync(Series& s, int index) {
  if (s.rebuild) {
    QVector<QCPGraphData> t, r;
    std::vector<double> st, sr;
    for (const Stored& p : s.points) {
      if (std::isfinite(p.ttft)) {
        t.append(QCPGraphData(p.t, p.ttft));
        st.push_back(p.ttft);
      }
      if (std::isfinite(p.tps)) {
        r.append(QCPGraphData(p.t, p.tps));
        sr.push_back(p.tps);
      }
    }
    auto by_key = [](const QCPGraphData& a, const QCPGraphData& b) { return a.key < b.key; };
    std::stable_sort(t.begin(), t.end(), by_key);
    std::stable_sort(r.begin(), r.end(), by_key);
    ttft[index]->data()->set(t, true);
    tps[index]->data()->set(r, true);
    std::sort(st.begin(), st.end());
    std::sort(sr.begin(), sr.end());
    s.sorted_ttft = std::move(st);
    s.sorted_tps = std::move(sr);
    s.rebuild = false;
    s.dropped.clear();
    s.unsynced = 0;
    return;
  }
  if (!s.dropped.empty()) {
    std::vector<std::pair<double, double>> t, r;
    std::vector<double> vt, vr;
    for (const Stored& p : s.dropped) {
      if (std::isfinite(p.ttft)) {
        t.emplace_back(p.t, p.ttft);
        vt.push_back(p.ttft);
      }
      if (std::isfinite(p.tps)) {
        r.emplace_back(p.t, p.tps);
        vr.push_back(p.tps);
      }
    }
    removeFromGraph(*ttft[index]->data(), std::move(t));
    removeFromGraph(*tps[index]->data(), std::move(r));
    removeSorted(s.sorted_ttft, std::move(vt));
    removeSorted(s.sorted_tps, std::move(vr));
    s.dropped.clear();
  }
  if (s.unsynced > 0) {
    QVector<QCPGraphData> t, r;
    std::vector<double> vt, vr;
    for (auto it = s.points.end() - static_cast<std::ptrdiff_t>(s.unsynced); it != s.points.end(); ++it) {
      if (std::isfinite(it->ttft)) {
        t.append(QCPGraphData(it->t, it->ttft));
        vt.push_back(it->ttft);
      }
      if (std::isfinite(it->tps)) {
        r.append(QCPGraphData(it->t, it->tps));
        vr.push_back(it->tps);
      }
    }
    addToGraph(*ttft[index]->data(), std::move(t));
    addToGraph(*tps[index]->data(), std::move(r));
    mergeSorted(s.sorted_ttft, std::move(vt));
    mergeSorted(s.sorted_tps, std::move(vr));
    s.unsynced = 0;
  }
}

void LatencyCharts::Impl::updateCharts() {
  // Time axes: shared by the TTFT and token-rate charts so they line up.
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = -t_lo;
  double ttft_lo = t_lo, ttft_hi = 0, tps_hi = 0;
  bool any_ttft = false, any_tps = false;
  for (int s = 0; s < kSeriesCount; ++s) {
    for (QCPGraph* g : {ttft[s], tps[s]}) {
      auto data = g->data();
      if (data->isEmpty()) continue;
      t_lo = std::min(t_lo, data->constBegin()->key);
      t_hi = std::max(t_hi, (data->constEnd() - 1)->key);
    }
    const Series& ser = series[s];
    if (!ser.sorted_ttft.empty()) {
      any_ttft = true;
      ttft_lo = std::min(ttft_lo, ser.sorted_ttft.front());
      ttft_hi = std::max(ttft_hi, ser.sorted_ttft.back());
    }
    if (!ser.sorted_tps.empty()) {
      any_tps = true;
      tps_hi = std::max(tps_hi, ser.sorted_tps.back());
    }
    styleGraph(ttft[s], s);
    styleGraph(tps[s], s);
  }
  if (t_lo <= t_hi) {
    double pad = std::max((t_hi - t_lo) * 0.02, 0.5);
    const double lower = t_lo >= 0 ? std::max(0.0, t_lo - pad) : t_lo - pad;
    for (Chart c : {TtftOverTime, TokenRate}) plots[c]->xAxis->setRange(lower, t_hi + pad);
  } else {
    for (Chart c : {TtftOverTime, TokenRate}) plots[c]->xAxis->setRange(0, 60);
  }
  plots[TtftOverTime]->yAxis->setRange(0, any_ttft ? std::max(ttft_hi * 1.08, 1.0) : 500);
  plots[TokenRate]->yAxis->setRange(0, any_tps ? std::max(tps_hi * 1.08, 1.0) : 100);

  // Percentile lines and the CDF.
  for (int s = 0; s < kSeriesCount; ++s) {
    const auto& sorted = series[s].sorted_ttft;
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
      if (sorted.empty()) {
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
    QVector<QCPGraphData> points;
    const std::size_t n = sorted.size();
    if (n > 0) {
      const double dn = static_cast<double>(n);
      points.append(QCPGraphData(sorted.front(), 0));
      if (n <= kCdfPoints) {
        for (std::size_t i = 0; i < n; ++i)
          points.append(QCPGraphData(sorted[i], static_cast<double>(i + 1) / dn));
      } else {
        for (std::size_t j = 0; j < kCdfPoints; ++j) {
          auto rank = static_cast<std::size_t>(std::llround(
              static_cast<double>(j) * static_cast<double>(n - 1) / double(kCdfPoints - 1)));
          points.append(QCPGraphData(sorted[rank], static_cast<double>(rank + 1) / dn));
        }
      }
    }
    cdf[s]->data()->set(points, true);
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
}

// Bins shared by both series: Freedman-Diaconis width rounded to a nice step, 12..60 bins
// over min..p99.9 (extended to the maximum when that stays readable, else the samples beyond
// go to one overflow bar at the end, explained by a note in the corner).
void LatencyCharts::Impl::updateHistogram() {
  const auto& values = itlBucketValues();
  std::vector<std::uint64_t> combined(kItlBuckets, 0);
  std::uint64_t total = 0;
  for (const Series& s : series)
    for (int b = 0; b < kItlBuckets; ++b) combined[b] += s.itl_counts[b];
  for (auto c : combined) total += c;
  hist_note->setVisible(false);
  if (total == 0) {
    for (auto* bars : hist) bars->data()->clear();
    plots[ItlHistogram]->xAxis->setRange(0, 50);
    plots[ItlHistogram]->yAxis->setRange(0, 10);
    empty_notes[ItlHistogram]->setVisible(true);
    return;
  }
  empty_notes[ItlHistogram]->setVisible(false);
  // The sample of rank floor(p * (n - 1)), counting from 0.
  auto quantile = [&](double p) {
    const auto rank = static_cast<std::uint64_t>(std::floor(p * static_cast<double>(total - 1)));
    std::uint64_t cumulative = 0;
    for (int b = 0; b < kItlBuckets; ++b) {
      cumulative += combined[b];
      if (cumulative > rank) return values[b];
    }
    return values[kItlBuckets - 1];
  };
  int first = 0, last = kItlBuckets - 1;
  while (combined[first] == 0) ++first;
  while (combined[last] == 0) --last;
  const double lo = values[first], hi = values[last];
  const double q25 = quantile(0.25), q75 = quantile(0.75), q999 = quantile(0.999);
  const double visible_hi = std::max(q999, q75);
  const double span = visible_hi - lo;
  double width = 2 * (q75 - q25) / std::cbrt(static_cast<double>(total));
  if (!(width > 0)) width = span > 0 ? span / 30 : std::max(lo * 0.02, 0.01);
  if (span > 0) width = std::clamp(width, span / 60, std::max(span / 12, 1e-6));
  width = niceStep(width);
  const double start = std::floor(lo / width) * width;
  auto bins = static_cast<std::size_t>(std::floor((visible_hi - start) / width)) + 1;
  // Fold the tail into the regular bins when that stays readable, else one overflow bar.
  const auto bins_to_max = static_cast<std::size_t>(std::floor((hi - start) / width)) + 1;
  const bool overflow = bins_to_max > std::max<std::size_t>(bins + 3, bins * 5 / 4);
  if (!overflow) bins = bins_to_max;
  const std::size_t bar_count = bins + (overflow ? 1 : 0);

  double max_count = 0;
  std::uint64_t overflow_total = 0;
  for (int s = 0; s < kSeriesCount; ++s) {
    std::vector<std::uint64_t> counts(bar_count, 0);
    for (int b = first; b <= last; ++b) {
      const std::uint64_t c = series[s].itl_counts[b];
      if (c == 0) continue;
      // Spread the bucket's samples over the bins its interval overlaps, in whole samples
      // (rounded cumulatively, so the counts add up exactly): bins never alias with buckets.
      const double from = (bucketLow(b) - start) / width, to = (bucketLow(b + 1) - start) / width;
      auto slot = [&](double x) {
        if (x < 0) return std::size_t{0};
        auto i = static_cast<std::size_t>(x);
        return i >= bins ? (overflow ? bins : bins - 1) : i;
      };
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
    QVector<QCPBarsData> data;
    data.reserve(static_cast<int>(bar_count));
    for (std::size_t i = 0; i < bar_count; ++i) {
      if (counts[i] == 0) continue;
      const auto count = static_cast<double>(counts[i]);
      data.append(QCPBarsData(start + (static_cast<double>(i) + 0.5) * width, count));
      max_count = std::max(max_count, count);
    }
    if (overflow) overflow_total += counts[bins];
    hist[s]->setWidth(width);
    hist[s]->data()->set(data, true);
  }
  if (overflow && overflow_total > 0) {
    hist_note->setText(tr("last bar: ≥ %1 ms (%2 samples)")
                           .arg(formatMs(start + static_cast<double>(bins) * width))
                           .arg(overflow_total));
    hist_note->setVisible(true);
  }
  plots[ItlHistogram]->xAxis->setRange(start, start + static_cast<double>(bar_count) * width);
  plots[ItlHistogram]->yAxis->setRange(0, std::max(max_count * 1.1, 1.0));
}

void LatencyCharts::Impl::updateLegends() {
  for (int c = 0; c < 4; ++c) {
    QCustomPlot* plot = plots[c];
    plot->legend->clearItems();
    for (int s = 0; s < kSeriesCount; ++s) {
      QCPAbstractPlottable* p = c == TtftOverTime ? static_cast<QCPAbstractPlottable*>(ttft[s])
                                : c == TokenRate  ? static_cast<QCPAbstractPlottable*>(tps[s])
                                : c == TtftCdf    ? static_cast<QCPAbstractPlottable*>(cdf[s])
                                                  : static_cast<QCPAbstractPlottable*>(hist[s]);
      p->setName(series[s].name);
      bool has_data = c == ItlHistogram ? !series[s].itl.empty()
                      : c == TokenRate  ? !series[s].sorted_tps.empty()
                                        : !series[s].sorted_ttft.empty();
      if (has_data) p->addToLegend();
    }
  }
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
  const double top = rect.top() + gap / 2, bottom = rect.bottom() - gap / 2;
  for (std::size_t i = 1; i < labels.size(); ++i)
    labels[i].y = std::max(labels[i].y, labels[i - 1].y + gap);
  if (labels.back().y > bottom) {
    labels.back().y = bottom;
    for (std::size_t i = labels.size() - 1; i-- > 0;)
      labels[i].y = std::min(labels[i].y, labels[i + 1].y - gap);
  }
  if (labels.front().y < top) {
    labels.front().y = top;
    for (std::size_t i = 1; i < labels.size(); ++i)
      labels[i].y = std::max(labels[i].y, labels[i - 1].y + gap);
  }
  for (const Label& l : labels) l.item->position->setCoords(1, plot->yAxis->pixelToCoord(l.y));
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
  Impl::Series& s = d_->series[series];
  std::size_t added = 0;
  for (const RequestPoint& p : batch) {
    if (!std::isfinite(p.t_s)) continue;
    Impl::Stored stored;
    stored.t = p.t_s;
    stored.ttft = finiteOr(p.ttft_ms, kNaN);
    stored.tps = finiteOr(p.tokens_per_s, kNaN);
    stored.request = p.request;
    for (double itl : p.itl_ms) {
      if (!std::isfinite(itl)) continue;
      std::uint16_t b = itlBucket(itl);
      s.itl.push_back(b);
      ++s.itl_counts[b];
      ++s.itl_added;
    }
    stored.itl_end = s.itl_added;
    if (std::isfinite(stored.ttft)) ++s.ttft_held;
    s.points.push_back(stored);
    ++s.unsynced;
    ++added;
  }
  if (s.points.size() > d_->max_points) d_->dropOldest(s, s.points.size() - d_->max_points);
  while (s.itl.size() > kMaxItlSamples) {
    --s.itl_counts[s.itl.front()];
    s.itl.pop_front();
    ++s.itl_dropped;
  }
  if (added == 0) return;
  d_->dirty = true;
  if (!d_->timer.isActive()) d_->timer.start();
}

void LatencyCharts::clear() {
  for (int i = 0; i < kSeriesCount; ++i) {
    Impl::Series& s = d_->series[i];
    QString name = s.name;
    s = Impl::Series{};
    s.name = name;
    d_->ttft[i]->data()->clear();
    d_->tps[i]->data()->clear();
  }
  d_->timer.stop();
  d_->dirty = false;
  d_->updateCharts();
  for (QCustomPlot* p : d_->plots) p->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<double> LatencyCharts::ttftValues(int series) const {
  std::vector<double> values;
  if (series < 0 || series >= kSeriesCount) return values;
  const Impl::Series& s = d_->series[series];
  values.reserve(s.ttft_held);
  for (const Impl::Stored& p : s.points)
    if (std::isfinite(p.ttft)) values.push_back(p.ttft);
  return values;
}

std::size_t LatencyCharts::pointCount(int series) const {
  if (series < 0 || series >= kSeriesCount) return 0;
  return d_->series[series].points.size();
}

std::size_t LatencyCharts::itlSampleCount(int series) const {
  if (series < 0 || series >= kSeriesCount) return 0;
  return d_->series[series].itl.size();
}

std::optional<LatencyCharts::Percentiles> LatencyCharts::ttftPercentiles(int series) const {
  if (series < 0 || series >= kSeriesCount) return std::nullopt;
  const Impl::Series& s = d_->series[series];
  std::vector<double> fresh;
  const std::vector<double>* sorted = &s.sorted_ttft;
  if (s.unsynced > 0 || !s.dropped.empty() || s.rebuild) {
    fresh = ttftValues(series);
    std::sort(fresh.begin(), fresh.end());
    sorted = &fresh;
  }
  if (sorted->empty()) return std::nullopt;
  return Percentiles{percentileOfSorted(*sorted, 50), percentileOfSorted(*sorted, 95),
                     percentileOfSorted(*sorted, 99)};
}

void LatencyCharts::setMaxPoints(std::size_t max_points) {
  d_->max_points = std::max<std::size_t>(max_points, 1);
  bool dropped = false;
  for (auto& s : d_->series) {
    if (s.points.size() > d_->max_points) {
      d_->dropOldest(s, s.points.size() - d_->max_points);
      dropped = true;
    }
  }
  if (dropped) {
    d_->dirty = true;
    if (!d_->timer.isActive()) d_->timer.start();
  }
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
  // The on-screen size when the chart is laid out, else a size that suits a report.
  int width = p->width(), height = p->height();
  if (!p->isVisible() || width < 320 || height < 220) {
    width = 900;
    height = 540;
  }
  const QString tmp = path + QStringLiteral(".tmp");
  QString reason;
  bool ok = false;
  // Vector formats get vector dots (pixmap dots would be embedded as images); the PNG, drawn
  // at twice the size, dots drawn for that.
  auto restyle = [&](Impl::Dots dots) {
    for (int s = 0; s < kSeriesCount; ++s) {
      if (chart == TtftOverTime) d_->styleGraph(d_->ttft[s], s, dots);
      if (chart == TokenRate) d_->styleGraph(d_->tps[s], s, dots);
    }
  };
  restyle(suffix == QLatin1String("png") ? Impl::Dots::Png : Impl::Dots::Vector);
  if (suffix == QLatin1String("png")) {
    ok = p->savePng(tmp, width, height, 2.0);
  } else if (suffix == QLatin1String("pdf")) {
    ok = p->savePdf(tmp, width, height, QCP::epAllowCosmetic,
                    QStringLiteral("anthro-v1 Workbench"), d_->titles[chart]->text());
    ok = ok && QFileInfo(tmp).size() > 0;
  } else {
    QFile file(tmp);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
      QSvgGenerator generator;
      generator.setOutputDevice(&file);
      generator.setSize(QSize(width, height));
      generator.setViewBox(QRect(0, 0, width, height));
      generator.setResolution(p->logicalDpiX());  // fonts sized as on screen
      generator.setTitle(d_->titles[chart]->text());
      generator.setDescription(QStringLiteral("anthro-v1 Workbench"));
      QCPPainter painter;
      if (painter.begin(&generator)) {
        p->toPainter(&painter, width, height);
        ok = painter.end();
      }
      ok = ok && file.flush() && file.error() == QFileDevice::NoError;
      if (file.error() != QFileDevice::NoError) reason = file.errorString();
      file.close();
    } else {
      reason = file.errorString();
    }
  }
  restyle(Impl::Dots::Screen);
  // Exports lay the plot out at their own size: lay it out for the screen again.
  p->replot(QCustomPlot::rpQueuedReplot);
  if (!ok) {
    if (reason.isEmpty()) {  // QCustomPlot only says false: ask the file system why
      QFile probe(tmp);
      if (!probe.open(QIODevice::WriteOnly)) reason = probe.errorString();
    }
    QFile::remove(tmp);
    return fail(reason.isEmpty()
                    ? tr("Cannot write %1").arg(QDir::toNativeSeparators(path))
                    : tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), reason));
  }
  if (::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) != 0) {
    const QString why = QString::fromLocal8Bit(std::strerror(errno));
    QFile::remove(tmp);
    return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), why));
  }
  return true;
}

void LatencyCharts::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (!d_ || !d_->plots[0]) return;
  switch (event->type()) {
    case QEvent::LanguageChange:
      d_->retranslate();
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
