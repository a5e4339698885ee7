// LatencyCharts: the widget, its charts' construction, theme, headers and legends, its series,
// export. What it holds and draws: latency_charts_data.cpp; the time view: latency_charts_view.cpp.
#include "latency_charts.h"

#include "file_dialog.h"
#include "chart_math.h"
#include "latency_charts_impl.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QMenu>
#include <QGridLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <array>

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
  if (chart == TtftOverTime || chart == TokenRate) makeNavigable(plot);
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, q, [this, chart, plot](const QPoint& at) {
    QMenu menu(plot);
    for (int s = 0; s < seriesCount(); ++s) {
      if (lines[s].colour < 0) continue;  // never had data
      QAction* show = menu.addAction(tr("Show %1").arg(lines[s].name), q,
                                     [this, s](bool on) { q->setSeriesVisible(s, on); });
      show->setCheckable(true);
      show->setChecked(lines[s].shown);
    }
    menu.addSeparator();
    if (chart == TtftOverTime || chart == TokenRate) menu.addAction(tr("Reset view"), q, &LatencyCharts::resetView);
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
  const QString texts[4][3] = {{tr("Time to first token"), tr("since this run's start (s)"), tr("TTFT (ms)")},
                               {tr("Token rate"), tr("since this run's start (s)"), tr("tokens/s")},
                               {tr("Inter-token latency"), tr("ITL (ms)"), tr("samples")},
                               {tr("TTFT distribution"), tr("TTFT (ms)"), tr("fraction")}};
  for (int chart = 0; chart < 4; ++chart) {
    titles[chart]->setText(texts[chart][0]);
    plots[chart]->xAxis->setLabel(texts[chart][1]);
    plots[chart]->yAxis->setLabel(texts[chart][2]);
    empty_notes[chart]->setText(tr("No data"));
  }
  if (strip) retranslateStrip();
}

void LatencyCharts::Impl::build() {
  for (Chart chart : {TtftOverTime, TokenRate, ItlHistogram, TtftCdf}) makePlot(chart);
  retranslate();

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

  auto* column = new QVBoxLayout(q);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  grid = new QGridLayout;
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(1);
  column->addLayout(grid, 1);
  buildStrip();
  column->addWidget(strip);
  placeCharts();

  applyTheme();
  updateCharts();
}

// A series' graphs on every chart, its percentile lines and labels; in the theme's colours
// once it has data (takeColour).
int LatencyCharts::Impl::addSeries(const QString& name) {
  const int s = seriesCount();
  SeriesPlot line;
  line.name = name;
  line.ttft = new SeriesGraph(plots[TtftOverTime]->xAxis, plots[TtftOverTime]->yAxis);
  line.tps = new SeriesGraph(plots[TokenRate]->xAxis, plots[TokenRate]->yAxis);
  line.cdf = plots[TtftCdf]->addGraph();
  line.cdf->setLineStyle(QCPGraph::lsStepLeft);
  line.hist = new QCPBars(plots[ItlHistogram]->xAxis, plots[ItlHistogram]->yAxis);
  line.hist->setWidthType(QCPBars::wtPlotCoords);
  for (QCPAbstractPlottable* p :
       std::initializer_list<QCPAbstractPlottable*>{line.ttft, line.tps, line.cdf, line.hist}) {
    p->setSelectable(QCP::stNone);
    p->setObjectName(QStringLiteral("series-%1").arg(s));
    p->removeFromLegend();
  }
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    auto* pct = makeLevelLine(plots[TtftOverTime], 0, QStringLiteral("thresholds"));
    pct->setObjectName(QStringLiteral("p%1-%2").arg(kPercentiles[i]).arg(s));
    pct->setVisible(false);
    line.pct_lines[i] = pct;
    auto* label = makeMarginLabel(plots[TtftOverTime]);
    label->setObjectName(QStringLiteral("p%1-%2-label").arg(kPercentiles[i]).arg(s));
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    label->setVisible(false);
    line.pct_labels[i] = label;
  }
  lines.push_back(line);
  for (Run& run : runs) run.series.resize(lines.size());
  no_run.series.resize(lines.size());
  styleSeries(s);
  return s;
}

int LatencyCharts::Impl::seriesNamed(const QString& name) {
  for (int s = 0; s < seriesCount(); ++s)
    if (lines[s].name == name) return s;
  return seriesCount() < kMaxSeries ? addSeries(name) : seriesCount() - 1;
}

// A series keeps the colour it takes with its first point, so it has the same one in every
// run and after other series come and go: series 0 and 1 their own when free, others the
// first free one.
void LatencyCharts::Impl::takeColour(int s) {
  if (lines[s].colour >= 0) return;
  std::array<bool, kColours> used{};
  for (const SeriesPlot& l : lines)
    if (l.colour >= 0) used[l.colour % kColours] = true;
  int colour = s < kSeriesCount && !used[s] ? s : -1;
  for (int i = 0; i < kColours && colour < 0; ++i)
    if (!used[i]) colour = i;
  lines[s].colour = colour >= 0 ? colour : s % kColours;
  styleSeries(s);
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
  dot_pixel_ratio = 0;  // colours changed: new pixmaps
  for (int s = 0; s < seriesCount(); ++s) styleSeries(s);
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    cdf_guides[i]->setPen(QPen(mix(theme.base, theme.text, 0.35), 1, Qt::DashLine));
    cdf_guide_labels[i]->setColor(theme.muted);
    cdf_guide_labels[i]->setFont(small);
  }
  hist_note->setColor(theme.muted);
  hist_note->setFont(small);
  for (PassiveTracer* mark : marks) mark->setPen(QPen(theme.text, 1.8));
  updateStages();
  applyMargins();
}

