// The chart behind one checklist item's verdict: a distribution with the item's threshold
// lines (the TTFT histogram with the SLO line for ttft-tail), or one stream's token gaps over
// its life with the gap threshold (server-stall). qcustomplot.h stays in the .cpp.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <memory>
#include <utility>
#include <vector>

class QCustomPlot;

namespace anthro::widgets {

class EvidenceChart : public QWidget {
  Q_OBJECT
 public:
  enum class Kind { None, Distribution, Timeline, Forest };

  struct Line {
    double value = 0;
    QString label;
    QColor colour;
  };

  explicit EvidenceChart(QWidget* parent = nullptr);
  ~EvidenceChart() override;

  void clear(const QString& note);  // no chart for this item: the note says why
  // A histogram of `samples` along x, with vertical lines at the thresholds.
  void showDistribution(const QString& title, const std::vector<double>& samples, const QString& x_label,
                        const std::vector<Line>& lines);
  // (seconds since the request, gap in ms before that token) as stems, with horizontal lines.
  void showTimeline(const QString& title, const std::vector<std::pair<double, double>>& gaps, const std::vector<Line>& lines);

  // Gates of a rollout stage (a forest plot): each row's statistic and interval as a fraction
  // of its own threshold (the line at 1), coloured by verdict; beyond 2× drawn at the edge.
  struct ForestRow {
    QString label;
    double statistic = 0;
    double low = 0, high = 0;  // NaN when the gate has no interval
    double threshold = 1;
    QColor colour;
  };
  void showForest(const QString& title, const std::vector<ForestRow>& rows);
  // Writes the chart as PNG, PDF or SVG (by the extension) at `size`, atomically.
  bool exportChart(const QString& path, QSize size, QString* error = nullptr);
  Kind kind() const { return kind_; }
  QCustomPlot* plot() const { return plot_; }

 signals:
  void clicked(double x);  // where the data area was clicked, in the x axis' units

 private:
  void reset(const QString& title);
  void addVerticalLine(const Line& line);
  void addLevelLine(const Line& line);
  void finish();

  QCustomPlot* plot_;
  Kind kind_ = Kind::None;
};

}  // namespace anthro::widgets
