#include "evidence_chart.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "chart_items.h"  // writePlot; qcustomplot.h is in this translation unit anyway
#include "chart_math.h"  // mix

namespace anthro::widgets {
namespace {

using chart_detail::mix;

// Bins for n samples: about √n, kept readable.
int bin_count(std::size_t n) { return std::clamp(static_cast<int>(std::sqrt(static_cast<double>(n))), 5, 40); }

}  // namespace

EvidenceChart::EvidenceChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  plot_->setObjectName(QStringLiteral("evidence-chart"));
  plot_->setMinimumHeight(200);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, QString()));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (kind_ != Kind::None && plot_->axisRect()->rect().contains(e->position().toPoint()))
      emit clicked(plot_->xAxis->pixelToCoord(e->position().x()));
  });
  clear(QString());
}

EvidenceChart::~EvidenceChart() = default;

void EvidenceChart::reset(const QString& title) {
  plot_->clearPlottables();
  plot_->clearItems();
  const QPalette pal = palette();
  const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
  plot_->setBackground(base);
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setBasePen(QPen(mix(base, text, 0.45), 1));
    axis->setTickPen(QPen(mix(base, text, 0.45), 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(mix(base, text, 0.72));
    axis->grid()->setPen(QPen(mix(base, text, 0.11), 1));
  }
  if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    t->setText(title);
    t->setTextColor(text);
  }
}

void EvidenceChart::clear(const QString& note) {
  kind_ = Kind::None;
  reset(QString());
  auto* text = new QCPItemText(plot_);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(0.5, 0.5);
  text->setText(note);
  text->setColor(mix(palette().color(QPalette::Base), palette().color(QPalette::Text), 0.6));
  plot_->xAxis->setRange(0, 1);
  plot_->yAxis->setRange(0, 1);
  plot_->xAxis->setLabel(QString());
  plot_->yAxis->setLabel(QString());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void EvidenceChart::showDistribution(const QString& title, const std::vector<double>& samples, const QString& x_label,
                                     const std::vector<Line>& lines) {
  kind_ = Kind::Distribution;
  reset(title);
  double lo = *std::min_element(samples.begin(), samples.end());
  double hi = *std::max_element(samples.begin(), samples.end());
  for (const auto& l : lines) hi = std::max(hi, l.value);  // the threshold stays in view
  lo = std::min(lo, 0.0);
  const int bins = bin_count(samples.size());
  const double width = std::max((hi - lo) / bins, 1e-9);
  std::vector<double> counts(static_cast<std::size_t>(bins) + 1, 0);
  for (double s : samples) counts[static_cast<std::size_t>(std::clamp<double>((s - lo) / width, 0, bins))] += 1;
  auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
  bars->setWidthType(QCPBars::wtPlotCoords);
  bars->setWidth(width * 0.9);
  bars->setPen(Qt::NoPen);
  bars->setBrush(QColor(0x1f, 0x6f, 0xb4));
  for (std::size_t i = 0; i < counts.size(); ++i) bars->addData(lo + (static_cast<double>(i) + 0.5) * width, counts[i]);
  plot_->xAxis->setRange(lo, hi + width * 1.5);
  plot_->yAxis->setRange(0, *std::max_element(counts.begin(), counts.end()) * 1.15 + 1);
  plot_->xAxis->setLabel(x_label);
  plot_->yAxis->setLabel(tr("count"));
  for (const auto& l : lines) addVerticalLine(l);
  finish();
}

void EvidenceChart::showTimeline(const QString& title, const std::vector<std::pair<double, double>>& gaps,
                                 const std::vector<Line>& lines) {
  kind_ = Kind::Timeline;
  reset(title);
  auto* graph = plot_->addGraph();
  graph->setLineStyle(QCPGraph::lsImpulse);
  graph->setPen(QPen(QColor(0x1f, 0x6f, 0xb4), 1.5));
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
  double top = 1, right = 0.001;
  for (const auto& [t, gap] : gaps) {
    graph->addData(t, gap);
    top = std::max(top, gap);
    right = std::max(right, t);
  }
  for (const auto& l : lines) top = std::max(top, l.value);
  plot_->xAxis->setRange(0, right * 1.05);
  plot_->yAxis->setRange(0, top * 1.15);
  plot_->xAxis->setLabel(tr("seconds since the request"));
  plot_->yAxis->setLabel(tr("gap before the token (ms)"));
  for (const auto& l : lines) addLevelLine(l);
  finish();
}

void EvidenceChart::addVerticalLine(const Line& line) {
  auto* item = new QCPItemStraightLine(plot_);
  item->point1->setCoords(line.value, 0);
  item->point2->setCoords(line.value, 1);
  item->setPen(QPen(line.colour, 1.5, Qt::DashLine));
  auto* label = new QCPItemText(plot_);
  label->position->setTypeX(QCPItemPosition::ptPlotCoords);
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(line.value, 0);
  label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  label->setPadding(QMargins(0, 2, 4, 0));
  label->setText(line.label);
  label->setColor(line.colour);
}

void EvidenceChart::addLevelLine(const Line& line) {
  auto* item = new QCPItemStraightLine(plot_);
  item->point1->setCoords(0, line.value);
  item->point2->setCoords(1, line.value);
  item->setPen(QPen(line.colour, 1.5, Qt::DashLine));
  auto* label = new QCPItemText(plot_);
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label->position->setCoords(0, line.value);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  label->setPadding(QMargins(4, 0, 0, 2));
  label->setText(line.label);
  label->setColor(line.colour);
}

void EvidenceChart::showForest(const QString& title, const std::vector<ForestRow>& rows) {
  kind_ = Kind::Forest;
  reset(title);
  constexpr double kEdge = 2.0;
  auto at = [&](double v, double threshold) {
    double x = threshold != 0 ? v / threshold : v;
    return std::isfinite(x) ? std::clamp(x, 0.0, kEdge) : kEdge;
  };
  QSharedPointer<QCPAxisTickerText> labels(new QCPAxisTickerText);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ForestRow& r = rows[i];
    const double y = static_cast<double>(rows.size() - i);
    labels->addTick(y, r.label);
    if (std::isfinite(r.low) && std::isfinite(r.high)) {
      auto* bar = new QCPItemLine(plot_);
      bar->start->setCoords(at(r.low, r.threshold), y);
      bar->end->setCoords(at(r.high, r.threshold), y);
      bar->setPen(QPen(r.colour, 3));
    }
    auto* dot = new QCPGraph(plot_->xAxis, plot_->yAxis);
    dot->setLineStyle(QCPGraph::lsNone);
    dot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, r.colour, r.colour, 10));
    dot->addData(at(r.statistic, r.threshold), y);
  }
  plot_->yAxis->setTicker(labels);
  plot_->yAxis->setRange(0.3, static_cast<double>(rows.size()) + 0.7);
  plot_->xAxis->setRange(0, kEdge * 1.02);
  plot_->xAxis->setLabel(tr("statistic ÷ threshold (interval as a bar)"));
  plot_->yAxis->setLabel(QString());
  addVerticalLine({1.0, tr("threshold"), QColor(0x8e, 0x24, 0xaa)});
  finish();
}

bool EvidenceChart::exportChart(const QString& path, QSize size, QString* error) {
  QString reason;
  const QString format = QFileInfo(path).suffix().toLower();
  auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0));
  bool ok = chart_detail::writePlot(plot_, format, path, size, title ? title->text() : QString(), &reason);
  if (!ok && error) *error = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), reason);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  return ok;
}

void EvidenceChart::finish() { plot_->replot(QCustomPlot::rpQueuedReplot); }

}  // namespace anthro::widgets
