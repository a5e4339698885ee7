#include "diagnosis_model.h"

namespace anthro::widgets {

DiagnosisModel::DiagnosisModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosisModel::setChecklist(const Checklist& checklist) {
  beginResetModel();
  rows_.clear();
  for (const auto& item : checklist.items) rows_.push_back({item, std::nullopt, nullptr, false, {}});
  endResetModel();
}

void DiagnosisModel::setLanguage(const QString& code) {
  language_ = code;
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void DiagnosisModel::clearResults() {
  for (auto& r : rows_) {
    r.result.reset();
    r.run.reset();
  }
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void DiagnosisModel::setDiagnosis(const Diagnosis& d, std::shared_ptr<const DiagnosisRun> run) {
  for (const auto& r : d.items) setItemResult(r, run);
}

void DiagnosisModel::setItemResult(const ItemResult& r, std::shared_ptr<const DiagnosisRun> run) {
  int at = rowOf(QString::fromStdString(r.id));
  if (at < 0) return;
  auto& row = rows_[static_cast<std::size_t>(at)];
  row.result = r;
  row.run = std::move(run);
  changed(at);
}

void DiagnosisModel::setRun(std::shared_ptr<const DiagnosisRun> from, std::shared_ptr<const DiagnosisRun> to) {
  for (auto& row : rows_)
    if (row.run == from) row.run = to;
}

void DiagnosisModel::setTicked(int r, bool ticked, const QString& note) {
  auto& row = rows_.at(static_cast<std::size_t>(r));
  row.ticked = ticked;
  row.note = note;
  if (row.result) row.result->note = note.toStdString();
  changed(r);
}

int DiagnosisModel::rowOf(const QString& id) const {
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].item.id == id.toStdString()) return static_cast<int>(i);
  return -1;
}

QString DiagnosisModel::title(int r) const {
  return QString::fromStdString(row(r).item.title.in(language_.toStdString()));
}

QString DiagnosisModel::reason(int r) const {
  const auto& result = row(r).result;
  return result ? QString::fromStdString(item_reason(*result, language_.toStdString())) : QString();
}

QString DiagnosisModel::causeWhy(int r) const {
  const auto& result = row(r).result;
  return result && result->caused_by ? QString::fromStdString(cause_why(*result->caused_by, language_.toStdString())) : QString();
}

QString DiagnosisModel::remedy(int r) const {
  return QString::fromStdString(row(r).item.remedy.in(language_.toStdString()));
}

int DiagnosisModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int DiagnosisModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosisModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const DiagnosisRow& r = row(index.row());
  if (role == VerdictRole) return r.result ? static_cast<int>(r.result->verdict) : -1;
  if (role == kChipColourRole && index.column() == VerdictColumn && r.result) return verdict_colour(r.result->verdict);
  if (role == Qt::ToolTipRole) return QString::fromStdString(r.item.id);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case VerdictColumn:
      if (!r.result) return QStringLiteral("–");
      return verdict_text(r.result->verdict) + (r.ticked ? QStringLiteral(" ✓") : QString());
    case ItemColumn: return title(index.row());
    case ReasonColumn:
      if (!r.result) return tr("not run");
      if (r.ticked) return tr("checked: %1").arg(r.note);
      return reason(index.row());
    default: return {};
  }
}

QVariant DiagnosisModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case VerdictColumn: return tr("Verdict");
    case ItemColumn: return tr("Item");
    case ReasonColumn: return tr("Reason");
    default: return {};
  }
}

void DiagnosisModel::changed(int r) { emit dataChanged(index(r, 0), index(r, ColumnCount - 1)); }

}  // namespace anthro::widgets
