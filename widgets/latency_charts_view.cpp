// LatencyCharts' time view: what the time charts show of the run (wheel zoom around the
// cursor, drag pan, the scroll bar, Reset view and double-click; a live point never moves a
// zoomed view), the run shown (the run selector) and the rollout's stage bands.
#include "latency_charts_impl.h"
#include "chart_math.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <algorithm>
#include <cmath>

namespace anthro::widgets {
namespace {

using namespace chart_detail;

}  // namespace

// Wheel zooms the time axis around the cursor, drag pans it; the value axis keeps following
// the data. A double-click shows the whole run again.
void LatencyCharts::Impl::makeNavigable(QCustomPlot* plot) {
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->axisRect()->setRangeDrag(Qt::Horizontal);
  plot->axisRect()->setRangeZoom(Qt::Horizontal);
  plot->axisRect()->setRangeZoomFactor(0.85);
  QObject::connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), q,
                   [this, plot](const QCPRange& range) { onUserRange(plot, range); });
  QObject::connect(plot, &QCustomPlot::mouseDoubleClick, q, [this](QMouseEvent*) { q->resetView(); });
}

// Under the charts: the run shown (when there are several), the visible window of the run as
// a scroll bar, and Reset view.
void LatencyCharts::Impl::buildStrip() {
  strip = new QWidget(q);
  strip->setObjectName(QStringLiteral("time-view"));
  auto* row = new QHBoxLayout(strip);
  row->setContentsMargins(4, 0, 4, 2);
  run_label = new QLabel(strip);
  run_box = new QComboBox(strip);
  run_box->setObjectName(QStringLiteral("run-selector"));
  run_box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  scroll = new QScrollBar(Qt::Horizontal, strip);
  scroll->setObjectName(QStringLiteral("time-window"));
  reset = new QPushButton(strip);
  reset->setObjectName(QStringLiteral("reset-view"));
  row->addWidget(run_label);
  row->addWidget(run_box);
  row->addWidget(scroll, 1);
  row->addWidget(reset);
  QObject::connect(reset, &QPushButton::clicked, q, &LatencyCharts::resetView);
  QObject::connect(run_box, qOverload<int>(&QComboBox::activated), q, [this](int i) { q->showRun(i); });
  QObject::connect(scroll, &QScrollBar::valueChanged, q, [this](int value) {
    const double width = plots[TtftOverTime]->xAxis->range().size();
    const double lower = scroll_origin + value * scroll_unit;
    follow = false;
    applyTimeRange(lower, lower + width);
    replotTime();
  });
  retranslateStrip();
  updateRunBox();
}

void LatencyCharts::Impl::retranslateStrip() {
  run_label->setText(tr("Run"));
  run_box->setToolTip(tr("The run the charts show, each from its own start"));
  scroll->setToolTip(tr("The part of the run shown: wheel on a chart zooms, drag pans"));
  reset->setText(tr("Reset view"));
  reset->setToolTip(tr("Show the whole run and follow new requests (or double-click a chart)"));
}

// The runs held, newest last; shown only when there is a choice.
void LatencyCharts::Impl::updateRunBox() {
  if (!run_box) return;
  const QSignalBlocker block(run_box);
  run_box->clear();
  for (const Run& run : runs) run_box->addItem(run.label);
  const int shown = q->shownRun();
  run_box->setCurrentIndex(shown);
  run_box->setVisible(runs.size() > 1);
  run_label->setVisible(runs.size() > 1);
}

// The user zoomed or panned one time chart: the other follows, and new points no longer move
// the view.
void LatencyCharts::Impl::onUserRange(QCustomPlot* from, const QCPRange& range) {
  if (setting_range) return;
  follow = false;
  setting_range = true;
  for (Chart c : {TtftOverTime, TokenRate})
    if (plots[c] != from) {
      plots[c]->xAxis->setRange(range);
      plots[c]->replot(QCustomPlot::rpQueuedReplot);
    }
  setting_range = false;
  updateScroll();
  updateStages();
}

void LatencyCharts::Impl::applyTimeRange(double lo, double hi) {
  setting_range = true;
  for (Chart c : {TtftOverTime, TokenRate}) plots[c]->xAxis->setRange(lo, hi);
  setting_range = false;
  updateScroll();
  updateStages();
}

