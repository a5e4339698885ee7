#include "rollout_page.h"

#include <QComboBox>
#include <climits>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include "file_dialog.h"
#include "error_text.h"
#include "gui_thread.h"
#include "latency_charts.h"
#include "retranslator.h"
#include "rollout_model.h"
#include "session/target.h"
#include "util/files.h"
#include "verdict_chip.h"
#include "job_service.h"
#include "request_point.h"

namespace anthro::widgets {
namespace {


}  // namespace

RolloutPage::RolloutPage(QWidget* parent)
    : QWidget(parent),
      plan_(new QComboBox(this)),
      open_plan_(new QPushButton(this)),
      plan_source_(new QLabel(this)),
      plan_error_(new QLabel(this)),
      baseline_(new QComboBox(this)),
      candidate_(new QComboBox(this)),
      requests_(new QSpinBox(this)),
      run_button_(new QPushButton(this)),
      pause_button_(new QPushButton(this)),
      continue_button_(new QPushButton(this)),
      more_button_(new QPushButton(this)),
      rollback_button_(new QPushButton(this)),
      save_button_(new QPushButton(this)),
      export_button_(new QPushButton(this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      problems_(new QLabel(this)),
      summary_(new QLabel(this)),
      model_(nullptr),
      timeline_(new QTreeView(this)),
      charts_(new LatencyCharts(this)),
      jobs_(new JobService(this)),
      controller_(new RolloutController(jobs_, this)) {
  model_ = controller_->model();
  makeTimeline();
  // Rollout events carry each request's arm and TTFT: the TTFT charts alone.
  charts_->setChartVisible(LatencyCharts::TokenRate, false);
  charts_->setChartVisible(LatencyCharts::ItlHistogram, false);
  connect(charts_, &LatencyCharts::message, this, &RolloutPage::message);

  for (QLabel* l : {plan_error_, problems_}) {
    show_as_error(l);
    l->hide();
  }
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = summary_->font();
  bold.setBold(true);
  summary_->setFont(bold);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(timeline_);
  split->addWidget(charts_);
  split->setStretchFactor(0, 2);  // a plan's stages and gates, without scrolling
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(makeInputs());
  layout->addWidget(makeButtonRow());
  layout->addWidget(problems_);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  (new Retranslator(this))->add([this] {
    charts_->setSeriesName(0, tr("baseline"));
    charts_->setSeriesName(1, tr("candidate"));
    if (state() == State::Idle || state() == State::Paused) {
      status_->setText(restingText());
      showSummary();
    }
    showProblems();
  });
  loadBuiltinPlans();
  bindController();
  onStateChanged();
}

RolloutPage::~RolloutPage() = default;  // the controller pauses a running rollout; nothing is joined here

// The stage timeline: verdicts as chips, intervals as bars, the plan's values editable.
void RolloutPage::makeTimeline() {
  timeline_->setObjectName("rollout-timeline");
  timeline_->setModel(model_);
  timeline_->setItemDelegateForColumn(RolloutModel::VerdictColumn, new VerdictChipDelegate(timeline_));
  timeline_->setItemDelegateForColumn(RolloutModel::IntervalColumn, new IntervalBarDelegate(timeline_));
  timeline_->setUniformRowHeights(true);
  timeline_->setAlternatingRowColors(true);
  timeline_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::SelectedClicked);
  timeline_->header()->setStretchLastSection(true);
  const QFontMetrics fm = timeline_->fontMetrics();
  const int x = fm.horizontalAdvance('x');
  for (auto [column, chars] : {std::pair{RolloutModel::NameColumn, 30}, {RolloutModel::SplitColumn, 10},
                               {RolloutModel::ModeColumn, 20}, {RolloutModel::RequestsColumn, 9},
                               {RolloutModel::StatisticColumn, 11}, {RolloutModel::IntervalColumn, 44},
                               {RolloutModel::ThresholdColumn, 17}, {RolloutModel::NColumn, 9}})
    timeline_->setColumnWidth(column, x * chars);
  timeline_->setColumnWidth(RolloutModel::VerdictColumn, fm.horizontalAdvance(tr("waiting for a person")) + 40);
  connect(model_, &QAbstractItemModel::modelReset, timeline_, &QTreeView::expandAll);
  connect(model_, &RolloutModel::rejected, this, &RolloutPage::message);
  connect(model_, &RolloutModel::planEdited, this, [this] {
    if (result()) {  // the results were judged on the old values
      dropResult();
      model_->clearResults();
    }
    showProblems();
  });
}

QWidget* RolloutPage::makeInputs() {
  auto* box = new QWidget(this);  // no frame or title: the tab names the page, the timeline needs the room
  plan_->setMinimumContentsLength(40);
  plan_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  for (QComboBox* c : {baseline_, candidate_}) {
    c->setEditable(true);
    c->setInsertPolicy(QComboBox::NoInsert);
    c->setMinimumContentsLength(30);
  }
  requests_->setRange(0, 10'000'000);
  requests_->setValue(0);
  plan_source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QPalette muted = plan_source_->palette();
  muted.setColor(QPalette::WindowText, muted.color(QPalette::PlaceholderText));
  plan_source_->setPalette(muted);
  auto* plan_row = new QHBoxLayout;
  plan_row->addWidget(plan_, 2);
  plan_row->addWidget(open_plan_);
  plan_row->addWidget(plan_source_, 3);
  auto* baseline_label = new QLabel(this);
  auto* candidate_label = new QLabel(this);
  auto* requests_label = new QLabel(this);
  auto* target_row = new QHBoxLayout;
  target_row->addWidget(baseline_label);
  target_row->addWidget(baseline_, 1);
  target_row->addWidget(candidate_label);
  target_row->addWidget(candidate_, 1);
  target_row->addWidget(requests_label);
  target_row->addWidget(requests_);
  auto* form = new QFormLayout(box);
  form->setContentsMargins(0, 0, 0, 0);
  auto* plan_label = new QLabel(this);
  form->addRow(plan_label, plan_row);
  form->addRow(QString(), plan_error_);
  auto* targets_label = new QLabel(this);
  form->addRow(targets_label, target_row);
  connect(plan_, &QComboBox::currentIndexChanged, this, &RolloutPage::showPlan);
  connect(open_plan_, &QPushButton::clicked, this, [this] {
    const QString path = open_file_name(this, tr("Open rollout plan"), tr("Rollout plans (*.json);;All files (*)"));
    if (!path.isEmpty()) openPlan(path);
  });
  connect(requests_, &QSpinBox::valueChanged, this,
          [this](int n) { model_->setRequestsPerStage(n > 0 ? std::optional<std::uint64_t>(n) : std::nullopt); });
  (new Retranslator(this))->add([=, this] {
    plan_label->setText(tr("Plan"));
    open_plan_->setText(tr("Open plan…"));
    targets_label->setText(tr("Targets"));
    baseline_label->setText(tr("Baseline"));
    candidate_label->setText(tr("Candidate"));
    requests_label->setText(tr("Requests per stage"));
    requests_->setSpecialValueText(tr("the plan's"));
    requests_->setToolTip(tr("Every stage runs this many requests; \"the plan's\" keeps each stage's own count"));
    baseline_->setToolTip(tr("The path traffic moves from: https://host/v1/messages, anthro://host:port, …"));
    candidate_->setToolTip(tr("The path traffic moves to: anthro://host:port, anthro+lab://host:port, …"));
    retitlePlans();
  });
  return box;
}

QWidget* RolloutPage::makeButtonRow() {
  auto* row = new QWidget(this);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  for (QPushButton* b : {run_button_, pause_button_, continue_button_, more_button_, rollback_button_, save_button_, export_button_})
    layout->addWidget(b);
  layout->addWidget(progress_);
  layout->addWidget(status_, 1);
  progress_->setRange(0, 0);
  progress_->setMaximumWidth(120);
  connect(run_button_, &QPushButton::clicked, this, &RolloutPage::run);
  connect(pause_button_, &QPushButton::clicked, this, &RolloutPage::pause);
  connect(continue_button_, &QPushButton::clicked, this, &RolloutPage::continueRollout);
  connect(more_button_, &QPushButton::clicked, this, &RolloutPage::runMore);
  connect(rollback_button_, &QPushButton::clicked, this, &RolloutPage::askToRollBack);
  connect(save_button_, &QPushButton::clicked, this, &RolloutPage::askToSave);
  connect(export_button_, &QPushButton::clicked, this, &RolloutPage::exportReportRequested);
  (new Retranslator(this))->add([this] {
    run_button_->setText(tr("Run"));
    pause_button_->setText(tr("Pause"));
    continue_button_->setText(tr("Continue"));
    more_button_->setText(tr("Run more"));
    rollback_button_->setText(tr("Roll back"));
    save_button_->setText(tr("Save result…"));
    export_button_->setText(tr("Export report…"));
    export_button_->setToolTip(tr("Every stage's gates, intervals and charts as HTML, PDF, Markdown or JSON"));
    run_button_->setToolTip(tr("Run the plan from its first stage"));
    pause_button_->setToolTip(tr("Judge the running stage on what it has measured, then wait"));
    continue_button_->setToolTip(tr("Let the waiting stage through and run the next ones"));
    more_button_->setToolTip(tr("Run the waiting stage again with as many requests as its gates need (at most %L1), "
                                "pooling its samples, and judge it again")
                                 .arg(RolloutController::kMaxMoreRequests));
    rollback_button_->setToolTip(tr("Stop and move every candidate session back to the baseline, timed"));
  });
  return row;
}

// The plans core compiles in, named as the CLI names them.
void RolloutPage::loadBuiltinPlans() {
  for (const RolloutPlan& plan : builtin_rollout_plans()) {
    plans_.push_back({plan, QStringLiteral("built-in ") + QString::fromStdString(plan.id), true});
    plan_->addItem(QString());
  }
  retitlePlans();
  if (!plans_.empty()) showPlan(0);
}

void RolloutPage::retitlePlans() {
  for (std::size_t i = 0; i < plans_.size(); ++i) {
    const auto& p = plans_[i];
    QString title = QString::fromStdString(p.plan.title.in(language_.toStdString()));
    if (!p.builtin) title = tr("%1 — %2").arg(QFileInfo(p.origin).fileName(), title);
    plan_->setItemText(static_cast<int>(i), title);
    plan_->setItemData(static_cast<int>(i), p.origin, Qt::ToolTipRole);
  }
}

QStringList RolloutPage::builtinPlans() const {
  QStringList ids;
  for (const auto& p : plans_)
    if (p.builtin) ids << QString::fromStdString(p.plan.id);
  return ids;
}

bool RolloutPage::selectPlan(const QString& id) {
  const std::string wanted = current_plan_id(id.toStdString());
  for (std::size_t i = 0; i < plans_.size(); ++i)
    if (plans_[i].builtin && plans_[i].plan.id == wanted) {
      plan_->setCurrentIndex(static_cast<int>(i));
      return shown_plan_ == static_cast<int>(i);
    }
  emit message(tr("No built-in rollout plan is called %1").arg(id));
  return false;
}

bool RolloutPage::openPlan(const QString& path) {
  if (state() != State::Idle) {
    emit message(tr("A rollout is running or waiting: finish or roll it back before opening a plan."));
    return false;
  }
  auto plan = load_plan(path.toStdString());
  if (!plan) {
    plan_error_text_ = QString::fromStdString(plan.error().detail);
    plan_error_->setText(tr("The plan did not load: %1").arg(plan_error_text_));
    plan_error_->show();
    emit message(plan_error_->text());
    return false;
  }
  plan_error_text_.clear();
  plan_error_->hide();
  int at = -1;
  for (std::size_t i = 0; i < plans_.size(); ++i)
    if (!plans_[i].builtin && plans_[i].origin == path) at = static_cast<int>(i);
  if (at < 0) {
    plans_.push_back({std::move(*plan), path, false});
    plan_->addItem(QString());
    at = plan_->count() - 1;
  } else {
    plans_[static_cast<std::size_t>(at)].plan = std::move(*plan);
  }
  retitlePlans();
  shown_plan_ = -1;  // shown again even when it is the one shown: the file may have changed
  plan_->setCurrentIndex(at);
  showPlan(at);
  return true;
}

QString RolloutPage::planError() const { return plan_error_text_; }

void RolloutPage::showPlan(int index) {
  if (index < 0 || index >= static_cast<int>(plans_.size()) || index == shown_plan_) return;
  if (state() != State::Idle) {  // a running or waiting rollout keeps its plan
    const QSignalBlocker quiet(plan_);
    plan_->setCurrentIndex(shown_plan_);
    emit message(tr("A rollout is running or waiting: finish or roll it back before picking another plan."));
    return;
  }
  shown_plan_ = index;
  const LoadedPlan& p = plans_[static_cast<std::size_t>(index)];
  model_->setPlan(p.plan);
  plan_source_->setText(QString::fromStdString(p.plan.source.empty() ? p.origin.toStdString() : p.plan.source));
  plan_source_->setToolTip(p.origin);
  // A plan of a format riding on HTTP rehearses on the Messages API, anthro-v1's plan the move
  // to anthro-v1: the embedded targets follow the plan; targets a person typed stay.
  auto targets = profile_targets_.find(p.plan.profile);
  const bool embedded = embedded_targets_.contains(baseline_->currentText()) && embedded_targets_.contains(candidate_->currentText());
  if (targets != profile_targets_.end() && embedded) {
    setBaseline(targets->second.first);
    setCandidate(targets->second.second);
  }
  dropResult();
  charts_->clear();
  showProblems();
}

void RolloutPage::setProfileTargets(const QString& profile, const QString& baseline, const QString& candidate) {
  profile_targets_[profile.toStdString()] = {baseline, candidate};
}

void RolloutPage::setEmbeddedMetrics(std::function<std::string()> metrics) { embedded_metrics_ = std::move(metrics); }

void RolloutPage::setEmbeddedTargets(const QStringList& urls) {
  embedded_targets_ = urls;
  setTargets(urls);
}

void RolloutPage::setTargets(const QStringList& urls) {
  for (QComboBox* c : {baseline_, candidate_}) {
    const QString current = c->currentText();
    c->clear();
    c->addItems(urls);
    if (!current.isEmpty()) c->setCurrentText(current);
  }
}

void RolloutPage::setBaseline(const QString& url) { baseline_->setCurrentText(url); }
void RolloutPage::setCandidate(const QString& url) { candidate_->setCurrentText(url); }
void RolloutPage::setRequestsPerStage(int requests) { requests_->setValue(requests); }

void RolloutPage::setLanguage(const QString& code) {
  language_ = code;
  model_->setLanguage(code);
  retitlePlans();
  if (state() == State::Idle || state() == State::Paused) showSummary();  // a run under way has no outcome yet
}

QString RolloutPage::statusText() const { return status_->text(); }

void RolloutPage::showProblems() {
  const std::vector<PlanProblem> problems = model_->problems();
  QStringList lines;
  for (const PlanProblem& p : problems) lines << p.text;
  if (!lines.isEmpty()) lines.prepend(tr("The plan cannot run until these are fixed:"));
  problems_->setText(lines.join('\n'));
  problems_->setVisible(!problems.empty());
}

// The plan as edited and the targets, as run_rollout takes them; nullopt (and a message) when
// they cannot run.
std::optional<RolloutConfig> RolloutPage::configFromInputs() {
  if (shown_plan_ < 0) {
    emit message(tr("Pick a rollout plan first."));
    return std::nullopt;
  }
  if (const auto problems = model_->problems(); !problems.empty()) {
    showProblems();
    emit message(tr("The rollout does not run: %1").arg(problems.front().text));
    return std::nullopt;
  }
  RolloutConfig c;
  c.plan = model_->plan();
  c.plan_origin = plans_[static_cast<std::size_t>(shown_plan_)].origin.toStdString();
  c.baseline = baseline_->currentText().trimmed().toStdString();
  c.candidate = candidate_->currentText().trimmed().toStdString();
  for (const auto& [name, url] : {std::pair{tr("Baseline"), c.baseline}, {tr("Candidate"), c.candidate}})
    if (auto target = parse_target(url); !target) {
      emit message(tr("%1: %2").arg(name, QString::fromStdString(target.error().detail)));
      return std::nullopt;
    }
  if (requests_->value() > 0) c.requests_per_stage = static_cast<std::uint64_t>(requests_->value());
  // A result saved from here and resumed by the CLI then gets an endpoint of its own.
  c.embedded_endpoint = embedded_targets_.contains(QString::fromStdString(c.baseline)) &&
                        embedded_targets_.contains(QString::fromStdString(c.candidate));
  if (embedded_targets_.contains(QString::fromStdString(c.candidate))) c.candidate_metrics = embedded_metrics_;
  return c;
}

bool RolloutPage::run() {
  if (controller_->busy()) {
    emit message(tr("A rollout is running: pause or roll it back first."));
    return false;
  }
  auto config = configFromInputs();
  if (!config) return false;
  dropResult();
  charts_->clear();
  if (!controller_->run(std::move(*config))) return false;
  status_->setText(tr("Running…"));
  return true;
}

bool RolloutPage::pause() {
  if (!controller_->pause()) return false;
  status_->setText(tr("Pausing: the requests in flight finish, then the stage is judged…"));
  return true;
}

bool RolloutPage::continueRollout() {
  if (!controller_->continueRollout()) return false;
  status_->setText(tr("Continuing…"));
  return true;
}

bool RolloutPage::runMore() {
  const std::size_t stage = result() ? result()->stopped_at.value_or(0) + 1 : 0;
  const auto more = controller_->moreRequests();
  if (!controller_->runMore()) return false;
  status_->setText(more ? tr("Running %L1 more requests in stage %2…").arg(*more).arg(stage)
                        : tr("Running more requests in stage %1…").arg(stage));
  return true;
}

bool RolloutPage::rollBack() {
  if (!controller_->rollBack()) return false;
  status_->setText(tr("Rolling back…"));
  return true;
}

bool RolloutPage::busy() const { return jobs_->busy(); }
bool RolloutPage::waitForJobs(int timeout_ms) { return jobs_->waitAll(timeout_ms); }

// A running rollout pauses (its stage is judged on what it measured, and can be resumed).
void RolloutPage::cancelAll() {
  if (state() == State::Running) pause();
}

void RolloutPage::bindController() {
  connect(controller_, &RolloutController::stateChanged, this, &RolloutPage::onStateChanged);
  connect(controller_, &RolloutController::stage, this, [this](const QString& line) { status_->setText(line); });
  connect(controller_, &RolloutController::started, this, [this] {
    summary_->clear();
    progress_->setRange(0, 0);
  });
  connect(controller_, &RolloutController::progress, this, [this](quint64 done, quint64 total) {
    if (total == 0) return;  // a stage measured again (Argo's loop) may pass its batch
    progress_->setRange(0, static_cast<int>(std::min<quint64>(total, INT_MAX)));
    progress_->setValue(static_cast<int>(std::min(done, total)));
  });
  connect(controller_, &RolloutController::measured, this, [this](bool candidate, double sent_s, double ttft_ms) {
    RequestPoint point;
    point.t_s = sent_s;  // when it was sent, as the axis says
    point.ttft_ms = ttft_ms;
    charts_->addPoints(candidate ? 1 : 0, {point});
  });
  connect(controller_, &RolloutController::stageStarted, this,
          [this](int, const QString& name, double t_s) { charts_->addStage(name, t_s); });
  connect(controller_, &RolloutController::finished, this, &RolloutPage::onFinished);
  connect(controller_, &RolloutController::failed, this, [this](const QString& why) {
    if (!controller_->busy() && !controller_->error().isEmpty() && why == controller_->error()) {
      status_->setText(why);
      emit message(why);
      emit finished();
      return;
    }
    emit message(why);
  });
  connect(controller_, &RolloutController::message, this, &RolloutPage::message);
}

// The outcome line in the page's language, made again when the language changes.
void RolloutPage::showSummary() {
  const std::optional<RolloutResult>& result = this->result();
  if (!result) return;
  QString summary = model_->rendered(result->message, result->message_text);
  if (const auto& r = result->rollback)
    summary += '\n' + tr("Rollback: %1 candidate sessions switched back in %2 s, %3 candidate sockets left, open descriptors %4 → %5")
                           .arg(r->sessions)
                           .arg(r->seconds, 0, 'f', 2)
                           .arg(r->candidate_sockets_after)
                           .arg(r->fds_before)
                           .arg(r->fds_after);
  summary_->setText(summary);
}

void RolloutPage::onFinished(const RolloutResult&) {
  showSummary();
  status_->setText(restingText());
  onStateChanged();
  emit finished();
}

// What the status line says when nothing runs.
QString RolloutPage::restingText() const {
  if (state() == State::Paused) return tr("Waiting for a person: Continue, Run more or Roll back");
  return result() ? tr("Done") : QString();
}

// Rolling back ends the rollout for every candidate session: a click alone must not do it.
void RolloutPage::askToRollBack() {
  QMessageBox box(QMessageBox::Warning, tr("Roll back"), tr("Roll back the rollout now?"), QMessageBox::Cancel, this);
  box.setObjectName("confirmRollBack");
  box.setInformativeText(tr("Every candidate session moves back to the baseline, and the rollout ends rolled back."));
  QPushButton* yes = box.addButton(tr("Roll back"), QMessageBox::DestructiveRole);
  box.setDefaultButton(QMessageBox::Cancel);
  box.button(QMessageBox::Cancel)->setText(tr("Cancel"));  // Qt's own word is English without its translations
  box.exec();
  if (box.clickedButton() == yes) rollBack();
}

void RolloutPage::askToSave() {
  const QString path = save_file_name(this, tr("Save rollout result"), QStringLiteral("rollout-result.json"),
                                                    tr("JSON (*.json);;All files (*)"));
  if (!path.isEmpty()) saveResult(path);
}

bool RolloutPage::saveResult(const QString& path) {
  if (!result()) {
    emit message(tr("No rollout result to save yet."));
    return false;
  }
  auto written = write_file_atomic(path.toStdString(), rollout_json(*result(), language_.toStdString()));
  if (!written) {
    emit message(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(written.error().detail)));
    return false;
  }
  emit message(tr("Rollout result written to %1").arg(QDir::toNativeSeparators(path)));
  controller_->markSaved();
  return true;
}

void RolloutPage::dropResult() {
  controller_->dropResult();
  summary_->clear();
  save_button_->setEnabled(false);
  export_button_->setEnabled(false);
}

void RolloutPage::onStateChanged() {
  const State s = state();
  const bool busy = s == State::Running || s == State::Pausing || s == State::RollingBack;
  const bool idle = s == State::Idle;
  run_button_->setEnabled(!busy);
  pause_button_->setEnabled(s == State::Running);
  continue_button_->setEnabled(s == State::Paused);
  more_button_->setEnabled(s == State::Paused);
  rollback_button_->setEnabled(s == State::Running || s == State::Pausing || s == State::Paused);
  save_button_->setEnabled(!busy && result().has_value());
  export_button_->setEnabled(!busy && result().has_value());
  // A waiting rollout resumes with the inputs it started with.
  for (QWidget* w : std::initializer_list<QWidget*>{plan_, open_plan_, baseline_, candidate_, requests_}) w->setEnabled(idle);
  model_->setEditable(idle);
  progress_->setVisible(busy);
  emit stateChanged();
}

}  // namespace anthro::widgets
