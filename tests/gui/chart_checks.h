// Checks on a laid-out LatencyCharts plot shared by the chart and session-page suites: nothing
// of its header (title, legend) or axis labels is cut or drawn over something else.
#pragma once

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace anthro::test {

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

}  // namespace anthro::test
