#include "frame_table_model.h"

#include <QBrush>
#include <QColor>

#include "protocol/describe.h"

namespace anthro::widgets {

void FrameTableModel::append(const FrameEvent& event) {
  int row = static_cast<int>(rows_.size());
  beginInsertRows({}, row, row);
  rows_.push_back(event);
  rows_.back().plaintext.clear();  // the body holds what the table shows; keep memory flat
  endInsertRows();
}

void FrameTableModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int FrameTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FrameTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FrameTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const FrameEvent& e = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::ForegroundRole && index.column() == Status && (e.refusal || e.no_key))
    return QBrush(e.refusal ? QColor(0xB0, 0x20, 0x20) : QColor(0x80, 0x80, 0x80));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Index: return index.row() + 1;
    case Direction: return QString::fromLatin1(to_string(e.dir));
    case Offset: return QVariant::fromValue<qulonglong>(e.offset);
    case Type: return QString::fromLatin1(to_string(e.header.frame_type()));
    case Stream: return e.body ? QVariant::fromValue<qulonglong>(body_stream_id(*e.body)) : QVariant();
    case Status: return QString::fromStdString(describe_status(e));
    case Summary: return e.body ? QString::fromStdString(describe_body(*e.body)) : QString();
  }
  return {};
}

QVariant FrameTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "Dir", "Offset", "Type", "Stream", "Status", "Summary"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace anthro::widgets
