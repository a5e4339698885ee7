#include "rollout_controller.h"

#include "rollout_model.h"

namespace anthro::widgets {

RolloutController::RolloutController(JobService* jobs, QObject* parent)
    : QObject(parent), jobs_(jobs), model_(new RolloutModel(this)) {}

// The job is never joined here: the rollout is asked to pause, which ends it after the
// requests in flight, and the reaper joins it.
RolloutController::~RolloutController() {
  if (control_) control_->pause = true;
}

double RolloutController::sinceStart() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
}

bool RolloutController::run(RolloutConfig config) {
  if (busy()) {
    emit failed(tr("A rollout is running: pause or roll it back first."));
    return false;
  }
  dropResult();
  model_->clearResults();
  origin_ = std::chrono::steady_clock::now();
  last_config_ = config;
  return start(std::move(config), false);
}

bool RolloutController::pause() {
  if (state_ != State::Running) {
    emit failed(tr("No rollout is running to pause."));
    return false;
  }
  control_->pause = true;
  setState(State::Pausing);
  return true;
}

bool RolloutController::waiting(const QString& refusal) {
  if (state_ == State::Paused && result_ && last_config_) return true;
  emit failed(refusal);
  return false;
}

bool RolloutController::continueRollout() {
  if (!waiting(tr("No rollout is waiting to continue."))) return false;
  RolloutConfig c = *last_config_;
  c.resume = *result_;
  c.promote = true;
  model_->setPromoted(result_->stopped_at.value_or(0));
  emit message(tr("Stage %1 let through by a person").arg(result_->stopped_at.value_or(0) + 1));
  return start(std::move(c), false);
}

std::optional<std::uint64_t> RolloutController::neededRequests() const {
  if (!result_ || result_->stages.empty() || state_ != State::Paused) return std::nullopt;
  return requests_to_settle(result_->stages.back());
}

std::optional<std::uint64_t> RolloutController::moreRequests() const {
  auto need = neededRequests();
  if (!need) return std::nullopt;
  return std::min<std::uint64_t>(*need, kMaxMoreRequests);
}

bool RolloutController::runMore() {
  if (!waiting(tr("No rollout is waiting for more samples."))) return false;
  RolloutConfig c = *last_config_;
  c.resume = *result_;
  c.promote = false;
  c.more_requests = moreRequests();
  const std::size_t stage = result_->stopped_at.value_or(0);
  if (c.more_requests && neededRequests() > c.more_requests)
    emit message(tr("Stage %1's gates need %L2 more requests; running %L3 (the most one Run more adds)")
                     .arg(stage + 1)
                     .arg(*neededRequests())
                     .arg(*c.more_requests));
  model_->setRunning(stage);
  return start(std::move(c), false);
}

bool RolloutController::rollBack() {
  if (state_ == State::Running || state_ == State::Pausing) {
    control_->roll_back = true;
    setState(State::RollingBack);
    return true;
  }
  if (!waiting(tr("No rollout is running or waiting to roll back."))) return false;
  RolloutConfig c = *last_config_;
  c.resume = *result_;
  c.promote = false;
  return start(std::move(c), true);
}

bool RolloutController::start(RolloutConfig config, bool roll_back) {
  control_ = std::make_shared<RolloutControl>();
  control_->roll_back = roll_back;
  more_ = config.more_requests;
  done_ = 0;
  total_ = 0;
  error_.clear();
  job_ = jobs_->start([this, control = control_, origin = origin_, config = std::move(config)](JobContext& job) mutable {
    config.control = control.get();
    // A resumed rollout's requests are sent since its own start: after the stages before it.
    const double resumed_at = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
    config.on_event = [&job, this, origin, resumed_at](const RolloutEvent& e) {
      RolloutEvent event = e;
      if (event.sent_s) *event.sent_s += resumed_at;
      event.result = nullptr;  // valid during the callback only: the stage travels as a copy
      std::optional<StageResult> stage;
      if (e.result) stage = *e.result;
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
      job.post([this, event, stage, t] { onEvent(event, stage, t); });
    };
    auto result = run_rollout(config);
    job.post([this, result] { onFinished(result); });
  });
  setState(roll_back ? State::RollingBack : State::Running);
  emit started(more_.value_or(0));
  return true;
}

void RolloutController::onEvent(const RolloutEvent& event, const std::optional<StageResult>& stage, double t_s) {
  if (!event.line.empty()) emit this->stage(model_->rendered(event.line, event.text));  // in the page's language
  switch (event.kind) {
    case RolloutEvent::Kind::StageStarted: {
      model_->setRunning(event.stage);
      const RolloutConfig& c = *last_config_;
      done_ = 0;
      total_ = more_.value_or(c.requests_per_stage.value_or(event.stage < c.plan.stages.size() ? c.plan.stages[event.stage].requests : 0));
      more_.reset();  // the first batch of the waiting stage only
      if (event.stage < c.plan.stages.size())
        emit stageStarted(static_cast<int>(event.stage), QString::fromStdString(c.plan.stages[event.stage].name), t_s);
      break;
    }
    case RolloutEvent::Kind::Progress:
      if (event.ttft_ms) emit measured(event.candidate_arm, event.sent_s.value_or(t_s), *event.ttft_ms);
      if (event.request && !event.candidate_arm) emit progress(++done_, total_);  // the baseline arm runs every request
      break;
    case RolloutEvent::Kind::StageFinished:
      if (stage) model_->setStageResult(*stage);
      break;
    case RolloutEvent::Kind::RollbackStarted:
    case RolloutEvent::Kind::Finished: break;
  }
}

void RolloutController::onFinished(const Result<RolloutResult>& result) {
  control_.reset();
  if (!result) {
    error_ = tr("The rollout did not run: %1").arg(QString::fromStdString(result.error().detail));
    setState(State::Idle);
    emit failed(error_);
    return;
  }
  result_ = *result;
  saved_ = false;
  model_->setResult(*result_);
  emit message(outcomeLine().arg(model_->rendered(result_->message, result_->message_text)));
  setState(result_->state == RolloutState::Paused ? State::Paused : State::Idle);
  emit finished(*result_);
}

QString RolloutController::outcomeLine() const {
  switch (result_->state) {
    case RolloutState::Passed: return tr("Rollout passed: %1");
    case RolloutState::Failed: return tr("Rollout failed: %1");
    case RolloutState::Paused: return tr("Rollout paused: %1");
    case RolloutState::RolledBack: return tr("Rollout rolled back: %1");
  }
  return QStringLiteral("%1");
}

void RolloutController::dropResult() { result_.reset(); }

void RolloutController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

}  // namespace anthro::widgets
