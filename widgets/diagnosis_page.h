// The Diagnosis page: a checklist (latency, or a format's) walked against the sources a user picks (a live
// target, with or without a capture of the run's own traffic; a capture open in the inspector
// or a file; this machine), with progress and Cancel. Items are listed with coloured verdict
// chips and a one-line reason; the evidence panel shows the selected item's figures, chart,
// streams (a click jumps to their frames), manual tick and remedy, and re-runs it alone.
// run_diagnosis runs on a Worker; progress and results come back through an Inbox.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "capture/live_capture.h"
#include "diagnosis/diagnose.h"
#include "loopback_capture.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace anthro::widgets {

class ClientFaultsBox;
class DiagnosisModel;
class EvidenceView;
class Inbox;
class Worker;
struct DiagnosisRun;

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
  bool running() const { return state_ != State::Idle; }

  // The last full run as the page shows it now: items re-run alone and manual notes included;
  // none before a run has finished (or while one runs).
  std::optional<Diagnosis> diagnosis() const;
  bool hasDiagnosis() const { return last_diagnosis_ && !running(); }  // diagnosis() without the copy
  const Checklist& checklist() const { return checklist_; }  // the one the page runs

  ClientFaultsBox* clientFaults() const { return faults_; }  // applied to the live target's workload
  DiagnosisModel* model() const { return model_; }
  EvidenceView* evidence() const { return evidence_; }
  QTableView* list() const { return list_; }
  QComboBox* checklistBox() const { return checklist_box_; }
  void selectItem(const QString& id);
  QString progressText() const;

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
  enum class State { Idle, StartingCapture, Running, Matching };

  // What a run needs across its steps: the config, the item it is limited to, its capture.
  struct PendingRun {
    DiagnoseConfig config;
    QString only_item;  // empty: every item
    std::optional<LoopbackCaptureFiles> capture;
    std::shared_ptr<DiagnosisRun> result;
    std::shared_ptr<const Diagnosis> judged;  // a captured run's live verdicts, judged again with its capture
  };

  QWidget* makeSources();
  std::optional<DiagnoseConfig> configFromSources();
  bool start(DiagnoseConfig config, const QString& only_item, bool capture_run);
  void onCaptureListening(int run);
  void startWorker();
  void onDiagnosed(int run, const Result<Diagnosis>& result);
  void onCaptureEnded(int run, const Result<LiveCaptureStats>& stats);
  void startMatching();
  void onMatched(int run, const std::map<std::string, std::string>& names, std::shared_ptr<const Diagnosis> judged,
                 const QString& problem);
  // Progress and outcome texts are kept as how to say them, so a language switch remakes them.
  void setProgress(std::function<QString()> text);
  void finish(bool ok, std::function<QString()> text);
  void setState(State s);
  void jump(int row, int ref);
  void onChecklistPicked(int index);
  void fitTarget();
  void showSelected();

  QComboBox* checklist_box_;
  QCheckBox* use_live_;
  QComboBox* target_;
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
  DiagnosisModel* model_;
  QTableView* list_;
  EvidenceView* evidence_;

  Checklist checklist_ = builtin_latency_checklist();
  std::vector<std::pair<QString, CaptureKeySources>> open_captures_;
  CaptureKeySources fallback_keys_;
  std::shared_ptr<Inbox> inbox_;
  State state_ = State::Idle;
  int run_ = 0;  // numbers the runs: reports of an older one are dropped
  std::unique_ptr<PendingRun> pending_;
  std::optional<DiagnoseConfig> last_config_;  // for re-running an item
  std::optional<Diagnosis> last_diagnosis_;    // of the last full run
  bool last_captured_ = false;
  std::unique_ptr<Worker> worker_, capture_worker_, match_worker_;
};

}  // namespace anthro::widgets
