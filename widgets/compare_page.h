// The Compare page: two saved results or captures (a base and a candidate) judged against each
// other as `anthro-wb compare` judges them (core/rollout/compare.h) — their TTFT CDFs and ITL
// histograms overlaid on the same charts, and one row per figure with both sides' figures, the
// ratios, the shape test, the verdict and what more is needed. The loading and judging run on a
// job of a JobService, which brings its result back.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "capture/analysis.h"
#include "rollout/compare.h"

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace anthro::widgets {

class JobService;
class LatencyCharts;

class ComparePage : public QWidget {
  Q_OBJECT
 public:
  enum Column { FigureColumn, BaseColumn, CandidateColumn, RatioP50Column, RatioP99Column, ShapeColumn,
                VerdictColumn, NeedColumn, ReasonColumn, ColumnCount };

  explicit ComparePage(QWidget* parent = nullptr);
  ~ComparePage() override;

  // A result file, a rollout arm (RESULT.json#stage=N,arm=...) or a capture, as on the command line.
  void setBase(const QString& spec);
  void setCandidate(const QString& spec);
  void setMargin(double fraction);  // 0.05 = 5 %
  // The keys a capture is read with (the Keys panel's).
  void setKeys(const CaptureKeySources& keys) { keys_ = keys; }

  // False (and a message) while one runs or a side is missing.
  bool run();
  bool running() const { return running_; }
  const std::optional<Comparison>& comparison() const { return comparison_; }
  // For "never lose work", as the other pages: a comparison is unsaved until exported.
  bool hasUnsavedResult() const { return comparison_ && !saved_; }
  void markResultSaved() { saved_ = true; }
  QTableWidget* table() const { return table_; }
  LatencyCharts* charts() const { return charts_; }
  QString verdictText() const;
  QString needText() const;  // what more is needed, and what the correction covered

 signals:
  void message(const QString& text);
  void finished(bool ok);

 private:
  bool saved_ = false;
  void browseInto(QLineEdit* into);
  void showComparison(Comparison c);
  void showFigure(int row, const FigureComparison& f);
  void showCharts(const Comparison& c);
  void failed(const QString& why);
  void retranslate();

  QLineEdit* base_;
  QLineEdit* candidate_;
  QDoubleSpinBox* margin_;
  QPushButton* run_button_;
  QLabel* verdict_;
  QLabel* need_;
  QTableWidget* table_;
  LatencyCharts* charts_;
  CaptureKeySources keys_;
  std::optional<Comparison> comparison_;
  JobService* jobs_;
  bool running_ = false;
};

}  // namespace anthro::widgets
