#include "rollout_model.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "verdict_chip.h"

namespace anthro::widgets {
namespace {

// Gate rows carry their stage in the index's internal id (stage + 1); stage rows carry 0.
constexpr quintptr kStageRow = 0;

// Fraction: a rate, shown in percent. Relative: a change (1 − P99 ratio), a signed percentage.
enum class ValueKind { Fraction, Relative, Ratio, Milliseconds, Plain };

ValueKind value_kind(GateMetric m) {
  if (is_rate(m)) return ValueKind::Fraction;
  switch (m) {
    case GateMetric::TtftP99Ratio: return ValueKind::Ratio;
    case GateMetric::TtftP99: return ValueKind::Milliseconds;
    case GateMetric::TtftP99Improvement: return ValueKind::Relative;
    default: return ValueKind::Plain;
  }
}

// Thresholds as typed take up to 6 digits (99.995 %); intervals read well with 4.
QString percent(double fraction, int digits = 6) {
  return QString::number(fraction * 100, 'g', digits) + QStringLiteral(" %");
}

QString format_value(double v, ValueKind kind, const std::string& unit, int digits = 6) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  switch (kind) {
    case ValueKind::Fraction: return percent(v, digits);
    case ValueKind::Relative: return (v > 0 ? QStringLiteral("+") : QString()) + percent(v, std::min(digits, 3));
    case ValueKind::Ratio: return QStringLiteral("×") + QString::number(v, 'g', std::min(digits, 4));
    case ValueKind::Milliseconds: return QString::number(v, 'g', std::min(digits, 5)) + QStringLiteral(" ms");
    case ValueKind::Plain: break;
  }
  const QString number = QString::number(v, 'g', std::min(digits, 4));
  return unit.empty() ? number : number + ' ' + QString::fromStdString(unit);
}

// An interval worth drawing: judged on samples, both ends numbers (core gives a gate without
// an interval, a checklist item's, NaN ends).
bool drawable(const GateOutcome* out) {
  return out && out->result.n > 0 && std::isfinite(out->result.interval.low) && std::isfinite(out->result.interval.high);
}

bool has_threshold(const PlanGate& g) {
  return g.comparison == GateCompare::AtLeast || g.comparison == GateCompare::AtMost ||
         g.comparison == GateCompare::Below;
}
bool editable_limit(const PlanGate& g) { return has_threshold(g) || g.comparison == GateCompare::NotWorse; }

// Inconclusive holds a rollout for a person: amber, where a checklist's inconclusive is grey.
QColor gate_colour(Verdict v) { return verdict_colour(v == Verdict::Inconclusive ? Verdict::Warn : v); }

QString mode_text(SplitMode m) {
  switch (m) {
    case SplitMode::Route: return RolloutModel::tr("route");
    case SplitMode::Mirror: return RolloutModel::tr("mirror");
    case SplitMode::Verify: return RolloutModel::tr("verify");
    case SplitMode::Region: return RolloutModel::tr("region");
  }
  return {};
}

QString mode_tip(SplitMode m) {
  switch (m) {
    case SplitMode::Route: return RolloutModel::tr("The split of the requests goes to the candidate");
    case SplitMode::Mirror: return RolloutModel::tr("Every request goes to the baseline; the candidate gets copies whose answers are unused");
    case SplitMode::Verify: return RolloutModel::tr("Every candidate answer is checked again on the baseline");
    case SplitMode::Region: return RolloutModel::tr("A named region's endpoint takes all of its traffic");
  }
  return {};
}

QString state_text(StageState s) {
  switch (s) {
    case StageState::Pending: return QStringLiteral("–");
    case StageState::Running: return RolloutModel::tr("running…");
    case StageState::Passed: return verdict_text(Verdict::Pass);
    case StageState::Failed: return verdict_text(Verdict::Fail);
    case StageState::Waiting: return RolloutModel::tr("waiting for a person");
    case StageState::Promoted: return RolloutModel::tr("let through");
    case StageState::Inconclusive: return verdict_text(Verdict::Inconclusive);
    case StageState::RolledBack: return RolloutModel::tr("rolled back");
  }
  return {};
}

QColor state_colour(StageState s) {
  switch (s) {
    case StageState::Pending: return {};
    case StageState::Running: return verdict_colour(Verdict::Manual);
    case StageState::Passed: return gate_colour(Verdict::Pass);
    case StageState::Failed: return gate_colour(Verdict::Fail);
    case StageState::Waiting:
    case StageState::Inconclusive: return gate_colour(Verdict::Inconclusive);
    case StageState::Promoted: return verdict_colour(Verdict::Manual);  // a person's decision
    case StageState::RolledBack: return verdict_colour(Verdict::Inconclusive);
  }
  return {};
}

// What a person types: "0.05", "5 %" or "5%" (a fraction), in C or their own locale.
std::optional<double> parse_number(QString text) {
  text = text.trimmed();
  double scale = 1;
  if (text.endsWith('%')) {
    text.chop(1);
    text = text.trimmed();
    scale = 0.01;
  }
  bool ok = false;
  double v = QLocale::c().toDouble(text, &ok);
  if (!ok) v = QLocale().toDouble(text, &ok);
  if (!ok || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

QString exact_number(double v) { return QString::number(v, 'g', 10); }

}  // namespace

RolloutModel::RolloutModel(QObject* parent) : QAbstractItemModel(parent) {}

void RolloutModel::setPlan(const RolloutPlan& plan) {
  beginResetModel();
  plan_ = plan;
  typed_.clear();
  results_.assign(plan_.stages.size(), std::nullopt);
  running_.reset();
  state_.reset();
  stopped_at_.reset();
  endResetModel();
}

QString RolloutModel::rendered(const std::string& english, const MessageText& text) const {
  const std::string lang = language_.toStdString();
  return QString::fromStdString(lang == "en" || text.empty() ? english : render(text, lang, english));
}

void RolloutModel::setLanguage(const QString& code) {
  language_ = code;
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) changedStage(s);
  emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void RolloutModel::setEditable(bool on) {
  editable_ = on;
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) changedStage(s);
}

void RolloutModel::setRequestsPerStage(std::optional<std::uint64_t> requests) {
  requests_per_stage_ = requests;
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) changedStage(s);
}

