// The connections panel: each TCP connection of a capture with what was recognised on it, the
// TLS and anthro-v1 decryption status (with its reason when it failed) and the TCP health.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "capture/capture_decoder.h"

namespace anthro::widgets {

class ConnectionsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Number, Name, Transport, Profile, Alpn, Suite, TlsSuite, Decryption, Frames, HttpRequests, Retransmissions, OutOfOrder,
    ZeroWindows, Gaps, BadChecksums, ColumnCount
  };
  // What a column sorts by: the number where the cell shows a number with its unit.
  static constexpr int SortRole = Qt::UserRole + 1;
  using QAbstractTableModel::QAbstractTableModel;

  // Replaces the rows, keeping views' selection where the list only grew or was refreshed.
  void setConnections(std::vector<CaptureConnection> connections);
  const std::vector<CaptureConnection>& connections() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<CaptureConnection> rows_;
};

}  // namespace anthro::widgets
