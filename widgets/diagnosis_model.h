// The checklist as rows for the Diagnosis page: each item's verdict (a coloured chip, verdict_chip.h),
// its title and a one-line reason. Each row keeps the run that measured it, so the evidence of
// an item re-run on its own comes from that re-run.
#pragma once

#include <QAbstractTableModel>
#include <map>
#include <memory>
#include <optional>

#include "capture/analysis.h"
#include "diagnosis/diagnosis.h"
#include "verdict_chip.h"

namespace anthro::widgets {

// One run of the diagnosis: what it observed and where its traffic was captured.
struct DiagnosisRun {
  Observations observations;
  QString capture;  // a capture file holding the run's frames, or empty
  bool capture_asked = false;  // the run was to capture its traffic (the capture may have failed)
  CaptureKeySources keys;
  std::map<std::string, std::string> conn_names;  // live connection -> capture connection
};

struct DiagnosisRow {
  ChecklistItem item;
  std::optional<ItemResult> result;  // none before the item has run
  std::shared_ptr<const DiagnosisRun> run;
  bool ticked = false;  // manual items: a person checked it
  QString note;
};

class DiagnosisModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { VerdictColumn, ItemColumn, ReasonColumn, ColumnCount };
  static constexpr int VerdictRole = Qt::UserRole + 1;  // int(Verdict), or -1 before the item ran

  explicit DiagnosisModel(QObject* parent = nullptr);

  void setChecklist(const Checklist& checklist);  // every row pending
  void setLanguage(const QString& code);           // "en" or "zh_CN": titles and remedies
  QString language() const { return language_; }
  void clearResults();
  void setDiagnosis(const Diagnosis& d, std::shared_ptr<const DiagnosisRun> run);
  void setItemResult(const ItemResult& r, std::shared_ptr<const DiagnosisRun> run);
  // A run's capture matched later (its file is written after the verdicts).
  void setRun(std::shared_ptr<const DiagnosisRun> from, std::shared_ptr<const DiagnosisRun> to);
  void setTicked(int row, bool ticked, const QString& note);

  const DiagnosisRow& row(int r) const { return rows_.at(static_cast<std::size_t>(r)); }
  int rowOf(const QString& id) const;
  QString title(int r) const;
  QString remedy(int r) const;
  // The row's reason and its cause's why in the model's language (core's messages rendered).
  QString reason(int r) const;
  QString causeWhy(int r) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  void changed(int row);

  std::vector<DiagnosisRow> rows_;
  QString language_ = QStringLiteral("en");
};

}  // namespace anthro::widgets