void RolloutModel::clearResults() {
  results_.assign(plan_.stages.size(), std::nullopt);
  running_.reset();
  state_.reset();
  stopped_at_.reset();
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) changedStage(s);
}

void RolloutModel::setRunning(std::size_t stage) {
  std::optional<std::size_t> before = running_ ? running_ : stopped_at_;
  running_ = stage;
  state_.reset();
  stopped_at_.reset();
  if (before && *before < plan_.stages.size()) changedStage(*before);
  if (stage < plan_.stages.size()) changedStage(stage);
}

void RolloutModel::setStageResult(const StageResult& stage) {
  if (stage.index >= results_.size()) return;
  results_[stage.index] = stage;
  if (running_ == stage.index) running_.reset();
  changedStage(stage.index);
}

void RolloutModel::setPromoted(std::size_t stage) {
  if (stage >= results_.size() || !results_[stage]) return;
  results_[stage]->promoted = true;
  changedStage(stage);
}

void RolloutModel::setResult(const RolloutResult& result) {
  for (const StageResult& stage : result.stages)
    if (stage.index < results_.size()) results_[stage.index] = stage;
  running_.reset();
  state_ = result.state;
  stopped_at_ = result.stopped_at;
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) changedStage(s);
}

StageState RolloutModel::stageState(std::size_t s) const {
  if (running_ == s) return StageState::Running;
  if (state_ == RolloutState::RolledBack && stopped_at_ == s) return StageState::RolledBack;
  const auto& r = results_.at(s);
  // Paused on an inconclusive stage, or by a person before a stage that has not run.
  const bool waiting = state_ == RolloutState::Paused && stopped_at_ == s;
  if (!r) return waiting ? StageState::Waiting : StageState::Pending;
  if (r->verdict == Verdict::Pass) return StageState::Passed;
  if (r->verdict == Verdict::Fail) return StageState::Failed;
  if (r->promoted) return StageState::Promoted;
  return waiting ? StageState::Waiting : StageState::Inconclusive;
}

std::vector<PlanProblem> RolloutModel::problems() const {
  std::vector<PlanProblem> out;
  auto check = [&](std::size_t s, std::optional<std::size_t> g, int column) {
    QString text = problemAt(s, g, column);
    if (!text.isEmpty()) out.push_back({s, g, column, text});
  };
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) {
    check(s, std::nullopt, SplitColumn);
    check(s, std::nullopt, RequestsColumn);
    for (std::size_t g = 0; g < plan_.stages[s].gates.size(); ++g) check(s, g, ThresholdColumn);
  }
  return out;
}

