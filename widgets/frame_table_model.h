// The capture inspector's frame list: a lazy table over a CaptureIndex. Rows are read through
// the index's page cache when a view asks for them, so millions of frames cost the model only
// a row-number mapping when filtered. While the index loads, poll() appends the new rows
// (beginInsertRows, never a reset).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

#include "capture/capture_index.h"

namespace anthro::widgets {

class FrameTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Number, Time, Connection, Direction, Type, Stream, Tokens, Summary, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;

  // Shows `index` (may still be loading); null clears.
  void setIndex(std::shared_ptr<const CaptureIndex> index);
  const std::shared_ptr<const CaptureIndex>& captureIndex() const { return index_; }
  // Shows only these frame numbers (from CaptureIndex::select), or every frame again.
  void setSelection(std::optional<std::vector<std::uint32_t>> frames);
  // Appends the rows the index published since the last call; returns how many.
  int poll();

  // The frame number (CaptureIndex row) shown on table row `row`, and back (-1 when hidden).
  std::size_t frameAt(int row) const;
  int rowOf(std::size_t frame) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const CaptureIndex> index_;
  std::optional<std::vector<std::uint32_t>> selection_;
  std::size_t shown_ = 0;  // rows announced to views (unfiltered)
  double first_ts_ = 0;
};

}  // namespace anthro::widgets
