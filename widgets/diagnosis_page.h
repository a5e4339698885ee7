// The Diagnosis page: a checklist (latency, or a format's) walked against the sources a user picks (a live
// target, with or without a capture of the run's own traffic; a capture open in the inspector
// or a file; this machine), with progress and Cancel. Items are listed with coloured verdict
// chips and a one-line reason; the evidence panel shows the selected item's figures, chart,
// streams (a click jumps to their frames), manual tick and remedy, and re-runs it alone.
// The run is the DiagnosisController's (diagnosis_controller.h): this page lays out and binds.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "diagnosis/diagnose.h"
#include "diagnosis_controller.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace anthro::widgets {

class ClientFaultsBox;
class DiagnosisModel;
class EvidenceView;
class JobService;

class DiagnosisPage : public QWidget {
  Q_OBJECT
 public:
  explicit DiagnosisPage(QWidget* parent = nullptr);
  ~DiagnosisPage() override;

  // Sources. Targets are offered in the list, the first selected.
  void setTargets(const QStringList& urls);
  void setTarget(const QString& url);
  QString target() const;
  void setUseLive(bool on);
  void setCaptureRun(bool on);  // capture the live run's traffic on lo, for the inspector
  void setWorkload(int requests, int concurrency);
  // Captures open in the inspector, offered with the keys they were opened with; `fallback`
  // are the keys for a file that is not open.
  void setOpenCaptures(const std::vector<std::pair<QString, CaptureKeySources>>& captures, const CaptureKeySources& fallback);
  void setCaptureFile(const QString& path);  // and ticks the capture source
  void setUseCapture(bool on);
  void setUseSystem(bool on);
  // The checklist to run; a built-in one is also chosen in the page's list (which offers every
  // built-in checklist and, on a pick, moves the live target to one that checklist can reach).
  void setChecklist(const Checklist& checklist);
  void setLanguage(const QString& code);  // item titles and remedies: "en" or "zh_CN"

  // Runs the checklist on the sources ticked; false (and a message) when none is or one runs.
  bool run();
  // Only this capture, with these keys.
  bool diagnoseCapture(const QString& path, const CaptureKeySources& keys);
  // The item alone, on the sources of the last run, measured again.
  bool rerun(const QString& id);
  void cancel();
  bool running() const { return controller_->busy(); }

  // The last full run as the page shows it now: items re-run alone and manual notes included;
  // none before a run has finished (or while one runs).
  std::optional<Diagnosis> diagnosis() const;
  bool hasDiagnosis() const { return controller_->hasDiagnosis(); }  // diagnosis() without the copy
  const Checklist& checklist() const { return controller_->checklist(); }  // the one the page runs

  ClientFaultsBox* clientFaults() const { return faults_; }  // applied to the live target's workload
  DiagnosisModel* model() const { return controller_->model(); }
  DiagnosisController* controller() const { return controller_; }
  EvidenceView* evidence() const { return evidence_; }
  QTableView* list() const { return list_; }
  QComboBox* checklistBox() const { return checklist_box_; }
  void selectItem(const QString& id);
  QString progressText() const;
  QProgressBar* progressBar() const { return progress_; }

  // For "never lose work": a run under way; its captures not yet saved by the user; a
  // diagnosis not yet exported; cancel every job and wait.
  bool busy() const;
  QStringList unsavedFiles() const { return controller_->unsavedFiles(); }
  bool hasUnsavedResult() const { return controller_->hasUnsavedResult(); }
  void cancelAll() { cancel(); }
  bool waitForJobs(int timeout_ms);
  void markCaptureSaved(const QString& path) { controller_->markCaptureSaved(path); }
  void markResultSaved() { controller_->markSaved(); }

 signals:
  void message(const QString& text);
  // The run ended: verdicts shown and evidence linked to its capture (ok), or it failed or
  // was cancelled.
  void finished(bool ok);
  void captureReady(const QString& path);  // the run's own capture is written: open it
  // Evidence clicked: the frames of `conn` (its name in `capture`), of `stream` (-1: all).
  void jumpToFrames(const QString& capture, const QString& conn, int stream);
  void exportReportRequested();  // "Export report…" was clicked

 private:
  QWidget* makeSources();
  std::optional<DiagnoseConfig> configFromSources();
  std::optional<Checklist> checklistWithThresholds();
  void bindController();
  void onStateChanged();
  void onDiagnosed(const Diagnosis& d);
  void showSummary();
  void onFinished(DiagnosisController::Outcome outcome);
  void onProgress(quint64 done, quint64 total);
  // Progress and outcome texts are kept as how to say them, so a language switch remakes them.
  void setProgress(std::function<QString()> text);
  void jump(int row, int ref);
  void onChecklistPicked(int index);
  void fitTarget();
  void showSelected();

  QComboBox* checklist_box_;
  QCheckBox* use_live_;
  QComboBox* target_;
  QLineEdit* thresholds_ = nullptr;  // "ttft-tail=800, server-stall=500", as diagnose --threshold
  std::optional<Verdict> summary_worst_;  // the shown summary's worst verdict; none before a run
  QSpinBox* requests_;
  QSpinBox* concurrency_;
  QCheckBox* capture_run_;
  ClientFaultsBox* faults_;
  QCheckBox* use_capture_;
  QComboBox* capture_file_;
  QPushButton* browse_;
  QCheckBox* use_system_;
  QPushButton* run_button_;
  QPushButton* cancel_button_;
  QPushButton* export_button_;
  QProgressBar* progress_;
  QLabel* progress_text_;
  std::function<QString()> progress_says_;
  QLabel* summary_;
  QTableView* list_;
  EvidenceView* evidence_;

  JobService* jobs_;
  DiagnosisController* controller_;
  std::vector<std::pair<QString, CaptureKeySources>> open_captures_;
  CaptureKeySources fallback_keys_;
};

}  // namespace anthro::widgets