// The scroll bar spans the run and the view (when zoomed out past it); its handle is the view.
void LatencyCharts::Impl::updateScroll() {
  constexpr double kSteps = 10'000;
  if (!scroll) return;
  const QCPRange view = plots[TtftOverTime]->xAxis->range();
  const double lo = std::min(full.lower, view.lower), hi = std::max(full.upper, view.upper);
  scroll_origin = lo;
  scroll_unit = std::max((hi - lo) / kSteps, 1e-9);
  const QSignalBlocker block(scroll);
  const int page = static_cast<int>(std::lround(view.size() / scroll_unit));
  scroll->setRange(0, std::max(0, static_cast<int>(kSteps) - page));
  scroll->setPageStep(page);
  scroll->setSingleStep(std::max(1, page / 10));
  scroll->setValue(static_cast<int>(std::lround((view.lower - lo) / scroll_unit)));
  scroll->setEnabled(scroll->maximum() > 0);
}

void LatencyCharts::Impl::resetView() {
  follow = true;
  applyTimeRange(full.lower, full.upper);
  replotTime();
}

// One shaded band a stage on both time charts, alternating tints, its name at the top left
// of the part in view (so a band begun left of a zoomed view keeps its name).
void LatencyCharts::Impl::updateStages() {
  const std::size_t wanted = 2 * stages.size();
  while (band_rects.size() < wanted) {
    QCustomPlot* plot = plots[band_rects.size() % 2 ? TokenRate : TtftOverTime];
    auto* rect = new PassiveRect(plot);
    rect->setObjectName(QStringLiteral("stage-band"));
    rect->setLayer(QStringLiteral("grid"));
    for (QCPItemPosition* corner : {rect->topLeft, rect->bottomRight}) {
      corner->setTypeX(QCPItemPosition::ptPlotCoords);
      corner->setTypeY(QCPItemPosition::ptAxisRectRatio);
      corner->setAxisRect(plot->axisRect());
    }
    auto* label = new PassiveText(plot);
    label->setObjectName(QStringLiteral("stage-label"));
    label->setLayer(QStringLiteral("thresholds"));
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setAxisRect(plot->axisRect());
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setPadding(QMargins(4, 2, 4, 2));
    band_rects.push_back(rect);
    band_labels.push_back(label);
  }
  for (std::size_t i = 0; i < band_rects.size(); ++i) {
    const bool used = i < wanted;
    band_rects[i]->setVisible(used);
    band_labels[i]->setVisible(used);
    if (!used) continue;
    const StageBand& band = stages[i / 2];
    const bool odd = (i / 2) % 2;
    band_rects[i]->topLeft->setCoords(band.start, 0);
    band_rects[i]->bottomRight->setCoords(std::max(band.end, band.start), 1);
    band_rects[i]->setBrush(withAlpha(theme.text, odd ? 22 : 10));
    band_rects[i]->setPen(QPen(withAlpha(theme.text, 60), 1, Qt::DashLine));
    band_labels[i]->setText(band.name);
    band_labels[i]->setColor(theme.muted);
    band_labels[i]->setBrush(withAlpha(theme.base, 220));  // readable over the percentile lines
    band_labels[i]->setFont(q->font());
    const double view_lower = band_rects[i]->parentPlot()->xAxis->range().lower;
    band_labels[i]->position->setCoords(band.start < view_lower && band.end > view_lower ? view_lower : band.start, 0);
  }
}

QStringList LatencyCharts::runLabels() const {
  QStringList labels;
  for (const Impl::Run& run : d_->runs) labels << run.label;
  return labels;
}

int LatencyCharts::shownRun() const {
  const Impl::Run& shown = d_->shownRun();
  for (std::size_t i = 0; i < d_->runs.size(); ++i)
    if (&d_->runs[i] == &shown) return static_cast<int>(i);
  return -1;
}

void LatencyCharts::showRun(int index) {
  const int count = static_cast<int>(d_->runs.size());
  if (index < 0 || index >= count - 1) d_->picked.reset();  // the latest: follows new runs
  else d_->picked = d_->runs[static_cast<std::size_t>(index)].key;
  d_->follow = true;
  d_->markDirty();
  flush();
  d_->updateRunBox();
}

void LatencyCharts::resetView() {
  flush();
  d_->resetView();
}

bool LatencyCharts::followsData() const { return d_->follow; }

void LatencyCharts::addStage(const QString& name, double start_s) {
  if (!std::isfinite(start_s) || (!d_->stages.empty() && d_->stages.back().name == name)) return;
  d_->stages.push_back({name, start_s, start_s});
  d_->markDirty();
}

int LatencyCharts::stageCount() const { return static_cast<int>(d_->stages.size()); }

}  // namespace anthro::widgets
