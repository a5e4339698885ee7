// The Rollout page (issue 11): a grayscale-rollout rehearsal from a plan — a built-in one or a
// file — whose splits, request counts and gate thresholds a person may edit, between a baseline
// and a candidate target. The stage timeline (RolloutModel) fills as run_rollout judges each
// stage, beside live TTFT charts of both arms. Run, Pause, Continue (a person lets the waiting
// stage through), Run more (pools more samples into it) and Roll back drive RolloutControl and
// run_rollout's resume; the result saves as JSON. The run is the RolloutController's
// (rollout_controller.h): this page lays out and binds.
#pragma once

#include <QWidget>
#include <chrono>
#include <memory>
#include <functional>
#include <map>
#include <optional>

#include "rollout/rollout.h"
#include "rollout_controller.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeView;

namespace anthro::widgets {

class JobService;
class LatencyCharts;
class RolloutModel;

class RolloutPage : public QWidget {
  Q_OBJECT
 public:
  // Pausing and RollingBack: asked of the running rollout, which has not stopped yet.
  using State = RolloutController::State;

  explicit RolloutPage(QWidget* parent = nullptr);
  ~RolloutPage() override;

  // Offered in both target lists.
  void setTargets(const QStringList& urls);
  // The workbench's own endpoint, offered in both lists and marked so in the result.
  void setEmbeddedTargets(const QStringList& urls);
  void setBaseline(const QString& url);
  void setCandidate(const QString& url);
  // The targets a plan of `profile` (its "profile" field; "" for the others) starts with: picking
  // such a plan moves the targets there while they are still embedded ones.
  void setProfileTargets(const QString& profile, const QString& baseline, const QString& candidate);
  // The embedded endpoint's Prometheus text, read by slot-utilisation gates when the candidate
  // is embedded.
  void setEmbeddedMetrics(std::function<std::string()> metrics);
  void setRequestsPerStage(int requests);  // 0: each stage's own count
  void setLanguage(const QString& code);   // plan and stage titles: "en" or "zh_CN"

  // The plans built in (builtin_rollout_plans()), by id.
  QStringList builtinPlans() const;
  bool selectPlan(const QString& id);  // an old id (current_plan_id) selects its renamed plan
  // A plan file; when it does not load, the page says why and keeps the plan it had.
  bool openPlan(const QString& path);
  QString planError() const;

  // Each false (and a message) when the page's state does not allow it.
  bool run();              // from the first stage
  bool pause();            // the running stage is judged, then the rollout waits
  bool continueRollout();  // a person lets the waiting stage through; the next stages run
  bool runMore();          // more samples pooled into the waiting stage, judged again
  bool rollBack();         // now, while running or waiting (the button asks first)
  bool saveResult(const QString& path);

  State state() const { return controller_->state(); }
  const std::optional<RolloutResult>& result() const { return controller_->result(); }
  RolloutModel* model() const { return model_; }
  RolloutController* controller() const { return controller_; }
  QProgressBar* progressBar() const { return progress_; }

  // For "never lose work": a rollout under way; files none (a rollout captures nothing); a
  // result not yet saved; cancel (a running rollout pauses: its stage is judged) and wait.
  bool busy() const;
  QStringList unsavedFiles() const { return {}; }
  bool hasUnsavedResult() const { return controller_->hasUnsavedResult(); }
  void cancelAll();
  bool waitForJobs(int timeout_ms);
  void markResultSaved() { controller_->markSaved(); }
  QTreeView* timeline() const { return timeline_; }
  LatencyCharts* charts() const { return charts_; }
  QString statusText() const;

 signals:
  void message(const QString& text);
  void stateChanged();
  // run_rollout returned: result() holds what it judged (or it failed to start, and
  // result() is empty).
  void finished();
  void exportReportRequested();  // "Export report…" was clicked

 private:
  void makeTimeline();
  QWidget* makeInputs();
  QWidget* makeTargetRow();
  QWidget* makeButtonRow();
  void loadBuiltinPlans();
  void showPlan(int combo_index);
  void setPlan(const RolloutPlan& plan, const QString& origin);
  void retitlePlans();
  void showProblems();
  std::optional<RolloutConfig> configFromInputs();
  // `roll_back`: the rollout is resumed only to roll back at once.
  void bindController();
  void onFinished(const RolloutResult& result);
  void showSummary();
  QString restingText() const;
  void askToSave();
  void askToRollBack();
  void dropResult();
  void onStateChanged();

  QComboBox* plan_;
  QPushButton* open_plan_;
  QLabel* plan_source_;
  QLabel* plan_error_;
  QComboBox* baseline_;
  QComboBox* candidate_;
  QSpinBox* requests_;
  QPushButton* run_button_;
  QPushButton* pause_button_;
  QPushButton* continue_button_;
  QPushButton* more_button_;
  QPushButton* rollback_button_;
  QPushButton* save_button_;
  QPushButton* export_button_;
  QProgressBar* progress_;
  QLabel* status_;
  QLabel* problems_;
  QLabel* summary_;
  RolloutModel* model_;
  QTreeView* timeline_;
  LatencyCharts* charts_;

  struct LoadedPlan {
    RolloutPlan plan;
    QString origin;  // the file, or "built-in ID"
    bool builtin = false;
  };
  std::vector<LoadedPlan> plans_;  // by the plan picker's index
  int shown_plan_ = -1;
  QString plan_error_text_;
  QString language_ = QStringLiteral("en");
  QStringList embedded_targets_;
  std::map<std::string, std::pair<QString, QString>> profile_targets_;  // plan profile → baseline, candidate
  std::function<std::string()> embedded_metrics_;
  JobService* jobs_;
  RolloutController* controller_;
};

}  // namespace anthro::widgets
