#include "frame_table_model.h"

#include <QApplication>
#include <QBrush>
#include <QDateTime>
#include <QFont>
#include <QPalette>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "session_tracer.h"

namespace anthro::widgets {

namespace {

QString seconds(double s) { return QString::number(s, 'f', 6); }

// Local time of day with microseconds, as Wireshark's "Time of Day".
QString time_of_day(double ts) {
  const double whole = std::floor(ts);
  const auto micros = static_cast<int>(std::lround((ts - whole) * 1e6));
  QDateTime t = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(whole)).addSecs(micros >= 1000000 ? 1 : 0);
  return t.toString(QStringLiteral("HH:mm:ss")) + QString(".%1").arg(micros % 1000000, 6, 10, QChar('0'));
}

// Sorts `frames` by a key a frame, ties in frame order.
template <class KeyOf>
void order_by(std::vector<std::uint32_t>& frames, KeyOf key_of, Qt::SortOrder order, const std::atomic<bool>* cancelled) {
  using Key = decltype(key_of(std::uint32_t{}));
  std::vector<std::pair<Key, std::uint32_t>> keyed;
  keyed.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (cancelled && i % 4096 == 0 && cancelled->load()) return;
    keyed.emplace_back(key_of(frames[i]), frames[i]);
  }
  const bool up = order == Qt::AscendingOrder;
  std::sort(keyed.begin(), keyed.end(), [up](const auto& a, const auto& b) {
    if (a.first != b.first) return up ? a.first < b.first : b.first < a.first;
    return a.second < b.second;
  });
  for (std::size_t i = 0; i < frames.size(); ++i) frames[i] = keyed[i].second;
}

// The tracer's column shown in model column `column`, if it is one.
std::optional<TracerColumn> tracer_column(int column) {
  if (column < FrameTableModel::FirstTracer || column >= summary_column()) return std::nullopt;
  return static_cast<TracerColumn>(column - FrameTableModel::FirstTracer);
}

}  // namespace

const std::vector<ProfileColumn>& profile_columns() {
  static const std::vector<ProfileColumn> columns = [] {
    std::vector<ProfileColumn> v;
    for (const Profile* p : profiles())
      for (std::size_t i = 0; i < p->columns.size(); ++i) v.push_back({p->id, i, p->columns[i]});
    return v;
  }();
  return columns;
}

int summary_column() { return FrameTableModel::FirstTracer + static_cast<int>(tracer_columns().size()); }
int first_profile_column() { return summary_column() + 1; }
int frame_column_count() { return first_profile_column() + static_cast<int>(profile_columns().size()); }

namespace {

QString profile_cell_text(const CaptureIndex& index, std::size_t frame, const FrameRow& row, int column) {
  const std::size_t at = static_cast<std::size_t>(column - first_profile_column());
  if (at >= profile_columns().size()) return {};
  const ProfileColumn& pc = profile_columns()[at];
  if (row.kind != RowKind::Dissected || row.profile != pc.profile) return {};
  auto d = index.detail(frame);
  return d && pc.index < d->columns.size() ? QString::fromStdString(d->columns[pc.index]) : QString();
}

QString summary_text(const CaptureIndex& index, std::size_t frame) {
  auto d = index.detail(frame);
  if (!d) return FrameTableModel::tr("(unreadable)");
  return QString::fromStdString(d->status == "ok" ? d->summary : d->status);
}

QString tracer_cell_text(const CaptureIndex& index, std::size_t frame, const FrameRow& row, TracerColumn c) {
  if (row.kind != RowKind::HttpRequest && row.kind != RowKind::HttpResponse) return {};
  auto d = index.detail(frame);
  return d ? tracer_text(*d, c) : QString();
}

}  // namespace

QString frame_cell_text(const CaptureIndex& index, std::size_t frame, const FrameRow& row, int column) {
  if (column >= first_profile_column()) return profile_cell_text(index, frame, row, column);
  if (column == summary_column()) return summary_text(index, frame);
  if (auto c = tracer_column(column)) return tracer_cell_text(index, frame, row, *c);
  switch (column) {
    case FrameTableModel::Number: return QString::number(frame + 1);
    case FrameTableModel::Time: return seconds(row.ts);
    case FrameTableModel::Connection: return QString::number(row.connection + 1);
    case FrameTableModel::Direction:
      return row.dir == anthro::Direction::ClientToServer ? QStringLiteral("C → S") : QStringLiteral("S → C");
    case FrameTableModel::Type: return QString::fromLatin1(row_type_name(row));
    case FrameTableModel::Stream: return row.stream_id ? QString::number(row.stream_id) : QString();
    case FrameTableModel::Tokens: return row.token_count ? QString::number(row.token_count) : QString();
  }
  return {};
}

