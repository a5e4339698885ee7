#include "diagnosis_controller.h"

#include "capture/analysis.h"
#include "connection_match.h"
#include "diagnosis_model.h"
#include "loopback_capture.h"
#include "session/target.h"
#include "retranslator.h"
#include "session_controller.h"

namespace anthro::widgets {
namespace {

// The checklist reduced to one item, for re-running it alone.
Checklist only(const Checklist& checklist, const std::string& id) {
  Checklist c = checklist;
  c.items.clear();
  if (const ChecklistItem* item = checklist.item(id)) c.items.push_back(*item);
  return c;
}

}  // namespace

// What a run needs across its steps: the config, the item it is limited to, its capture.
struct DiagnosisController::PendingRun {
  DiagnoseConfig config;
  QString only_item;  // empty: every item
  std::optional<std::uint16_t> port;
  QString capture;  // its capture file while one is taken
  std::shared_ptr<DiagnosisRun> result = std::make_shared<DiagnosisRun>();
  std::shared_ptr<const Diagnosis> judged;  // a captured run's live verdicts, judged again with its capture
};

DiagnosisController::DiagnosisController(JobService* jobs, QObject* parent)
    : QObject(parent),
      jobs_(jobs),
      capture_(new CaptureController(jobs, QStringLiteral("anthro-diagnosis"), this)),
      model_(new DiagnosisModel(this)) {
  model_->setChecklist(checklist_);
  connect(capture_, &CaptureController::listening, this, [this] {
    if (state_ == State::StartingCapture) startRun();
  });
  connect(capture_, &CaptureController::ended, this, &DiagnosisController::onCaptureEnded);
}

void DiagnosisController::setChecklist(const Checklist& checklist) {
  checklist_ = checklist;
  model_->setChecklist(checklist_);
}

bool DiagnosisController::start(DiagnoseConfig config, const QString& only_item, bool capture_run) {
  if (busy()) {
    emit failed(tr("A diagnosis is already running; cancel it first."));
    return false;
  }
  auto pending = std::make_shared<PendingRun>();
  if (config.live) {
    auto target = parse_target(config.live->session.target);
    if (!target) {
      emit failed(tr("Target: %1").arg(QString::fromStdString(target.error().detail)));
      return false;
    }
    pending->port = target->port;
  }
  if (only_item.isEmpty()) {
    last_config_ = config;
    last_captured_ = capture_run;
    last_diagnosis_.reset();
    last_capture_.clear();
    model_->clearResults();
  }
  pending->result->capture_asked = capture_run && pending->port;
  pending->config = std::move(config);
  pending->only_item = only_item;
  pending_ = std::move(pending);
  done_ = total_ = 0;
  error_.clear();
  emit started();
  if (!capture_run || !pending_->port) {
    startRun();
    return true;
  }
  // The capture must be listening before the workload sends its first byte.
  const LoopbackCaptureFiles files = capture_->start(*pending_->port);
  pending_->capture = files.pcapng;
  pending_->config.live->session.keylog_path = files.keylog.toStdString();
  setState(State::StartingCapture);
  return true;
}

bool DiagnosisController::rerun(const QString& id) {
  if (!last_config_) {
    emit failed(tr("Run the diagnosis once before re-running an item."));
    return false;
  }
  DiagnoseConfig c = *last_config_;
  c.checklist = only(checklist_, id.toStdString());
  return start(std::move(c), id, last_captured_);
}

void DiagnosisController::startRun() {
  setState(State::Running);
  job_ = jobs_->start([this, config = pending_->config](JobContext& job) mutable {
    config.stop = &job.stop;
    config.on_progress = [&job, this](const MessageText& line) {
      job.post([this, line] { emit stage(rendered(line)); });  // the interface's language is the GUI thread's
    };
    config.on_requests = [&job, this](std::uint64_t done, std::uint64_t total) {
      job.post([this, done, total] {
        done_ = done;
        total_ = total;
        emit progress(done, total);
      });
    };
    auto result = run_diagnosis(config);
    job.post([this, result] { onDiagnosed(result); });
  });
}

void DiagnosisController::onDiagnosed(const Result<Diagnosis>& result) {
  if (state_ != State::Running) return;
  capture_->stop();  // it writes the file, then reports
  if (!result) {
    error_ = QString::fromStdString(result.error().detail);
    return finish(Outcome::Failed);
  }
  pending_->result->observations = result->observations;
  const bool only_item = !pending_->only_item.isEmpty();
  if (!only_item) {
    last_diagnosis_ = *result;
    saved_ = false;
    model_->setDiagnosis(*result, pending_->result);
  } else if (!result->items.empty()) {
    model_->setItemResult(result->items.front(), pending_->result);
  }
  for (const auto& w : result->warnings) emit message(rendered(w));
  emit diagnosed(*result, only_item);
  if (pending_->capture.isEmpty()) return finish(Outcome::Done);
  pending_->judged = std::make_shared<Diagnosis>(*result);
  setState(State::Matching);
  emit stage(tr("Writing the run's capture…"));
}

void DiagnosisController::onCaptureEnded(const QString& path, const Result<LiveCaptureStats>& stats, bool ready) {
  if (!pending_ || path != pending_->capture) return;  // an older run's, or a cancelled one's
  if (!stats) emit message(tr("Capture failed: %1").arg(QString::fromStdString(stats.error().detail)));
  else if (stats->kernel_drops + stats->interface_drops > 0)
    emit message(tr("The capture lost %1 packets: some streams may not decode").arg(stats->kernel_drops + stats->interface_drops));
  if (state_ == State::StartingCapture && !ready) {  // it never got ready: go on without it
    pending_->capture.clear();
    pending_->config.live->session.keylog_path.clear();
    return startRun();
  }
  if (state_ != State::Matching) return;
  if (!stats) return finish(Outcome::CaptureFailed);
  pending_->result->capture = path;
  last_capture_ = path;
  capture_->offer(path);
  emit captureReady(path);
  startMatching();
}

// The live run's connections named as in its capture, and the capture made a source of the
// diagnosis (add_capture_of_run: the items only a capture measures), read on a job.
void DiagnosisController::startMatching() {
  emit stage(tr("Matching the run's connections to its capture…"));
  job_ = jobs_->start([this, path = pending_->result->capture.toStdString(), checklist = pending_->config.checklist,
                       live = pending_->judged](JobContext& job) {
    AnalyzeOptions options;
    options.progress = [&job](std::uint64_t, std::uint64_t) { return !job.stop.load(); };
    auto analysis = analyze_capture(path, {}, {}, options);  // the keys are embedded in the file
    std::map<std::string, std::string> names;
    auto judged = std::make_shared<Diagnosis>(*live);
    QString problem;
    if (analysis) {
      Observations captured = observe_capture(*analysis);
      names = match_connections(live->observations, captured);
      add_capture_of_run(*judged, checklist, std::move(captured));
    } else {
      problem = QString::fromStdString(analysis.error().detail);
    }
    job.post([this, names, judged, problem] { onMatched(names, judged, problem); });
  });
}

void DiagnosisController::onMatched(const std::map<std::string, std::string>& names,
                                    std::shared_ptr<const Diagnosis> judged, const QString& problem) {
  if (state_ != State::Matching) return;
  auto matched = std::make_shared<DiagnosisRun>(*pending_->result);
  matched->conn_names = names;
  matched->observations = judged->observations;
  model_->setRun(pending_->result, matched);
  const bool only_item = !pending_->only_item.isEmpty();
  if (!only_item) {
    last_diagnosis_ = *judged;
    model_->setDiagnosis(*judged, matched);
  } else if (!judged->items.empty()) {
    model_->setItemResult(judged->items.front(), matched);
  }
  emit rejudged(*judged, only_item);
  if (!problem.isEmpty()) {
    error_ = problem;
    return finish(Outcome::CaptureUnread);
  }
  finish(names.empty() ? Outcome::Unmatched : Outcome::Matched);
}

std::optional<Diagnosis> DiagnosisController::diagnosis() const {
  if (!hasDiagnosis()) return std::nullopt;
  Diagnosis d = *last_diagnosis_;
  for (auto& item : d.items)  // re-runs and notes live in the rows
    if (int row = model_->rowOf(QString::fromStdString(item.id)); row >= 0 && model_->row(row).result)
      item = *model_->row(row).result;
  return d;
}

QString DiagnosisController::capturePath() const { return last_capture_; }
QStringList DiagnosisController::unsavedFiles() const { return capture_->unsavedFiles(); }
void DiagnosisController::markCaptureSaved(const QString& path) { capture_->markSaved(path); }
bool DiagnosisController::waitForJobs(int timeout_ms) { return jobs_->waitAll(timeout_ms); }

void DiagnosisController::cancel() {
  if (!busy()) return;
  finish(Outcome::Cancelled);
}

void DiagnosisController::finish(Outcome outcome) {
  // Never joined here: a dropped job stops, and what it still reports is discarded.
  if (state_ == State::Running || state_ == State::Matching) jobs_->drop(job_);
  capture_->stop();
  pending_.reset();
  outcome_ = outcome;
  setState(State::Idle);
  if (outcome == Outcome::Failed) emit failed(error_);
  emit finished(outcome);
}

void DiagnosisController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

}  // namespace anthro::widgets
