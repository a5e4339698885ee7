// A table of decoded frames (one row per FrameEvent) for the capture inspector.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "protocol/stream_decoder.h"

namespace anthro::widgets {

class FrameTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Direction, Offset, Type, Stream, Status, Summary, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;

  void append(const FrameEvent& event);
  void clear();
  const FrameEvent& frame(int row) const { return rows_.at(static_cast<std::size_t>(row)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<FrameEvent> rows_;
};

}  // namespace anthro::widgets
