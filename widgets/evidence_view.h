// The evidence panel of the Diagnosis page: one item's verdict, reason, statistic, n and
// threshold, the chart that shows it, the streams and connections behind it (a click jumps to
// their frames), the manual tick with its note, the remedy, and a re-run of the item alone.
#pragma once

#include <QWidget>

class QCheckBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace anthro::widgets {

class DiagnosisModel;
class EvidenceChart;

class EvidenceView : public QWidget {
  Q_OBJECT
 public:
  explicit EvidenceView(QWidget* parent = nullptr);

  // Shows `row` of `model`; -1 shows nothing.
  void showRow(const DiagnosisModel* model, int row);
  int row() const { return row_; }
  void setRerunEnabled(bool on);

  QTreeWidget* refs() const { return refs_; }
  EvidenceChart* chart() const { return chart_; }
  QPushButton* rerunButton() const { return rerun_; }
  QCheckBox* tickBox() const { return tick_; }
  QLineEdit* noteEdit() const { return note_; }
  QLabel* causeLabel() const { return cause_; }
  // The figure shown for "reason", "statistic", "n", "threshold" or "sources" (for tests).
  QString figure(const QString& name) const;

 signals:
  void refActivated(int row, int ref);  // `ref` indexes the row's result refs
  void rerunRequested(int row);
  void manualTicked(int row, bool ticked, const QString& note);
  void causeActivated(const QString& id);  // the item that explains this one was clicked

 private:
  void showFigures();
  void showCause();
  void showChart();
  void showRefs();
  void onChartClicked(double x);

  const DiagnosisModel* model_ = nullptr;
  int row_ = -1;
  QLabel* title_;
  QLabel* chip_;
  QLabel* reason_;
  QLabel* cause_;  // "Caused by <item>: why", a link to that item
  QLabel* statistic_;
  QLabel* n_;
  QLabel* threshold_;
  QLabel* sources_;
  EvidenceChart* chart_;
  QTreeWidget* refs_;
  QGroupBox* manual_box_;
  QCheckBox* tick_;
  QLineEdit* note_;
  QLabel* remedy_;
  QPushButton* rerun_;
};

}  // namespace anthro::widgets