std::vector<int> empty_columns(const CaptureIndex& index) {
  std::vector<int> unfilled;
  for (int c = FrameTableModel::FirstTracer; c < frame_column_count(); ++c)
    if (c != summary_column()) unfilled.push_back(c);
  const std::size_t rows = index.frame_count();
  if (rows > kMaxRowsLooked) return {};  // not settled: every column keeps its place
  for (std::size_t i = 0; i < rows && !unfilled.empty(); ++i) {
    auto row = index.row(i);
    if (!row) return {};
    const bool http = row->kind == RowKind::HttpRequest || row->kind == RowKind::HttpResponse;
    if (!http && row->kind != RowKind::Dissected) continue;
    std::erase_if(unfilled, [&](int c) { return !frame_cell_text(index, i, *row, c).isEmpty(); });
  }
  return unfilled;
}

std::vector<std::uint32_t> sort_frames(const CaptureIndex& index, std::vector<std::uint32_t> frames, int column,
                                       Qt::SortOrder order, const std::atomic<bool>* cancelled) {
  auto numeric = [&](auto field) {
    order_by(frames, [&](std::uint32_t f) {
      auto r = index.row(f);
      return r ? field(f, *r) : 0.0;
    }, order, cancelled);
  };
  switch (column) {
    case FrameTableModel::Number:
      numeric([](std::uint32_t f, const FrameRow&) { return double(f); });
      break;
    case FrameTableModel::Time: numeric([](std::uint32_t, const FrameRow& r) { return r.ts; }); break;
    case FrameTableModel::Connection: numeric([](std::uint32_t, const FrameRow& r) { return double(r.connection); }); break;
    case FrameTableModel::Stream: numeric([](std::uint32_t, const FrameRow& r) { return double(r.stream_id); }); break;
    case FrameTableModel::Tokens: numeric([](std::uint32_t, const FrameRow& r) { return double(r.token_count); }); break;
    default:
      // Text columns by their first 32 bytes, so a key costs the same for any summary.
      order_by(frames, [&](std::uint32_t f) {
        std::array<char, 32> key{};
        if (auto r = index.row(f)) {
          QByteArray text = frame_cell_text(index, f, *r, column).toUtf8();
          std::memcpy(key.data(), text.constData(), std::min<std::size_t>(key.size(), static_cast<std::size_t>(text.size())));
        }
        return key;
      }, order, cancelled);
  }
  return frames;
}

void FrameTableModel::setIndex(std::shared_ptr<const CaptureIndex> index) {
  beginResetModel();
  index_ = std::move(index);
  selection_.reset();
  selection_in_frame_order_ = true;
  shown_ = 0;
  first_ts_ = 0;
  reference_.reset();
  marked_.clear();
  endResetModel();
  poll();
}

void FrameTableModel::setSelection(std::optional<std::vector<std::uint32_t>> frames) {
  beginResetModel();
  selection_ = std::move(frames);
  selection_in_frame_order_ = !selection_ || std::is_sorted(selection_->begin(), selection_->end());
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
  if (!selection_in_frame_order_) {
    auto it = std::find(selection_->begin(), selection_->end(), frame);
    return it != selection_->end() ? static_cast<int>(it - selection_->begin()) : -1;
  }
  auto it = std::lower_bound(selection_->begin(), selection_->end(), frame);
  return it != selection_->end() && *it == frame ? static_cast<int>(it - selection_->begin()) : -1;
}

void FrameTableModel::setTimeFormat(TimeFormat format) {
  time_format_ = format;
  emit headerDataChanged(Qt::Horizontal, Time, Time);
  if (rowCount() > 0) emit dataChanged(index(0, Time), index(rowCount() - 1, Time));
}

void FrameTableModel::setReference(std::optional<std::size_t> frame) {
  reference_ = frame;
  if (rowCount() > 0) emit dataChanged(index(0, Time), index(rowCount() - 1, Time));
}

