// A capture's Statistics: one table a connection (transport, decryption, frames, streams,
// TTFT P50/P99, TCP health), one a stream (end, tokens, TTFT, E2E, ITL, rate, packets) and
// the TTFT distribution a connection and overall. Every table sorts by any column and exports
// as CSV in the order shown (temporary file, then renamed).
#pragma once

#include <QStandardItemModel>
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "capture/analysis.h"

class QPushButton;
class QTabWidget;
class QThread;
class QTableView;

namespace anthro::widgets {

class CaptureStatistics : public QWidget {
  Q_OBJECT
 public:
  enum Table { Connections, Streams, Ttft, TableCount };

  explicit CaptureStatistics(QWidget* parent = nullptr);

  struct Sort {
    int column = 0;
    Qt::SortOrder order = Qt::AscendingOrder;
  };
  using Sorting = std::array<Sort, TableCount>;
  // The tables of an analysis made on any thread — a capture's tens of thousands of streams are
  // rows the GUI thread should not spend a second on — sorted as asked, and living on `gui`.
  struct Prepared {
    std::shared_ptr<const CaptureAnalysis> analysis;
    Sorting sorting;
    std::array<std::unique_ptr<QStandardItemModel>, TableCount> models;
  };
  static std::shared_ptr<Prepared> prepare(std::shared_ptr<const CaptureAnalysis> analysis, const Sorting& sorting,
                                           QThread* gui);

  // Connections numbered from 1 in the analysis's order, as the frame list numbers them; null clears.
  void setAnalysis(std::shared_ptr<const CaptureAnalysis> analysis);
  void showPrepared(std::shared_ptr<Prepared> prepared);  // what prepare() made, on this object's thread
  Sorting sorting() const;  // as the tables are sorted now
  QTableView* view(Table table) const { return views_[table]; }
  QTabWidget* tables() const { return tabs_; }
  // The table as CSV (RFC 4180), header first, rows in the order shown.
  QString csv(Table table) const;
  Result<bool> exportCsv(Table table, const QString& path) const;

 signals:
  void streamActivated(std::uint32_t connection, std::uint32_t stream);  // a stream row double-clicked
  void message(const QString& text);

 private:
  using Models = std::array<QStandardItemModel*, TableCount>;
  static void setHeaders(const Models& models);
  static void fillRows(const Models& models, const CaptureAnalysis& analysis);
  void fill();
  void exportCurrent();

  std::shared_ptr<const CaptureAnalysis> analysis_;
  QTabWidget* tabs_;
  Models models_;
  QTableView* views_[TableCount];
  QPushButton* export_;
};

}  // namespace anthro::widgets
