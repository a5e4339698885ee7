// The live session page's work without its widgets: a send (SessionController), a load
// (LoadController) and the loopback capture of a send (CaptureController). Each owns its jobs
// on a JobService, its state (an enum) and results, and says what happens through signals; the
// page only lays out, binds and draws. Tests drive them without a window (test_controllers).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

#include "capture/live_capture.h"
#include "job_service.h"
#include "loopback_capture.h"
#include "session/bench.h"
#include "session/session.h"

namespace anthro::widgets {

// A page's captures of its own runs on lo, one a run: each opens only once the one before has
// written its file, so no capture holds another run's packets. The files stay until the process
// exits; those written and not yet saved elsewhere by the user are listed by unsavedFiles().
class CaptureController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Starting, Capturing, Writing };
  CaptureController(JobService* jobs, QString prefix, QObject* parent = nullptr);

  // Starts a capture of tcp `port` on lo; listening() once it captures (or ended() when it
  // cannot start). Returns its files: a client writes its keys to `keylog`.
  LoopbackCaptureFiles start(std::uint16_t port);
  void stop();  // the capture under way writes its file, then ended()
  State state() const { return state_; }
  QString path() const { return files_ ? files_->pcapng : QString(); }  // the current or last capture
  // Captures written and offered (captureReady) that the user has not saved elsewhere.
  QStringList unsavedFiles() const { return unsaved_; }
  void markSaved(const QString& path) { unsaved_.removeAll(path); }
  void offer(const QString& path);  // the page opened it: unsaved until markSaved

 signals:
  void stateChanged(CaptureController::State state);
  void listening();
  // Written (stats) or failed (an error naming what); `ready` false when it never captured.
  void ended(const QString& path, const Result<LiveCaptureStats>& stats, bool ready);

 private:
  void setState(State s);

  JobService* jobs_;
  QString prefix_;
  State state_ = State::Idle;
  std::optional<LoopbackCaptureFiles> files_;
  JobId job_ = 0;
  std::shared_future<void> previous_;  // the last capture's job, done once its file is written
  QStringList unsaved_;
};

// A send: `repeat` requests on one connection, with or without a capture of its traffic.
class SessionController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, StartingCapture, Running };
  SessionController(JobService* jobs, CaptureController* capture, QObject* parent = nullptr);

  // Starts a session; false (and failed()) when one runs or the target is malformed. With
  // `capture`, its traffic is captured first (the capture must listen before the first byte).
  bool send(SessionConfig config, bool capture);
  void cancel();  // a real CANCEL on anthro-v1; before the first byte, nothing is sent
  State state() const { return state_; }
  bool busy() const { return state_ != State::Idle; }
  const std::vector<RequestResult>& results() const { return results_; }  // the last send's
  const std::optional<SessionResult>& lastSession() const { return last_; }
  QString capturePath() const { return capture_path_; }  // the send under way's capture, or empty
  bool hasUnsavedResult() const { return last_.has_value() && !saved_; }
  void markSaved() { saved_ = true; }

 signals:
  void stateChanged(SessionController::State state);
  void started();
  void text(const QString& text);
  void token(const anthro::TokenArrival& arrival);
  void requestDone(const anthro::RequestResult& result, const QString& capture);
  void progress(quint64 done, quint64 total);  // requests of the send
  void finished(const anthro::SessionResult& result);  // also a failed one (result.error)
  void failed(const QString& message);                 // could not start, or ended with an error
  void message(const QString& text);                   // for the log
  void captureReady(const QString& path);

 private:
  void startSession();
  void onCaptureEnded(const QString& path, const Result<LiveCaptureStats>& stats, bool ready);
  void onFinished(const SessionResult& result);
  void setState(State s);

  JobService* jobs_;
  CaptureController* capture_;
  State state_ = State::Idle;
  SessionConfig pending_;
  JobId job_ = 0;
  QString capture_path_;
  std::vector<RequestResult> results_;
  std::optional<SessionResult> last_;
  bool saved_ = false;
};

// A load: core's bench, its requests reported as they end. Cancel lets the requests in flight
// finish and keeps what was done: state Cancelled, with a result of those requests.
class LoadController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Running, Stopping, Done, Cancelled, Failed };
  // Counts of the load under way (or last run).
  struct Progress {
    std::uint64_t done = 0, errors = 0, tokens = 0;
    std::optional<std::uint64_t> total;
    double started_s = 0;  // monotonic
    bool slo = false;      // run with an SLO: its goodput is worth a mention
  };
  explicit LoadController(JobService* jobs, QObject* parent = nullptr);

  bool start(BenchConfig config, int series);  // false when one runs
  void cancel();
  State state() const { return state_; }
  bool busy() const { return state_ == State::Running || state_ == State::Stopping; }
  const Progress& progress() const { return progress_; }
  const BenchResult* result() const { return result_.get(); }  // the last load that ended (or was cancelled)
  QString error() const { return error_; }
  bool hasUnsavedResult() const { return result_ && !saved_; }
  void markSaved() { saved_ = true; }

 signals:
  void stateChanged(LoadController::State state);
  void started();
  // A request ended: `bench_start_s` is the load's start (monotonic) for a record that never
  // wrote its request.
  void record(const anthro::BenchRecord& record, double bench_start_s, int series);
  void progressed(quint64 done, quint64 total);  // total 0: no request limit
  void finished(const anthro::BenchResult& result);  // Done or Cancelled
  void failed(const QString& message);

 private:
  void onRecord(const BenchRecord& rec, double bench_start_s, int series);
  void onDone(const Result<BenchResult>& result);
  void setState(State s);

  JobService* jobs_;
  State state_ = State::Idle;
  JobId job_ = 0;
  Progress progress_;
  std::unique_ptr<BenchResult> result_;
  QString error_;
  bool saved_ = false;
};

}  // namespace anthro::widgets