// The schema's ranges (split a fraction, requests ≥ 1, margin ≥ 0), and a gate's threshold
// within what its metric can be: a rate from 0 to 1, a latency above 0.
const QString* RolloutModel::typedAt(std::size_t s, std::optional<std::size_t> g, int column) const {
  auto it = typed_.find({s, g, column});
  return it == typed_.end() ? nullptr : &it->second;
}

QString RolloutModel::problemAt(std::size_t s, std::optional<std::size_t> g, int column) const {
  const PlanStage& stage = plan_.stages.at(s);
  const QString where = tr("stage %1 (%2)").arg(s + 1).arg(QString::fromStdString(stage.name));
  if (const QString* typed = typedAt(s, g, column)) {
    const QString at = g ? tr("%1, gate %2").arg(where, QString::fromStdString(stage.gates.at(*g).id)) : where;
    return column == RequestsColumn ? tr("%1: \"%2\" is not a whole number of requests").arg(at, *typed)
                                    : tr("%1: \"%2\" is not a number").arg(at, *typed);
  }
  if (!g) {
    if (column == SplitColumn && !(stage.split >= 0 && stage.split <= 1))
      return tr("%1: split must be a fraction from 0 to 1, not %2").arg(where, exact_number(stage.split));
    if (column == RequestsColumn && stage.requests < 1) return tr("%1: requests must be at least 1").arg(where);
    return {};
  }
  const PlanGate& gate = stage.gates.at(*g);
  if (column != ThresholdColumn) return {};
  const QString at = tr("%1, gate %2").arg(where, QString::fromStdString(gate.id));
  if (gate.comparison == GateCompare::NotWorse && gate.margin && !(*gate.margin >= 0))
    return tr("%1: margin must be 0 or more, not %2").arg(at, exact_number(*gate.margin));
  if (!has_threshold(gate) || !gate.threshold) return {};
  const double t = *gate.threshold;
  if (value_kind(gate.metric) == ValueKind::Fraction && !(t >= 0 && t <= 1))
    return tr("%1: threshold must be a rate from 0 to 1, not %2").arg(at, exact_number(t));
  if (value_kind(gate.metric) != ValueKind::Fraction && !(t > 0))
    return tr("%1: threshold must be above 0, not %2").arg(at, exact_number(t));
  return {};
}

QModelIndex RolloutModel::stageIndex(std::size_t stage, int column) const {
  return stage < plan_.stages.size() ? createIndex(static_cast<int>(stage), column, kStageRow) : QModelIndex();
}

QModelIndex RolloutModel::gateIndex(std::size_t stage, std::size_t gate, int column) const {
  if (stage >= plan_.stages.size() || gate >= plan_.stages[stage].gates.size()) return {};
  return createIndex(static_cast<int>(gate), column, static_cast<quintptr>(stage + 1));
}

QModelIndex RolloutModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (!parent.isValid()) return stageIndex(static_cast<std::size_t>(row), column);
  if (parent.internalId() != kStageRow) return {};
  return gateIndex(static_cast<std::size_t>(parent.row()), static_cast<std::size_t>(row), column);
}

QModelIndex RolloutModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kStageRow) return {};
  return stageIndex(child.internalId() - 1);
}

int RolloutModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(plan_.stages.size());
  if (parent.internalId() != kStageRow || parent.column() != 0) return 0;
  return static_cast<int>(plan_.stages.at(static_cast<std::size_t>(parent.row())).gates.size());
}

int RolloutModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant RolloutModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kStageRow) return stageData(static_cast<std::size_t>(index.row()), index.column(), role);
  return gateData(index.internalId() - 1, static_cast<std::size_t>(index.row()), index.column(), role);
}

