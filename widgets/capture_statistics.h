// A capture's Statistics: one table a connection (transport, decryption, frames, streams,
// TTFT P50/P99, TCP health), one a stream (end, tokens, TTFT, E2E, ITL, rate, packets) and
// the TTFT distribution a connection and overall. Every table sorts by any column and exports
// as CSV in the order shown (temporary file, then renamed).
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "capture/analysis.h"

class QPushButton;
class QStandardItemModel;
class QTabWidget;
class QTableView;

namespace anthro::widgets {

class CaptureStatistics : public QWidget {
  Q_OBJECT
 public:
  enum Table { Connections, Streams, Ttft, TableCount };

  explicit CaptureStatistics(QWidget* parent = nullptr);

  // Connections numbered from 1 in the analysis's order, as the frame list numbers them; null clears.
  void setAnalysis(std::shared_ptr<const CaptureAnalysis> analysis);
  QTableView* view(Table table) const { return views_[table]; }
  QTabWidget* tables() const { return tabs_; }
  // The table as CSV (RFC 4180), header first, rows in the order shown.
  QString csv(Table table) const;
  Result<bool> exportCsv(Table table, const QString& path) const;

 signals:
  void streamActivated(std::uint32_t connection, std::uint32_t stream);  // a stream row double-clicked
  void message(const QString& text);

 private:
  void fill();
  void setHeaders();
  void exportCurrent();

  std::shared_ptr<const CaptureAnalysis> analysis_;
  QTabWidget* tabs_;
  QStandardItemModel* models_[TableCount];
  QTableView* views_[TableCount];
  QPushButton* export_;
};

}  // namespace anthro::widgets