void FrameTableModel::setMarked(std::size_t frame, bool marked) {
  if (marked) marked_.insert(frame);
  else marked_.erase(frame);
  if (int row = rowOf(frame); row >= 0) emit dataChanged(index(row, 0), index(row, frame_column_count() - 1));
}

void FrameTableModel::sort(int column, Qt::SortOrder order) {
  if (column < 0) column = Number, order = Qt::AscendingOrder;  // the header's indicator cleared
  sort_column_ = column;
  sort_order_ = order;
  emit sortRequested(column, order);
}

QString FrameTableModel::rowsText(const QList<int>& rows, QList<int> columns) const {
  if (columns.isEmpty())
    for (int c = 0; c < frame_column_count(); ++c) columns << c;
  QStringList lines;
  QStringList header;
  for (int c : columns) header << headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
  lines << header.join('\t');
  for (int row : rows) {
    QStringList cells;
    for (int c : columns) cells << data(index(row, c), Qt::DisplayRole).toString();
    lines << cells.join('\t');
  }
  return lines.join('\n') + '\n';
}

int FrameTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(selection_ ? selection_->size() : shown_);
}

int FrameTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : frame_column_count(); }

QString FrameTableModel::timeText(int row, const FrameRow& r) const {
  switch (time_format_) {
    case TimeFormat::TimeOfDay: return time_of_day(r.ts);
    case TimeFormat::SinceStart: return seconds(r.ts - first_ts_);
    case TimeFormat::SincePrevious: {
      if (row == 0) return seconds(0);
      auto previous = index_->row(frameAt(row - 1));
      return previous ? seconds(r.ts - previous->ts) : QString();
    }
    case TimeFormat::SinceReference: {
      if (!reference_) return seconds(r.ts - first_ts_);
      if (frameAt(row) == *reference_) return tr("*REF*");
      auto ref = index_->row(*reference_);
      return ref ? seconds(r.ts - ref->ts) : QString();
    }
  }
  return {};
}

QVariant FrameTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !index_) return {};
  const std::size_t frame = frameAt(index.row());
  if (role == Qt::TextAlignmentRole) {
    bool number = index.column() == Number || index.column() == Time || index.column() == Stream ||
                  index.column() == Tokens;
    return QVariant::fromValue(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
  }
  if (role == Qt::BackgroundRole) return isMarked(frame) ? QBrush(QColor(0xFF, 0xE0, 0x80)) : QVariant();
  if (role == Qt::FontRole) {
    if (!isMarked(frame)) return {};
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role != Qt::DisplayRole && role != Qt::ForegroundRole && role != Qt::ToolTipRole) return {};
  auto row = index_->row(frame);
  if (!row) return {};
  if (role == Qt::ForegroundRole) {
    if (isMarked(frame)) return QBrush(Qt::black);  // readable on the mark's colour in any palette
    if (row->status == FrameStatus::Ok) return {};
    QPalette p = QApplication::palette();
    return row->status == FrameStatus::Refused ? QBrush(QColor(0xD0, 0x3A, 0x3A)) : QBrush(p.color(QPalette::PlaceholderText));
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() != summary_column()) return {};
    return frame_cell_text(*index_, frame, *row, summary_column());
  }
  if (index.column() == Time) return timeText(index.row(), *row);
  return frame_cell_text(*index_, frame, *row, index.column());
}

QVariant FrameTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == summary_column()) return tr("Summary");
  if (auto c = tracer_column(section)) return tracer_title(*c);
  if (section >= first_profile_column()) {
    const std::size_t at = static_cast<std::size_t>(section - first_profile_column());
    return at < profile_columns().size() ? QString::fromUtf8(profile_columns()[at].title.data(),
                                                              static_cast<qsizetype>(profile_columns()[at].title.size()))
                                         : QVariant();
  }
  switch (section) {
    case Number: return tr("No.");
    case Time:
      switch (time_format_) {
        case TimeFormat::TimeOfDay: return tr("Time of day");
        case TimeFormat::SinceStart: return tr("Time (s)");
        case TimeFormat::SincePrevious: return tr("Δ previous (s)");
        case TimeFormat::SinceReference: return tr("Since reference (s)");
      }
      return {};
    case Connection: return tr("Conn");
    case Direction: return tr("Direction");
    case Type: return tr("Type");
    case Stream: return tr("Stream");
    case Tokens: return tr("Tokens");
  }
  return {};
}

}  // namespace anthro::widgets