QVariant RolloutModel::stageData(std::size_t s, int column, int role) const {
  const PlanStage& stage = plan_.stages.at(s);
  const auto& result = results_.at(s);
  const StageState state = stageState(s);
  if (role == StageStateRole) return static_cast<int>(state);
  if (role == VerdictRole) return result ? static_cast<int>(result->verdict) : -1;
  if (role == kChipColourRole && column == VerdictColumn) {
    const QColor c = state_colour(state);
    return c.isValid() ? QVariant(c) : QVariant();
  }
  const QString problem = problemAt(s, std::nullopt, column);
  if (role == Qt::BackgroundRole && !problem.isEmpty()) return QColor(0xd0, 0x3a, 0x3a, 70);
  if (const QString* typed = typedAt(s, std::nullopt, column); typed && (role == Qt::EditRole || role == Qt::DisplayRole))
    return *typed;
  if (role == Qt::EditRole && column == SplitColumn) return exact_number(stage.split);
  if (role == Qt::EditRole && column == RequestsColumn) return QString::number(stage.requests);
  if (role == Qt::ToolTipRole) {
    if (!problem.isEmpty()) return problem;
    if (column == SplitColumn) return tr("The fraction of requests the candidate gets: type 0.05 or 5 %");
    if (column == ModeColumn) return mode_tip(stage.mode);
    if (column == RequestsColumn && requests_per_stage_)
      return tr("The page's requests per stage; the plan says %1").arg(stage.requests);
    if (column == NoteColumn && result && result->rollback)
      return tr("Rolled back in %1 s; %2 candidate sockets left").arg(result->rollback->seconds, 0, 'f', 2)
          .arg(result->rollback->candidate_sockets_after);
    return QString::fromStdString(stage.title.in(language_.toStdString()));
  }
  if (role == Qt::FontRole && column == NameColumn) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case NameColumn: return QStringLiteral("%1 · %2").arg(s + 1).arg(QString::fromStdString(stage.name));
    case VerdictColumn: return state_text(state);
    case SplitColumn: return percent(stage.split);
    case ModeColumn:
      return stage.mode == SplitMode::Region && !stage.region.empty()
                 ? QStringLiteral("%1 (%2)").arg(mode_text(stage.mode), QString::fromStdString(stage.region))
                 : mode_text(stage.mode);
    case RequestsColumn: return QString::number(requests_per_stage_.value_or(stage.requests));
    case NColumn: return result ? QVariant(QString::number(result->samples.requests)) : QVariant();
    case NoteColumn:
      if (result && !result->need.empty()) return rendered(result->need, result->need_text);
      if (result && !result->warnings.empty()) return QString::fromStdString(result->warnings.front());
      return QString::fromStdString(stage.title.in(language_.toStdString()));
    default: return {};
  }
}

const GateOutcome* RolloutModel::outcome(std::size_t s, std::size_t g) const {
  const auto& result = results_.at(s);
  if (!result) return nullptr;
  const std::string& id = plan_.stages.at(s).gates.at(g).id;
  for (const GateOutcome& o : result->gates)
    if (o.id == id) return &o;
  return nullptr;
}