void LatencyCharts::Impl::styleSeries(int s) {
  SeriesPlot& line = lines[s];
  line.cdf->setPen(QPen(colour(s), 1.6));
  line.hist->setPen(Qt::NoPen);
  line.hist->setBrush(withAlpha(colour(s), 115));
  QFont small = q->font();
  small.setPointSizeF(small.pointSizeF() > 0 ? small.pointSizeF() * 0.9 : 8);
  const std::array<Qt::PenStyle, 3> styles = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    QPen pen(strong(s), i == 0 ? 1.5 : 1.3, styles[i]);
    pen.setCapStyle(Qt::FlatCap);
    line.pct_lines[i]->setPen(pen);
    line.pct_labels[i]->setColor(strong(s));
    line.pct_labels[i]->setFont(small);
  }
  line.dots = {};  // drawn again in its colour by styleGraph
  styleGraph(line.ttft, s);
  styleGraph(line.tps, s);
}

// Series with data are listed; a hidden one struck out and muted.
void LatencyCharts::Impl::updateLegends() {
  for (int c = 0; c < 4; ++c) {
    QCustomPlot* plot = plots[c];
    plot->legend->clearItems();
    for (int s = 0; s < seriesCount(); ++s) {
      QCPAbstractPlottable* p = plottable(Chart(c), s);
      p->setName(lines[s].name);
      if (!hasData(Chart(c), s)) continue;
      p->addToLegend();
      auto* item = plot->legend->itemWithPlottable(p);
      QFont font = plot->legend->font();
      font.setStrikeOut(!lines[s].shown);
      item->setFont(font);
      item->setTextColor(lines[s].shown ? theme.text : theme.muted);
    }
  }
}

bool LatencyCharts::Impl::hasData(Chart c, int s) const {
  const ChartSeries& data = series()[s];
  return c == ItlHistogram ? !data.itl.empty() || !data.running_itl.empty()
         : c == TokenRate  ? !data.sorted_tps.empty()
                           : !data.sorted_ttft.empty();
}

// The series a chart's legend measures: those with data in any chart of the run shown (so
// the axes stay put as data reaches the other charts), or the first two before any has.
std::vector<int> LatencyCharts::Impl::legendSeries() const {
  std::vector<int> listed;
  for (int s = 0; s < seriesCount(); ++s)
    if (hasData(TtftOverTime, s) || hasData(TokenRate, s) || hasData(ItlHistogram, s)) listed.push_back(s);
  if (listed.empty())
    for (int s = 0; s < std::min(seriesCount(), int(kSeriesCount)); ++s) listed.push_back(s);
  return listed;
}

// The room the legend has beside the title at `width`, and the widths of its entries in one
// row and stacked (the wider entry).
LatencyCharts::Impl::LegendFit LatencyCharts::Impl::legendFit(Chart chart, int width) const {
  const QCPLegend* legend = plots[chart]->legend;
  const QFontMetrics title_fm(titles[chart]->font()), fm(legend->font());
  LegendFit fit;
  fit.room = width - 2 * kHeaderInset - title_fm.horizontalAdvance(titles[chart]->text()) - kHeaderGap;
  const std::vector<int> listed = legendSeries();
  for (int s : listed) {
    const int entry = legendKeyWidth(legend) + fm.horizontalAdvance(lines[s].name);
    fit.row += entry + (s != listed.front() ? legend->columnSpacing() : 0);
    fit.column = std::max(fit.column, entry);
  }
  fit.entries = static_cast<int>(listed.size());
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
  for (int s = 0; s < seriesCount(); ++s) {
    const QString name = one_line || fit.column <= fit.room
                             ? lines[s].name
                             : fm.elidedText(lines[s].name, Qt::ElideMiddle, std::max(fit.room - key, fm.averageCharWidth() * 3));
    plottable(chart, s)->setName(name);
  }
  const Chart partner = chart == TtftOverTime ? TtftCdf
                        : chart == TtftCdf    ? TtftOverTime
                        : chart == TokenRate  ? ItlHistogram
                                              : TokenRate;
  const bool on_screen = plot->viewport() == plot->rect();
  const auto stacked = [](const LegendFit& f) { return f.fitsOneLine() ? 1 : std::max(f.entries, 1); };
  const int rows = std::max(stacked(fit), on_screen && plots[partner]->isVisible()
                                              ? stacked(legendFit(partner, plots[partner]->viewport().width()))
                                              : 1);
  const int line = std::max(fm.height(), legend->iconSize().height()) + 4;
  const int height = std::max(QFontMetrics(titles[chart]->font()).height(), rows * line) + 10;
  headers[chart]->setMinimumSize(0, height);
  headers[chart]->setMaximumSize(QWIDGETSIZE_MAX, height);
}

