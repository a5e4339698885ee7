#include "latency_charts.h"

#include "file_dialog.h"
#include "chart_math.h"
#include "latency_charts_impl.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QMenu>
#include <QGridLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace anthro::widgets {
namespace {

using namespace chart_detail;

constexpr int kFlushIntervalMs = 50;
// The header's distance from the plot's edges, and the gap between title and legend.
constexpr int kHeaderInset = 6, kHeaderGap = 12;

// A legend entry's width besides its text: icon, padding and the item's margins.
int legendKeyWidth(const QCPLegend* legend) {
  return legend->iconSize().width() + legend->iconTextPadding() + 16;
}

}  // namespace


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

  grid = new QGridLayout(q);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(1);
  placeCharts();

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
    stored.ttft = finiteOr(p.ttft_ms, Impl::kNaN);
    stored.tps = finiteOr(p.tokens_per_s, Impl::kNaN);
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
  d_->placeCharts();
}

// The charts shown, two a row in reading order (TTFT over time and its CDF first), so a hidden
// chart leaves no hole: its neighbours take its room.
void LatencyCharts::Impl::placeCharts() {
  for (QCustomPlot* p : plots) grid->removeWidget(p);
  int at = 0;
  for (Chart c : {TtftOverTime, TtftCdf, TokenRate, ItlHistogram})
    if (!plots[c]->isHidden()) grid->addWidget(plots[c], at / 2, at % 2), ++at;
  for (int i = 0; i < 2; ++i) grid->setRowStretch(i, i <= (at - 1) / 2 ? 1 : 0);
  // The time charts are wider than the distributions beside them.
  const bool time_first = !plots[TtftOverTime]->isHidden() || !plots[TokenRate]->isHidden();
  grid->setColumnStretch(0, time_first ? 3 : 1);
  grid->setColumnStretch(1, time_first ? 2 : 1);
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