QVariant RolloutModel::gateData(std::size_t s, std::size_t g, int column, int role) const {
  const PlanGate& gate = plan_.stages.at(s).gates.at(g);
  const GateOutcome* out = outcome(s, g);
  const ValueKind kind = value_kind(gate.metric);
  if (role == VerdictRole) return out ? static_cast<int>(out->result.verdict) : -1;
  if (role == kChipColourRole && column == VerdictColumn) return out ? QVariant(gate_colour(out->result.verdict)) : QVariant();
  if (role == IntervalRole && column == IntervalColumn && drawable(out)) {
    const bool line = out->threshold && std::isfinite(*out->threshold);
    IntervalBar bar{out->result.interval.low, out->result.interval.high, out->result.statistic,
                    line ? out->threshold : std::nullopt, gate.comparison == GateCompare::AtLeast,
                    gate_colour(out->result.verdict)};
    return QVariant::fromValue(bar);
  }
  const QString problem = problemAt(s, g, column);
  if (role == Qt::BackgroundRole && !problem.isEmpty()) return QColor(0xd0, 0x3a, 0x3a, 70);
  if (const QString* typed = typedAt(s, g, column); typed && (role == Qt::EditRole || role == Qt::DisplayRole)) return *typed;
  if (role == Qt::EditRole && column == ThresholdColumn) {
    if (gate.comparison == GateCompare::NotWorse && gate.margin) return exact_number(*gate.margin);
    if (gate.threshold) return exact_number(*gate.threshold);
    return {};
  }
  if (role == Qt::ToolTipRole) {
    if (!problem.isEmpty()) return problem;
    if (column == ThresholdColumn && editable_limit(gate))
      return gate.comparison == GateCompare::NotWorse ? tr("The candidate may be this much slower: type 0.05 or 5 %")
             : kind == ValueKind::Fraction            ? tr("A rate: type 0.9999 or 99.99 %")
                                                      : tr("An absolute bound, above 0");
    if (column == StatisticColumn && out && out->result.p_value)
      return tr("one-sided Mann-Whitney p = %1").arg(*out->result.p_value, 0, 'g', 3);
    if (out && !out->result.reason.empty()) return rendered(out->result.reason, out->result.reason_text);
    return QStringLiteral("%1 %2").arg(QString::fromLatin1(to_string(gate.metric)), QString::fromLatin1(to_string(gate.comparison)));
  }
  if (role != Qt::DisplayRole) return {};
  // Unit words ("pairs") in the model's language.
  const std::string lang = language_.toStdString();
  const std::string unit = out ? name_in("unit.", out->unit, lang) : std::string();
  const std::string gate_unit = name_in("unit.", gate.unit, lang);
  switch (column) {
    case NameColumn: return QString::fromStdString(gate.id);
    case VerdictColumn: return out ? verdict_text(out->result.verdict) : QStringLiteral("–");
    case StatisticColumn:
      return out && out->result.n > 0 ? QVariant(format_value(out->result.statistic, kind, unit)) : QVariant();
    case IntervalColumn:
      if (!drawable(out)) return {};
      return QStringLiteral("[%1, %2]").arg(format_value(out->result.interval.low, kind, unit, 4),
                                            format_value(out->result.interval.high, kind, unit, 4));
    case ThresholdColumn:
      switch (gate.comparison) {
        case GateCompare::AtLeast: return QStringLiteral("≥ ") + format_value(gate.threshold.value_or(0), kind, gate_unit);
        case GateCompare::AtMost: return QStringLiteral("≤ ") + format_value(gate.threshold.value_or(0), kind, gate_unit);
        case GateCompare::Below: return QStringLiteral("< ") + format_value(gate.threshold.value_or(0), kind, gate_unit);
        case GateCompare::NotWorse: return tr("not worse, +%1").arg(percent(gate.margin.value_or(0)));
        case GateCompare::Passes: return tr("passes");
        case GateCompare::Recorded: return tr("recorded");
      }
      return {};
    case NColumn: return out ? QVariant(QString::number(out->result.n)) : QVariant();
    case NoteColumn:
      if (!out) return {};
      if (out->result.need_more) return tr("need %1 more").arg(*out->result.need_more);
      return rendered(out->result.reason, out->result.reason_text);
    default: return {};
  }
}

bool RolloutModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
  const bool stage_row = index.internalId() == kStageRow;
  const std::size_t s = stage_row ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
  const std::optional<std::size_t> g = stage_row ? std::nullopt : std::optional<std::size_t>(index.row());
  const auto v = parse_number(value.toString());
  const bool whole = v && *v >= 0 && *v == std::floor(*v) && *v <= 1e12;
  auto changed = [&] {
    emit dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
    emit planEdited();
  };
  if (!v || (stage_row && index.column() == RequestsColumn && !whole)) {
    typed_[{s, g, index.column()}] = value.toString();  // kept and marked: the run is refused until fixed
    emit rejected(problemAt(s, g, index.column()));
    changed();
    return true;
  }
  typed_.erase({s, g, index.column()});
  if (stage_row) {
    PlanStage& stage = plan_.stages.at(s);
    if (index.column() == SplitColumn) stage.split = *v;
    else stage.requests = static_cast<std::uint64_t>(*v);
  } else {
    PlanGate& gate = plan_.stages.at(index.internalId() - 1).gates.at(static_cast<std::size_t>(index.row()));
    if (gate.comparison == GateCompare::NotWorse) gate.margin = *v;
    else gate.threshold = *v;
  }
  changed();
  return true;
}

Qt::ItemFlags RolloutModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (!editable_) return f;
  if (index.internalId() == kStageRow) {
    if (index.column() == SplitColumn || index.column() == RequestsColumn) f |= Qt::ItemIsEditable;
    return f;
  }
  const PlanGate& gate = plan_.stages.at(index.internalId() - 1).gates.at(static_cast<std::size_t>(index.row()));
  if (index.column() == ThresholdColumn && editable_limit(gate)) f |= Qt::ItemIsEditable;
  return f;
}

QVariant RolloutModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == IntervalColumn)
    return tr("Each end a one-sided 95 % bound: Wilson for a rate, the bootstrap interval for a P99 ratio. "
              "The line is the threshold; the shaded side passes.");
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn: return tr("Stage / gate");
    case VerdictColumn: return tr("Verdict");
    case SplitColumn: return tr("Split");
    case ModeColumn: return tr("Mode");
    case RequestsColumn: return tr("Requests");
    case StatisticColumn: return tr("Statistic");
    case IntervalColumn: return tr("Interval against the threshold");
    case ThresholdColumn: return tr("Threshold");
    case NColumn: return tr("n");
    case NoteColumn: return tr("Note");
    default: return {};
  }
}

