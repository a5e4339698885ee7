#include "frame_table_model.h"

#include <QApplication>
#include <QBrush>
#include <QFont>
#include <QPalette>
#include <algorithm>

namespace anthro::widgets {

void FrameTableModel::setIndex(std::shared_ptr<const CaptureIndex> index) {
  beginResetModel();
  index_ = std::move(index);
  selection_.reset();
  shown_ = 0;
  first_ts_ = 0;
  endResetModel();
  poll();
}

void FrameTableModel::setSelection(std::optional<std::vector<std::uint32_t>> frames) {
  beginResetModel();
  selection_ = std::move(frames);
  endResetModel();
}

int FrameTableModel::poll() {
  if (!index_ || selection_) return 0;
  std::size_t available = index_->frame_count();
  if (available <= shown_) return 0;
  if (shown_ == 0) {
    if (auto first = index_->row(0)) first_ts_ = first->ts;
  }
  // Qt's row numbers are int: a capture beyond that many frames shows its first INT_MAX.
  available = std::min<std::size_t>(available, static_cast<std::size_t>(std::numeric_limits<int>::max()));
  if (available <= shown_) return 0;
  beginInsertRows({}, static_cast<int>(shown_), static_cast<int>(available - 1));
  int added = static_cast<int>(available - shown_);
  shown_ = available;
  endInsertRows();
  return added;
}

std::size_t FrameTableModel::frameAt(int row) const {
  return selection_ ? (*selection_)[static_cast<std::size_t>(row)] : static_cast<std::size_t>(row);
}

int FrameTableModel::rowOf(std::size_t frame) const {
  if (!selection_) return frame < shown_ ? static_cast<int>(frame) : -1;
  auto it = std::lower_bound(selection_->begin(), selection_->end(), frame);
  return it != selection_->end() && *it == frame ? static_cast<int>(it - selection_->begin()) : -1;
}

int FrameTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(selection_ ? selection_->size() : shown_);
}

int FrameTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FrameTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !index_) return {};
  const std::size_t frame = frameAt(index.row());
  if (role == Qt::TextAlignmentRole) {
    bool number = index.column() == Number || index.column() == Time || index.column() == Stream ||
                  index.column() == Tokens;
    return QVariant::fromValue(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
  }
  if (role != Qt::DisplayRole && role != Qt::ForegroundRole && role != Qt::ToolTipRole) return {};
  auto row = index_->row(frame);
  if (!row) return {};
  if (role == Qt::ForegroundRole) {
    if (row->status == FrameStatus::Ok) return {};
    QPalette p = QApplication::palette();
    return row->status == FrameStatus::Refused ? QBrush(QColor(0xD0, 0x3A, 0x3A)) : QBrush(p.color(QPalette::PlaceholderText));
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() != Summary) return {};
    auto d = index_->detail(frame);
    return d ? QString::fromStdString(d->status == "ok" ? d->summary : d->status) : QVariant();
  }
  switch (index.column()) {
    case Number: return QVariant::fromValue<qulonglong>(frame + 1);
    case Time: return QString::number(row->ts - first_ts_, 'f', 6);
    case Connection: return row->connection + 1;
    case Direction: return row->dir == anthro::Direction::ClientToServer ? QStringLiteral("C → S") : QStringLiteral("S → C");
    case Type: return QString::fromLatin1(row_type_name(*row));
    case Stream: return row->stream_id ? QVariant(row->stream_id) : QVariant();
    case Tokens: return row->token_count ? QVariant(row->token_count) : QVariant();
    case Summary: {
      auto d = index_->detail(frame);
      if (!d) return tr("(unreadable)");
      return QString::fromStdString(d->status == "ok" ? d->summary : d->status);
    }
  }
  return {};
}

QVariant FrameTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Number: return tr("No.");
    case Time: return tr("Time (s)");
    case Connection: return tr("Conn");
    case Direction: return tr("Direction");
    case Type: return tr("Type");
    case Stream: return tr("Stream");
    case Tokens: return tr("Tokens");
    case Summary: return tr("Summary");
  }
  return {};
}

}  // namespace anthro::widgets
