// QCustomPlot pieces of LatencyCharts: passive items and their factories, the series graph and
// its dots, the count ticker, the chart frame, graph-data upkeep and CDF points, the theme, and
// writing a plot to a file.
//
// Include this ONLY where qcustomplot.h is already included (latency_charts_impl.h,
// evidence_chart.cpp): it costs ~8 s and 650 MB per translation unit. Hence everything here is inline.
// widgets/*.h are globbed into the target for AUTOMOC, so no class here may use Q_OBJECT.
// No tr() either: lupdate reads only widgets/*.cpp.
#pragma once

#include <qcustomplot.h>

#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include <stdio.h>  // ::rename: atomic replacement of the target on POSIX

#include "chart_math.h"
#include "latency_charts.h"

namespace anthro::widgets::chart_detail {

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

class PassiveRect : public QCPItemRect {
 public:
  using QCPItemRect::QCPItemRect;
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
};

// A rollout stage's span on the time axis, shaded with its name at the top.
struct StageBand {
  QString name;
  double start = 0, end = 0;  // end: the next stage's start, or its last point while it runs
};

class PassiveTracer : public QCPItemTracer {
 public:
  using QCPItemTracer::QCPItemTracer;
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
};

// A ring around one point of the data area (placed by plot coordinates): the request picked.
inline PassiveTracer* makeMark(QCustomPlot* plot) {
  auto* mark = new PassiveTracer(plot);
  mark->setObjectName(QStringLiteral("selection-mark"));
  mark->setStyle(QCPItemTracer::tsCircle);
  mark->setSize(15);
  mark->setBrush(Qt::NoBrush);
  mark->setLayer(QStringLiteral("thresholds"));
  mark->position->setType(QCPItemPosition::ptPlotCoords);
  mark->setVisible(false);
  return mark;
}

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

inline QPixmap dotPixmap(const QColor& colour, double diameter, double pixel_ratio) {
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

// A line across the data area at value y, on the given layer.
inline PassiveLine* makeLevelLine(QCustomPlot* plot, double y, const QString& layer) {
  auto* line = new PassiveLine(plot);
  line->point1->setCoords(0, y);
  line->point2->setCoords(1, y);
  line->setLayer(layer);
  return line;
}

// A label in the right margin: x is a ratio of the data area (1 = its right edge), y a value.
inline PassiveText* makeMarginLabel(QCustomPlot* plot) {
  auto* label = new PassiveText(plot);
  label->setClipToAxisRect(false);
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label->position->setAxisRect(plot->axisRect());
  label->setPadding(QMargins(6, 0, 0, 0));
  return label;
}

// A note in the top right corner of the data area.
inline PassiveText* makeCornerNote(QCustomPlot* plot) {
  auto* note = new PassiveText(plot);
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setAxisRect(plot->axisRect());
  note->position->setCoords(1, 0);
  note->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  note->setPadding(QMargins(0, 4, 4, 0));
  return note;
}

// An axis of fractions, 0 to 1 (with room for a line at 1), ticked every 0.25.
inline void makeFractionAxis(QCPAxis* axis) {
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(0.25);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  axis->setTicker(ticker);
  axis->setNumberFormat(QStringLiteral("f"));
  axis->setNumberPrecision(2);
  axis->setRange(0, 1.02);
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

// The header row of a chart (title, legend). Before each layout, on screen or for an export at
// another size, it lets its owner arrange it for the plot's width (`prepare`), so the title
// and legend are fitted to the size being drawn.
class HeaderGrid : public QCPLayoutGrid {
 public:
  std::function<void()> prepare;

  void update(UpdatePhase phase) override {
    if (phase == upPreparation && prepare) prepare();
    QCPLayoutGrid::update(phase);
  }
};

// A chart's plot: the title and a legend in a header row above the data area, plain
// axes, a "thresholds" layer above the data, and an empty note centred in the data area
// (its text is the caller's, who translates it).
struct ChartFrame {
  QCustomPlot* plot = nullptr;
  QCPTextElement* title = nullptr;
  HeaderGrid* header = nullptr;
  PassiveText* note = nullptr;
};

inline ChartFrame makeChartFrame(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  plot->setInteractions(QCP::Interactions());
  plot->setSelectionTolerance(8);
  plot->setMinimumSize(320, 220);

  // Header row: title on the left, the legend on the right, outside the data area.
  plot->plotLayout()->insertRow(0);
  auto* header = new HeaderGrid;
  plot->plotLayout()->addElement(0, 0, header);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
  plot->plotLayout()->setRowSpacing(0);
  header->setAutoMargins(QCP::msNone);
  header->setColumnSpacing(8);
  auto* title_element = new QCPTextElement(plot, QString());
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
  return {plot, title_element, header, note};
}

// Removes one data point per (key, value) of `remove` from a graph's key-sorted container.
// Only the prefix up to the largest removed key is touched (the oldest points usually have
// the smallest keys), and the removed slots end up at the front, where removeBefore() drops
// them without moving the rest.
inline void removeFromGraph(QCPGraphDataContainer& data,
                            std::vector<std::pair<double, double>> remove) {
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

inline QVector<QCPGraphData> graphData(const std::vector<std::pair<double, double>>& points) {
  QVector<QCPGraphData> data;
  data.reserve(static_cast<qsizetype>(points.size()));
  for (const auto& [key, value] : points) data.append(QCPGraphData(key, value));
  return data;
}

inline void addToGraph(QCPGraphDataContainer& data, QVector<QCPGraphData> add) {
  if (add.isEmpty()) return;
  std::stable_sort(add.begin(), add.end(),
                   [](const QCPGraphData& a, const QCPGraphData& b) { return a.key < b.key; });
  data.add(add, true);
}

// A CDF of more values is drawn through this many evenly spaced ranks (plus the last).
constexpr std::size_t kCdfPoints = 2'000;

// The step CDF of ascending values, starting at 0 on the smallest.
inline QVector<QCPGraphData> cdfPoints(const std::vector<double>& sorted) {
  QVector<QCPGraphData> points;
  const std::size_t n = sorted.size();
  if (n == 0) return points;
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
  return points;
}

// Series colours: Okabe-Ito based, colour-blind safe, distinct on light and dark bases. A
// series keeps the colour it took first (LatencyCharts::Impl::takeColour).
constexpr int kColours = 8;

struct Theme {
  QColor base, text, muted, axis, grid;
  std::array<QColor, kColours> series, strong;
};

inline Theme themeFor(const QPalette& palette) {
  Theme t;
  t.base = palette.color(QPalette::Base);
  t.text = palette.color(QPalette::Text);
  const bool dark = t.base.lightnessF() < 0.5;
  t.muted = mix(t.base, t.text, 0.72);
  t.axis = mix(t.base, t.text, 0.45);
  t.grid = mix(t.base, t.text, dark ? 0.16 : 0.11);
  if (dark) {
    t.series = {QColor(0x5a, 0xa9, 0xe6), QColor(0xf0, 0xa2, 0x3b), QColor(0x3f, 0xc6, 0x9e), QColor(0xf0, 0x78, 0x5a),
                QColor(0xd9, 0x8c, 0xc0), QColor(0xb0, 0xb0, 0xb0), QColor(0xe6, 0xd8, 0x4a), QColor(0x9a, 0x8c, 0xf0)};
    for (int i = 0; i < kColours; ++i) t.strong[i] = i == 0 ? QColor(0xa8, 0xd4, 0xf7) : i == 1 ? QColor(0xff, 0xd0, 0x8a) : mix(t.series[i], t.text, 0.45);
  } else {
    t.series = {QColor(0x1f, 0x6f, 0xb4), QColor(0xe0, 0x7b, 0x00), QColor(0x00, 0x9e, 0x73), QColor(0xd5, 0x5e, 0x00),
                QColor(0xb8, 0x5a, 0x95), QColor(0x5f, 0x5f, 0x5f), QColor(0x9a, 0x8a, 0x00), QColor(0x5b, 0x4b, 0xc4)};
    for (int i = 0; i < kColours; ++i) t.strong[i] = i == 0 ? QColor(0x0b, 0x3c, 0x6b) : i == 1 ? QColor(0x8a, 0x45, 0x00) : mix(t.series[i], t.text, 0.45);
  }
  return t;
}

// Background, axes and legend of one plot in the theme's colours and the widget's font.
inline void stylePlot(QCustomPlot* plot, const Theme& theme, const QFont& font) {
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
  plot->legend->setFont(font);
  plot->legend->setTextColor(theme.text);
}

// Renders the plot to `path` as PNG (at twice the size), PDF or SVG by `format` ("png", "pdf",
// "svg"). False on failure, with *reason set when the file system said why.
inline bool renderPlot(QCustomPlot* plot, const QString& format, const QString& path, QSize size,
                      const QString& title, QString* reason) {
  const QString creator = QStringLiteral("anthro-v1 Workbench");
  if (format == QLatin1String("png")) return plot->savePng(path, size.width(), size.height(), 2.0);
  if (format == QLatin1String("pdf")) {
    const bool ok =
        plot->savePdf(path, size.width(), size.height(), QCP::epAllowCosmetic, creator, title);
    return ok && QFileInfo(path).size() > 0;
  }
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    *reason = file.errorString();
    return false;
  }
  QSvgGenerator generator;
  generator.setOutputDevice(&file);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setResolution(plot->logicalDpiX());  // fonts sized as on screen
  generator.setTitle(title);
  generator.setDescription(creator);
  bool ok = false;
  QCPPainter painter;
  if (painter.begin(&generator)) {
    plot->toPainter(&painter, size.width(), size.height());
    ok = painter.end();
  }
  ok = ok && file.flush() && file.error() == QFileDevice::NoError;
  if (file.error() != QFileDevice::NoError) *reason = file.errorString();
  file.close();
  return ok;
}

// renderPlot() to path + ".tmp", renamed over path, so path is never half-written. False on
// failure, leaving no file, with *reason set when the file system says why.
inline bool writePlot(QCustomPlot* plot, const QString& format, const QString& path, QSize size,
                      const QString& title, QString* reason) {
  const QString tmp = path + QStringLiteral(".tmp");
  if (!renderPlot(plot, format, tmp, size, title, reason)) {
    if (reason->isEmpty()) {  // QCustomPlot only says false: ask the file system why
      QFile probe(tmp);
      if (!probe.open(QIODevice::WriteOnly)) *reason = probe.errorString();
    }
    QFile::remove(tmp);
    return false;
  }
  if (::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) != 0) {
    *reason = QString::fromLocal8Bit(std::strerror(errno));
    QFile::remove(tmp);
    return false;
  }
  return true;
}

}  // namespace anthro::widgets::chart_detail