void RolloutModel::changedStage(std::size_t s) {
  emit dataChanged(stageIndex(s, 0), stageIndex(s, ColumnCount - 1));
  const std::size_t gates = plan_.stages.at(s).gates.size();
  if (gates > 0) emit dataChanged(gateIndex(s, 0, 0), gateIndex(s, gates - 1, ColumnCount - 1));
}

namespace {

// Where a value of an interval bar falls in `area`: the bar's values and its threshold on one
// linear scale, with a margin so neither end touches the cell's edge.
class BarScale {
 public:
  BarScale(const IntervalBar& bar, const QRect& area) : left_(area.left()), width_(area.width()) {
    double lo = std::min(bar.low, bar.high), hi = std::max(bar.low, bar.high);
    for (std::optional<double> v : {std::isfinite(bar.statistic) ? std::optional(bar.statistic) : std::nullopt, bar.threshold}) {
      if (!v) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
    span_ = hi - lo > 0 ? hi - lo : std::max(std::fabs(hi), 1.0) * 0.1;
    lo_ = lo - span_ * 0.1;
    span_ *= 1.2;
  }
  double x(double value) const { return left_ + (value - lo_) / span_ * width_; }

 private:
  double left_, width_, lo_ = 0, span_ = 1;
};

// The passing side of the threshold shaded, the interval as a bar in the verdict's colour, the
// statistic as a dot on it and the threshold as a line across.
void draw_bar(QPainter* painter, const IntervalBar& bar, const QRect& area, const QColor& line_colour) {
  const BarScale scale(bar, area);
  const double mid = area.center().y() + 0.5;
  if (bar.threshold) {
    const double t = scale.x(*bar.threshold);
    painter->fillRect(bar.higher_passes ? QRectF(QPointF(t, area.top()), QPointF(area.right(), area.bottom()))
                                        : QRectF(QPointF(area.left(), area.top()), QPointF(t, area.bottom())),
                      QColor(0x2e, 0x9d, 0x57, 40));
  }
  painter->setPen(QPen(QColor(0x86, 0x8c, 0x96), 1));
  painter->drawLine(QPointF(area.left(), mid), QPointF(area.right(), mid));
  QRectF interval(QPointF(scale.x(bar.low), mid - 4), QPointF(scale.x(bar.high), mid + 4));
  if (interval.width() < 3) interval.adjust(-1.5, 0, 1.5, 0);  // a point interval stays visible
  QPainterPath path;
  path.addRoundedRect(interval, 3, 3);
  painter->fillPath(path, bar.colour);
  if (std::isfinite(bar.statistic)) {
    painter->setPen(QPen(Qt::white, 1.5));
    painter->setBrush(bar.colour.darker(140));
    painter->drawEllipse(QPointF(scale.x(bar.statistic), mid), 4, 4);
  }
  if (bar.threshold) {
    painter->setPen(QPen(line_colour, 2));
    const double t = scale.x(*bar.threshold);
    painter->drawLine(QPointF(t, area.top()), QPointF(t, area.bottom()));
  }
}

}  // namespace

void IntervalBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  const QVariant v = index.data(RolloutModel::IntervalRole);
  if (!v.canConvert<IntervalBar>()) return QStyledItemDelegate::paint(painter, option, index);
  QStyleOptionViewItem plain = option;
  initStyleOption(&plain, index);
  const QString text = plain.text;
  plain.text.clear();
  option.widget->style()->drawControl(QStyle::CE_ItemViewItem, &plain, painter, option.widget);  // selection background

  // The bar on the left, the interval's numbers on the right.
  const QRect cell = option.rect.adjusted(6, 3, -6, -3);
  const QRect area(cell.left(), cell.top(), cell.width() * 11 / 20, cell.height());
  const QRect label(area.right() + 8, cell.top(), cell.right() - area.right() - 8, cell.height());
  const QColor text_colour = option.palette.color(QPalette::Text);
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  draw_bar(painter, v.value<IntervalBar>(), area, text_colour);
  painter->setPen(text_colour);
  painter->drawText(label, Qt::AlignVCenter | Qt::AlignLeft, option.fontMetrics.elidedText(text, Qt::ElideRight, label.width()));
  painter->restore();
}

}  // namespace anthro::widgets
