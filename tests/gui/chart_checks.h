// What the chart and session-page suites share: points to chart, a send from the session page
// and what its charts then show, and checks on a laid-out LatencyCharts plot that nothing of its
// header (title, legend) or axis labels is cut or drawn over something else.
#pragma once

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <vector>

#include "latency_charts.h"
#include "session_panel.h"

namespace anthro::test {

// `n` requests 0.5 s apart from t = 0, TTFT 1, 2, … (plus `ttft_offset`), three ITL samples
// each, numbered from `first_request`.
inline std::vector<widgets::RequestPoint> ramp(int n, double ttft_offset = 0, int first_request = 0) {
  std::vector<widgets::RequestPoint> points;
  for (int i = 0; i < n; ++i) {
    widgets::RequestPoint p;
    p.t_s = i * 0.5;
    p.ttft_ms = (i + 1) + ttft_offset;
    p.tokens_per_s = 40 + i % 7;
    p.itl_ms = {10.0 + i % 3, 11.0, 9.5};
    p.request = first_request + i;
    points.push_back(p);
  }
  return points;
}

// The series of a target's requests: named by protocol and target, a load's candidate run
// apart ("candidate · anthro-v1 · …").
inline int seriesOf(widgets::SessionPanel& panel, const QString& protocol, const QString& target,
                    bool candidate = false) {
  return panel.charts()->seriesIndex((candidate ? "candidate · " : "") + protocol + " · " + target);
}

// The keys (since the run's start, s) of a series' TTFT points in the run shown, ascending.
inline std::vector<double> startTimes(widgets::SessionPanel& panel, int series) {
  panel.charts()->flush();
  std::vector<double> keys;
  auto data = panel.charts()->plot(widgets::LatencyCharts::TtftOverTime)->graph(series)->data();
  for (auto it = data->constBegin(); it != data->constEnd(); ++it) keys.push_back(it->key);
  return keys;
}

// Sends from the page and waits for its end: true when the send succeeded.
inline bool sendAndWait(widgets::SessionPanel& panel) {
  QSignalSpy finished(&panel, &widgets::SessionPanel::sessionFinished);
  return panel.send() && finished.wait(30000) && finished.at(0).at(0).toBool();
}

// Empty when the title is drawn whole in its element, every legend entry lies inside the
// plot, outside the data area and clear of the title's text, at least as wide as it asks,
// with one of `names` in full; and the axis labels fit their axes. Else what is wrong.
// Call after a replot.
inline QString headerProblem(QCustomPlot* plot, const QStringList& names) {
  auto* header = qobject_cast<QCPLayoutGrid*>(plot->plotLayout()->element(0, 0));
  if (!header) return QStringLiteral("no header row");
  QCPTextElement* title = nullptr;
  for (int i = 0; i < header->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(header->elementAt(i))) title = t;
  if (!title) return QStringLiteral("no title");
  const QFontMetrics title_fm(title->font());
  const int title_width = title_fm.horizontalAdvance(title->text());
  if (title->rect().width() < title_width)
    return QStringLiteral("title \"%1\" needs %2 px, has %3").arg(title->text()).arg(title_width).arg(title->rect().width());
  if (title->rect().height() < title_fm.height())
    return QStringLiteral("title \"%1\" cut vertically").arg(title->text());
  const QRect title_text(title->rect().topLeft(), QSize(title_width, title->rect().height()));
  const QRect viewport = plot->viewport();
  const QRect data = plot->axisRect()->rect();
  for (int i = 0; i < plot->legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
    if (!item) continue;
    const QRect r = item->outerRect();
    const QString name = item->plottable()->name();
    if (!names.contains(name)) return QStringLiteral("legend entry \"%1\" shortened").arg(name);
    if (!viewport.contains(r)) return QStringLiteral("legend entry \"%1\" outside the plot").arg(name);
    if (r.intersects(data)) return QStringLiteral("legend entry \"%1\" over the data").arg(name);
    if (r.intersects(title_text)) return QStringLiteral("legend entry \"%1\" over the title").arg(name);
    const QSize wanted = static_cast<QCPLayoutElement*>(item)->minimumOuterSizeHint();  // public there
    if (r.width() < wanted.width() || r.height() < wanted.height())
      return QStringLiteral("legend entry \"%1\" squeezed").arg(name);
  }
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    const int length = axis->orientation() == Qt::Horizontal ? data.width() : data.height();
    const int needed = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
    if (needed > length) return QStringLiteral("axis label \"%1\" needs %2 px, has %3").arg(axis->label()).arg(needed).arg(length);
  }
  return {};
}

// headerProblem of each of the four charts, replotted, whose legend lists the series `names`:
// empty when every one is whole; else the chart, its width and what is wrong.
inline QString chartsHeaderProblem(widgets::LatencyCharts& charts, const QStringList& names) {
  using widgets::LatencyCharts;
  for (auto chart : {LatencyCharts::TtftOverTime, LatencyCharts::TokenRate, LatencyCharts::ItlHistogram,
                     LatencyCharts::TtftCdf}) {
    QCustomPlot* plot = charts.plot(chart);
    plot->replot();
    QString problem = plot->legend->itemCount() == names.size()
                          ? headerProblem(plot, names)
                          : QStringLiteral("%1 legend entries").arg(plot->legend->itemCount());
    if (!problem.isEmpty()) return QStringLiteral("chart %1 (%2 px): %3").arg(int(chart)).arg(plot->width()).arg(problem);
  }
  return {};
}

}  // namespace anthro::test
