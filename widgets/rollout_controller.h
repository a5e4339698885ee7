// The Rollout page's work without its widgets: run_rollout on a job, a person's Pause,
// Continue, Run more and Roll back, the result and the stage timeline's rows (RolloutModel).
// Tests drive it without a window.
#pragma once

#include <QObject>
#include <QString>
#include <chrono>
#include <memory>
#include <optional>

#include "job_service.h"
#include "rollout/rollout.h"

namespace anthro::widgets {

class RolloutModel;

class RolloutController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Running, Pausing, RollingBack, Paused };
  // The most requests one Run more adds, whatever the gates say they need.
  static constexpr std::uint64_t kMaxMoreRequests = 100'000;

  explicit RolloutController(JobService* jobs, QObject* parent = nullptr);
  ~RolloutController() override;

  RolloutModel* model() const { return model_; }
  // Each false (and failed()) when the state does not allow it.
  bool run(RolloutConfig config);  // from the first stage; the results and the time base start afresh
  bool pause();
  bool continueRollout();
  bool runMore();
  bool rollBack();
  // What Run more adds to the waiting stage: the requests its gates need (requests_to_settle),
  // at most kMaxMoreRequests; none when no gate says (then the stage's own batch).
  std::optional<std::uint64_t> moreRequests() const;
  std::optional<std::uint64_t> neededRequests() const;  // the same, uncapped

  State state() const { return state_; }
  bool busy() const { return state_ == State::Running || state_ == State::Pausing || state_ == State::RollingBack; }
  const std::optional<RolloutResult>& result() const { return result_; }
  void dropResult();
  QString error() const { return error_; }
  bool hasUnsavedResult() const { return result_.has_value() && !saved_; }
  void markSaved() { saved_ = true; }
  // Seconds since the run's start (the charts' time base).
  double sinceStart() const;

 signals:
  void stateChanged(RolloutController::State state);
  void started(quint64 more_requests);  // 0: the stages' own counts
  void stage(const QString& line);
  void progress(quint64 done, quint64 total);  // requests of the stage under way (total: its batch)
  // A request ended: its arm, when it was sent (s since the start) and its TTFT.
  void measured(bool candidate_arm, double sent_s, double ttft_ms);
  // A stage began at t_s (s since the start): the charts' band for it.
  void stageStarted(int stage, const QString& name, double t_s);
  void finished(const anthro::RolloutResult& result);
  void failed(const QString& message);
  void message(const QString& text);

 private:
  bool start(RolloutConfig config, bool roll_back);
  bool waiting(const QString& refusal);
  void onEvent(const RolloutEvent& event, const std::optional<StageResult>& stage, double t_s);
  void onFinished(const Result<RolloutResult>& result);
  QString outcomeLine() const;  // "Rollout passed: %1", by the result's state
  void setState(State s);

  JobService* jobs_;
  RolloutModel* model_;
  State state_ = State::Idle;
  JobId job_ = 0;
  std::optional<RolloutConfig> last_config_;  // what Continue, Run more and Roll back resume
  std::optional<RolloutResult> result_;
  std::shared_ptr<RolloutControl> control_;  // the running rollout's, shared with its job
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  std::optional<std::uint64_t> more_;  // the running Run more's first batch
  std::uint64_t done_ = 0, total_ = 0;
  QString error_;
  bool saved_ = false;
};

}  // namespace anthro::widgets
