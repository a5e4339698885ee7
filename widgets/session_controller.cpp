#include "session_controller.h"

#include <chrono>
#include <thread>

#include "session/live_session.h"
#include "session/target.h"

namespace anthro::widgets {

// ---- CaptureController

CaptureController::CaptureController(JobService* jobs, QString prefix, QObject* parent)
    : QObject(parent), jobs_(jobs), prefix_(std::move(prefix)) {}

LoopbackCaptureFiles CaptureController::start(std::uint16_t port) {
  stop();
  files_ = new_capture_files(prefix_);
  setState(State::Starting);
  LiveCaptureConfig lc = loopback_capture_config(*files_, port);
  const QString path = files_->pcapng;
  job_ = jobs_->start([this, lc, previous = previous_, path](JobContext& job) {
    if (previous.valid()) previous.wait();
    bool ready = false;  // this capture's, on its thread
    auto stats = run_live_capture(lc, job.stop, [&job, &ready, this] {
      ready = true;
      job.post([this, id = job.id] {
        if (id != job_) return;
        setState(State::Capturing);
        emit listening();
      });
    });
    job.post([this, path, stats, ready, id = job.id] {
      if (id == job_) setState(State::Idle);
      emit ended(path, stats, ready);
    });
  });
  previous_ = jobs_->finished(job_);
  return *files_;
}

void CaptureController::stop() {
  if (state_ == State::Idle || state_ == State::Writing) return;
  setState(State::Writing);
  jobs_->stop(job_);  // it writes the file, then reports ended()
}

void CaptureController::offer(const QString& path) {
  if (!unsaved_.contains(path)) unsaved_.append(path);
}

void CaptureController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

// ---- SessionController

SessionController::SessionController(JobService* jobs, CaptureController* capture, QObject* parent)
    : QObject(parent), jobs_(jobs), capture_(capture) {
  connect(capture_, &CaptureController::listening, this, [this] {
    if (state_ != State::StartingCapture) return;  // cancelled meanwhile
    emit message(tr("Capturing on lo…"));
    capture_path_ = capture_->path();
    startSession();
  });
  connect(capture_, &CaptureController::ended, this, &SessionController::onCaptureEnded);
}

bool SessionController::send(SessionConfig config, bool capture) {
  if (busy()) {
    emit failed(tr("A session is already running; cancel it first."));
    return false;
  }
  auto parsed = parse_session_target(config.target);
  if (!parsed) {
    emit failed(QString::fromStdString(parsed.error().detail));
    return false;
  }
  results_.clear();
  capture_path_.clear();
  pending_ = std::move(config);
  if (!capture) {
    startSession();
    return state_ == State::Running;
  }
  const LoopbackCaptureFiles files = capture_->start(parsed->port);
  pending_.keylog_path = files.keylog.toStdString();
  setState(State::StartingCapture);
  return true;
}

// The session runs on its own thread (LiveSession); the job holds it, cancels it when asked to
// stop, and ends when it has.
void SessionController::startSession() {
  setState(State::Running);
  emit started();
  const quint64 total = pending_.repeat;
  job_ = jobs_->start([this, c = pending_, capture = capture_path_, total](JobContext& job) {
    LiveSessionEvents events;
    events.on_text = [&job, this](std::uint32_t, std::string_view text) {
      job.post([this, t = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()))] { emit this->text(t); });
    };
    events.on_token = [&job, this](std::uint32_t, const TokenArrival& arrival) { job.post([this, arrival] { emit token(arrival); }); };
    events.on_request_done = [&job, this, capture, total](const RequestResult& r) {
      job.post([this, r, capture, total] {
        results_.push_back(r);
        emit requestDone(r, capture);
        emit progress(results_.size(), total);
      });
    };
    events.on_finished = [&job, this](const SessionResult& r) { job.post([this, r] { onFinished(r); }); };
    auto session = LiveSession::start(c, std::move(events));
    if (!session) {
      SessionResult failed;
      failed.error = session.error().detail;
      job.post([this, failed] { onFinished(failed); });
      return;
    }
    bool cancelled = false;
    while (!(*session)->finished()) {
      if (job.stop && !cancelled) {
        (*session)->cancel();
        cancelled = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
}

void SessionController::cancel() {
  if (state_ == State::StartingCapture) {  // nothing was sent yet
    capture_->stop();
    SessionResult r;
    r.error = "cancelled by the client before the first request";
    last_ = r;
    setState(State::Idle);
    emit finished(r);
    return;
  }
  if (state_ == State::Running) jobs_->stop(job_);  // its requests end as cancelled, then finished()
}

void SessionController::onFinished(const SessionResult& result) {
  if (state_ != State::Running) return;
  for (const auto& warning : result.warnings) emit message(tr("Session: %1").arg(QString::fromStdString(warning)));
  last_ = result;
  saved_ = false;
  capture_->stop();
  setState(State::Idle);
  if (result.error) emit failed(tr("Session failed: %1").arg(QString::fromStdString(*result.error)));
  emit finished(result);
}

// A capture that holds nothing is not offered: a failed send would open an empty tab.
void SessionController::onCaptureEnded(const QString& path, const Result<LiveCaptureStats>& stats, bool ready) {
  if (!stats) emit message(tr("Capture failed: %1").arg(QString::fromStdString(stats.error().detail)));
  if (!ready && state_ == State::StartingCapture) {  // it never got ready: go on without it
    pending_.keylog_path.clear();
    return startSession();
  }
  if (!stats) return;
  if (stats->packets == 0) {
    emit message(tr("The capture %1 holds no packets (the session sent nothing on lo): not opened").arg(path));
    return;
  }
  capture_->offer(path);
  emit captureReady(path);
}

void SessionController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

// ---- LoadController

LoadController::LoadController(JobService* jobs, QObject* parent) : QObject(parent), jobs_(jobs) {}

bool LoadController::start(BenchConfig b, int series) {
  if (busy()) return false;
  progress_ = Progress{};
  progress_.total = b.requests;
  progress_.slo = b.slo.ttft_ms || b.slo.tpot_ms || b.slo.e2e_ms;
  progress_.started_s = steady_now_s();
  error_.clear();
  setState(State::Running);
  emit started();
  // Each request reaches the page as it ends; the result, after the last, ends the load.
  job_ = jobs_->start([this, b, series](JobContext& job) mutable {
    b.stop = &job.stop;
    const double bench_start = steady_now_s();
    b.on_record = [&job, this, series, bench_start](const BenchRecord& rec) {
      job.post([this, rec, series, bench_start] { onRecord(rec, bench_start, series); });
    };
    auto result = run_bench(b);
    job.post([this, result] { onDone(result); });
  });
  return true;
}

void LoadController::cancel() {
  if (state_ != State::Running) return;
  jobs_->stop(job_);  // no new request starts; those in flight finish and are kept
  setState(State::Stopping);
}

void LoadController::onRecord(const BenchRecord& rec, double bench_start_s, int series) {
  ++progress_.done;
  if (rec.result.error) ++progress_.errors;
  progress_.tokens += rec.result.figures.tokens;
  emit record(rec, bench_start_s, series);
  emit progressed(progress_.done, progress_.total.value_or(0));
}

void LoadController::onDone(const Result<BenchResult>& result) {
  if (!result) {
    result_.reset();
    error_ = QString::fromStdString(result.error().detail);
    setState(State::Failed);
    emit failed(tr("Load failed: %1").arg(error_));
    return;
  }
  result_ = std::make_unique<BenchResult>(*result);
  saved_ = false;
  setState(state_ == State::Stopping ? State::Cancelled : State::Done);
  emit finished(*result_);
}

void LoadController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

}  // namespace anthro::widgets
