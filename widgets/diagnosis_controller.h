// The Diagnosis page's work without its widgets: a checklist run (run_diagnosis on a job), with
// or without a capture of the live run's own traffic, the match of the run's connections to
// that capture, and the rows (DiagnosisModel) they fill. Tests drive it without a window.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "capture/live_capture.h"
#include "diagnosis/diagnose.h"
#include "job_service.h"

namespace anthro::widgets {

class CaptureController;
class DiagnosisModel;
struct DiagnosisRun;

class DiagnosisController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, StartingCapture, Running, Matching };
  // How a run ended: verdicts (with its capture matched, unmatched, failed or unreadable), or none.
  enum class Outcome { Done, Matched, Unmatched, CaptureFailed, CaptureUnread, Failed, Cancelled };

  explicit DiagnosisController(JobService* jobs, QObject* parent = nullptr);

  DiagnosisModel* model() const { return model_; }
  void setChecklist(const Checklist& checklist);
  const Checklist& checklist() const { return checklist_; }

  // Runs `config`, limited to `only_item` when set (a re-run: the other rows keep theirs), its
  // live traffic captured first with `capture_run`. False (and failed()) when one runs or the
  // target is malformed.
  bool start(DiagnoseConfig config, const QString& only_item, bool capture_run);
  bool rerun(const QString& id);  // the item alone, on the sources of the last full run
  void cancel();                  // what it reports from now on is dropped
  State state() const { return state_; }
  bool busy() const { return state_ != State::Idle; }
  Outcome outcome() const { return outcome_; }  // of the last run that ended
  QString error() const { return error_; }       // of the last failed run, or why its capture was unread
  // Requests of the live run under way (or last): done of total, total 0 before it is known.
  std::uint64_t done() const { return done_; }
  std::uint64_t total() const { return total_; }
  bool hasConfig() const { return last_config_.has_value(); }
  bool hasDiagnosis() const { return last_diagnosis_.has_value() && !busy(); }
  // The last full run as the rows show it now: re-runs and manual notes included.
  std::optional<Diagnosis> diagnosis() const;
  QString capturePath() const;  // the last run's own capture, or empty
  QStringList unsavedFiles() const;
  bool hasUnsavedResult() const { return hasDiagnosis() && !saved_; }
  void markSaved() { saved_ = true; }
  void markCaptureSaved(const QString& path);
  bool waitForJobs(int timeout_ms);

 signals:
  void stateChanged(DiagnosisController::State state);
  void started();
  void stage(const QString& line);             // core's progress line ("live: …")
  void progress(quint64 done, quint64 total);  // the live run's requests
  void diagnosed(const anthro::Diagnosis& diagnosis, bool only_item);  // verdicts are in the rows
  // A captured run's verdicts judged again with its capture (add_capture_of_run), in the rows.
  void rejudged(const anthro::Diagnosis& diagnosis, bool only_item);
  void finished(DiagnosisController::Outcome outcome);  // every run ends with one
  void failed(const QString& message);
  void message(const QString& text);
  void captureReady(const QString& path);

 private:
  struct PendingRun;
  void startRun();
  void onDiagnosed(const Result<Diagnosis>& result);
  void onCaptureEnded(const QString& path, const Result<LiveCaptureStats>& stats, bool ready);
  void startMatching();
  void onMatched(const std::map<std::string, std::string>& names, std::shared_ptr<const Diagnosis> judged,
                 const QString& problem);
  void finish(Outcome outcome);
  void setState(State s);

  JobService* jobs_;
  CaptureController* capture_;
  DiagnosisModel* model_;
  Checklist checklist_ = builtin_latency_checklist();
  State state_ = State::Idle;
  Outcome outcome_ = Outcome::Done;
  QString error_;
  JobId job_ = 0;
  std::uint64_t done_ = 0, total_ = 0;
  std::shared_ptr<PendingRun> pending_;
  std::optional<DiagnoseConfig> last_config_;
  bool last_captured_ = false;
  std::optional<Diagnosis> last_diagnosis_;
  QString last_capture_;
  bool saved_ = false;
};

}  // namespace anthro::widgets