void LatencyCharts::Impl::toggleFromLegend(QCPAbstractLegendItem* item) {
  auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!entry) return;
  for (int s = 0; s < seriesCount(); ++s)
    for (int c = 0; c < 4; ++c)
      if (entry->plottable() == plottable(Chart(c), s)) return q->setSeriesVisible(s, !lines[s].shown);
}


void LatencyCharts::Impl::onClick(QCPAbstractPlottable* plottable, int data_index) {
  for (int s = 0; s < seriesCount(); ++s) {
    const bool is_ttft = plottable == lines[s].ttft;
    if (!is_ttft && plottable != lines[s].tps) continue;
    auto data = static_cast<QCPGraph*>(plottable)->data();
    if (data_index < 0 || data_index >= data->size()) return;
    const QCPGraphData point = *data->at(data_index);
    const auto& points = series()[s].points;
    for (auto it = points.rbegin(); it != points.rend(); ++it) {
      if (it->t == point.key && (is_ttft ? it->ttft : it->tps) == point.value) {
        marked = Marked{s, *it};
        placeMarks();
        replotTime();
        emit q->requestClicked(s, it->request);
        return;
      }
    }
    return;
  }
}

LatencyCharts::LatencyCharts(QWidget* parent) : QWidget(parent), d_(std::make_unique<Impl>(this)) {
  d_->timer.setSingleShot(true);
  d_->timer.setInterval(kFlushIntervalMs);
  connect(&d_->timer, &QTimer::timeout, this, &LatencyCharts::flush);
  d_->build();
  d_->addSeries(tr("baseline"));
  d_->addSeries(tr("candidate"));
  d_->updateCharts();
}

LatencyCharts::~LatencyCharts() = default;

void LatencyCharts::setSeriesName(int series, const QString& name) {
  if (series < 0 || series >= kMaxSeries) return;
  while (d_->seriesCount() <= series) d_->addSeries(QString());
  d_->lines[series].name = name;
  d_->updateLegends();
  d_->replot();
}

QString LatencyCharts::seriesName(int series) const {
  if (series < 0 || series >= d_->seriesCount()) return {};
  return d_->lines[series].name;
}

int LatencyCharts::seriesCount() const { return d_->seriesCount(); }

int LatencyCharts::seriesIndex(const QString& name) { return d_->seriesNamed(name); }

void LatencyCharts::clear() {
  d_->runs.clear();
  d_->no_run.series.assign(d_->lines.size(), ChartSeries{});
  d_->picked.reset();
  d_->drawn.reset();
  for (auto& line : d_->lines) {
    line.ttft->data()->clear();
    line.tps->data()->clear();
  }
  d_->stages.clear();
  d_->marked.reset();
  d_->timer.stop();
  d_->dirty = false;
  d_->follow = true;
  d_->updateRunBox();
  d_->updateCharts();
  d_->replot();
  emit cleared();
}

void LatencyCharts::setSeriesVisible(int series, bool visible) {
  if (series < 0 || series >= d_->seriesCount() || d_->lines[series].shown == visible) return;
  d_->lines[series].shown = visible;
  flush();  // pending points first, so the redraw below shows them too
  d_->updateCharts();
  d_->replot();
  emit seriesVisibilityChanged(series, visible);
}

bool LatencyCharts::seriesVisible(int series) const {
  return series >= 0 && series < d_->seriesCount() && d_->lines[series].shown;
}

void LatencyCharts::setAdaptiveSampling(bool on) {
  for (auto& line : d_->lines)
    for (QCPGraph* g : {line.ttft, line.tps, line.cdf}) g->setAdaptiveSampling(on);
}

void LatencyCharts::flush() {
  d_->timer.stop();
  if (!d_->dirty) return;
  d_->dirty = false;
  Impl::Run& run = d_->shownRun();
  const std::optional<double> key = d_->runs.empty() ? std::nullopt : std::optional<double>(run.key);
  if (key != d_->drawn) {  // another run: its requests replace the graphs'
    for (ChartSeries& s : run.series) s.redraw();
    d_->marked.reset();
    d_->drawn = key;
    d_->updateRunBox();
  }
  for (int i = 0; i < d_->seriesCount(); ++i) d_->sync(run.series[i], i);
  d_->updateCharts();
  d_->replot();
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
  strip->setHidden(!time_first);
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
    for (int s = 0; s < d_->seriesCount(); ++s) {
      if (chart == TtftOverTime) d_->styleGraph(d_->lines[s].ttft, s, dots);
      if (chart == TokenRate) d_->styleGraph(d_->lines[s].tps, s, dots);
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
      d_->replot();
      break;
    case QEvent::PaletteChange:
    case QEvent::StyleChange:
    case QEvent::FontChange:
      d_->applyTheme();
      d_->updateLegends();
      d_->replot();
      break;
    default:
      break;
  }
}

}  // namespace anthro::widgets
