// The Rollout page's stage timeline as a tree: one row per stage of the plan, its gates as
// child rows. Before a run a person edits the plan here (a stage's split and requests, a gate's
// threshold or margin), checked as the plan schema and the gate's kind allow; as run_rollout
// judges each stage its row fills: a verdict chip, the statistic, the interval drawn against
// the threshold (IntervalBarDelegate), n, and what an inconclusive gate still needs.
#pragma once

#include <QAbstractItemModel>
#include <QStyledItemDelegate>
#include <map>
#include <tuple>
#include <optional>
#include <vector>

#include "rollout/rollout.h"

namespace anthro::widgets {

// Where a stage stands. Waiting: inconclusive and paused, for a person to continue, pool more
// samples or roll back.
enum class StageState { Pending, Running, Passed, Failed, Waiting, Promoted, Inconclusive, RolledBack };

// A plan value that may not be run, and where it is.
struct PlanProblem {
  std::size_t stage = 0;
  std::optional<std::size_t> gate;
  int column = 0;
  QString text;  // translated, names the stage (and gate)
};

// What an interval bar draws: the interval and the statistic (NaN: none) on a scale that also
// holds the threshold, with the side of the threshold that passes.
struct IntervalBar {
  double low = 0, high = 0, statistic = 0;
  std::optional<double> threshold;  // finite
  bool higher_passes = true;
  QColor colour;
};

class RolloutModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column {
    NameColumn, VerdictColumn, SplitColumn, ModeColumn, RequestsColumn, StatisticColumn, IntervalColumn,
    ThresholdColumn, NColumn, NoteColumn, ColumnCount
  };
  static constexpr int StageStateRole = Qt::UserRole + 1;  // stage rows: int(StageState)
  static constexpr int VerdictRole = Qt::UserRole + 2;     // int(Verdict), or -1 before it is judged
  static constexpr int IntervalRole = Qt::UserRole + 3;    // gate rows: an IntervalBar, when judged

  explicit RolloutModel(QObject* parent = nullptr);

  void setPlan(const RolloutPlan& plan);  // every result cleared
  const RolloutPlan& plan() const { return plan_; }
  void setLanguage(const QString& code);  // "en" or "zh_CN": stage titles
  // A text the rollout keeps in English and as messages (reasons, needs, its message), in the
  // model's language.
  QString rendered(const std::string& english, const MessageText& text) const;
  void setEditable(bool on);              // plan values edit only while nothing runs
  // The run's own count for every stage (the page's "requests per stage"), shown instead of
  // the plan's; nullopt: each stage's own.
  void setRequestsPerStage(std::optional<std::uint64_t> requests);

  // Every value of the plan that may not be run; empty when it may.
  std::vector<PlanProblem> problems() const;

  void clearResults();
  void setRunning(std::size_t stage);
  void setStageResult(const StageResult& stage);
  // A person let the waiting stage through (the rollout resumes with `promote`).
  void setPromoted(std::size_t stage);
  // The rollout's end (or pause): every stage it ran, and the state it stopped in.
  void setResult(const RolloutResult& result);

  StageState stageState(std::size_t stage) const;
  const std::optional<StageResult>& stageResult(std::size_t stage) const { return results_.at(stage); }
  QModelIndex stageIndex(std::size_t stage, int column = 0) const;
  QModelIndex gateIndex(std::size_t stage, std::size_t gate, int column = 0) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 signals:
  // A value typed into the plan that is no number; the cell keeps its value.
  void rejected(const QString& text);
  // A plan value changed: results of the old values no longer apply.
  void planEdited();

 private:
  QVariant stageData(std::size_t s, int column, int role) const;
  QVariant gateData(std::size_t s, std::size_t g, int column, int role) const;
  const GateOutcome* outcome(std::size_t s, std::size_t g) const;
  QString problemAt(std::size_t s, std::optional<std::size_t> g, int column) const;
  void changedStage(std::size_t s);

  RolloutPlan plan_;
  std::vector<std::optional<StageResult>> results_;  // by plan stage
  std::optional<std::size_t> running_;
  std::optional<RolloutState> state_;
  std::optional<std::size_t> stopped_at_;
  std::optional<std::uint64_t> requests_per_stage_;
  bool editable_ = true;
  QString language_ = QStringLiteral("en");
  // What a person typed that is no value (stage, gate or none, column): shown as typed, marked,
  // and the run refused until it is fixed, never silently put back to the old value.
  std::map<std::tuple<std::size_t, std::optional<std::size_t>, int>, QString> typed_;
  const QString* typedAt(std::size_t s, std::optional<std::size_t> g, int column) const;
};

// Paints a gate's interval as a bar against its threshold (a line), the passing side shaded.
class IntervalBarDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace anthro::widgets

Q_DECLARE_METATYPE(anthro::widgets::IntervalBar)
