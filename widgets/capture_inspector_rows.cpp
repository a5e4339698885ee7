// The capture inspector's moves on rows: the current frame (its fields and bytes below, a byte
// clicked selecting its field), go to, Home and End, time reference and format, marks, copying
// rows and the row context menu.
#include "capture_inspector.h"

#include <QAction>
#include <algorithm>
#include <QActionGroup>
#include <QClipboard>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <numeric>
#include "capture_statistics.h"
#include "connection_detail_view.h"
#include "connections_model.h"
#include "frame_detail_view.h"
#include "gui_thread.h"
#include "hex_view.h"
#include "latency_charts.h"
#include "request_point.h"
#include "retranslator.h"
#include "worker.h"

namespace anthro::widgets {
namespace {

// Copying more rows than this would stall the UI thread reading them; the notice says so.
constexpr int kMaxCopiedRows = 100000;

}  // namespace

std::optional<std::size_t> CaptureInspector::currentFrame() const {
  QModelIndex current = frame_view_->currentIndex();
  if (!current.isValid() || current.row() >= frames_->rowCount()) return std::nullopt;
  return frames_->frameAt(current.row());
}

void CaptureInspector::selectFrame(std::size_t frame) {
  int row = frames_->rowOf(frame);
  if (row < 0) return;
  QModelIndex index = frames_->index(row, 0);
  frame_view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  frame_view_->scrollTo(index);
  showCurrentFrame();  // also when it was current already, after a reset left the panes empty
}

void CaptureInspector::showCurrentFrame() {
  QModelIndex current = frame_view_->currentIndex();
  auto d = current.isValid() && index_ ? index_->detail(frames_->frameAt(current.row())) : std::nullopt;
  if (!d) {
    detail_->clear();
    hex_->clear();
    return;
  }
  detail_->showFrame(frames_->frameAt(current.row()), *d);
  hex_->setBytes(QByteArray(reinterpret_cast<const char*>(d->bytes.data()), static_cast<qsizetype>(d->bytes.size())));
  std::vector<std::pair<qsizetype, qsizetype>> masked;
  for (auto [begin, end] : d->masked) masked.emplace_back(static_cast<qsizetype>(begin), static_cast<qsizetype>(end));
  hex_->setMaskedRanges(std::move(masked));
  hex_->setHighlight(0, 0);
}

void CaptureInspector::selectFieldAt(qsizetype offset) {
  QModelIndex current = frame_view_->currentIndex();
  if (!current.isValid()) return;
  auto d = index_->detail(frames_->frameAt(current.row()));
  if (!d) return;
  // The narrowest field holding the byte: a body part rather than the whole body.
  const FrameField* best = nullptr;
  for (const auto& f : d->fields)
    if (static_cast<std::size_t>(offset) >= f.begin && static_cast<std::size_t>(offset) < f.end &&
        (!best || f.end - f.begin < best->end - best->begin))
      best = &f;
  if (best) detail_->selectField(QString::fromStdString(best->name));
}

bool CaptureInspector::goToFrame(std::size_t number) {
  const std::size_t count = index_ ? index_->frame_count() : 0;
  if (number == 0 || number > count) {
    showNotice([number, count] { return tr("No frame %1: the capture has %2 frames.").arg(number).arg(count); });
    return false;
  }
  if (frames_->rowOf(number - 1) < 0) {
    showNotice([number, filter = active_filter_] {
      return tr("Frame %1 is not in the list: the filter \"%2\" hides it.").arg(number).arg(filter);
    });
    return false;
  }
  showNotice({});
  selectFrame(number - 1);
  return true;
}

void CaptureInspector::setTimeFormat(TimeFormat format) {
  frames_->setTimeFormat(format);
  time_actions_[static_cast<int>(format)]->setChecked(true);
}

void CaptureInspector::toggleReference() {
  auto frame = currentFrame();
  if (!frame) return;
  if (frames_->reference() == frame) {
    frames_->setReference(std::nullopt);
  } else {
    frames_->setReference(frame);
    setTimeFormat(TimeFormat::SinceReference);
  }
}

void CaptureInspector::toggleMark() {
  auto frame = currentFrame();
  if (!frame) return;
  const bool mark = !frames_->isMarked(*frame);
  QModelIndexList rows = frame_view_->selectionModel()->selectedRows();
  if (rows.isEmpty()) frames_->setMarked(*frame, mark);
  for (const QModelIndex& row : rows) frames_->setMarked(frames_->frameAt(row.row()), mark);
}

void CaptureInspector::copyRows() {
  QList<int> rows;
  for (const QModelIndex& index : frame_view_->selectionModel()->selectedRows()) rows << index.row();
  if (rows.isEmpty()) {
    if (!frame_view_->currentIndex().isValid()) return;
    rows << frame_view_->currentIndex().row();
  }
  std::sort(rows.begin(), rows.end());
  const qsizetype selected = rows.size();
  if (selected > kMaxCopiedRows) {
    rows.resize(kMaxCopiedRows);
    showNotice([selected] { return tr("Copied the first %1 of the %2 selected rows.").arg(kMaxCopiedRows).arg(selected); });
  }
  QList<int> shown;  // the columns shown, as they are ordered on screen
  for (int at = 0; at < frame_column_count(); ++at) {
    const int c = frame_view_->horizontalHeader()->logicalIndex(at);
    if (!frame_view_->isColumnHidden(c)) shown << c;
  }
  QGuiApplication::clipboard()->setText(frames_->rowsText(rows, shown));
}

bool CaptureInspector::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::KeyPress) return QWidget::eventFilter(watched, event);
  auto* key = static_cast<QKeyEvent*>(event);
  if (watched == goto_ && key->key() == Qt::Key_Escape) {
    goto_->hide();
    frame_view_->setFocus();
    return true;
  }
  if (watched == frame_view_ && (key->key() == Qt::Key_Home || key->key() == Qt::Key_End) && frames_->rowCount() > 0) {
    const int row = key->key() == Qt::Key_Home ? 0 : frames_->rowCount() - 1;
    selectFrame(frames_->frameAt(row));
    return true;
  }
  if (watched == frame_view_ && key->matches(QKeySequence::Copy)) {
    copyRows();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

QString CaptureInspector::filterFor(std::size_t frame, int column) const {
  auto row = index_ ? index_->row(frame) : std::nullopt;
  if (!row) return {};
  const QString conn = QString("conn:%1").arg(row->connection + 1);
  if (column == FrameTableModel::Type)
    return QString("type:%1").arg(QString::fromLatin1(row_type_name(*row)));
  if (column == FrameTableModel::Connection || !row->stream_id) return conn;
  return conn + QString(" stream:%1").arg(row->stream_id);
}

QMenu* CaptureInspector::contextMenuFor(const QModelIndex& index) {
  auto* menu = new QMenu(this);
  if (index.isValid() && !frame_view_->selectionModel()->isRowSelected(index.row(), {}))
    selectFrame(frames_->frameAt(index.row()));
  const auto frame = currentFrame();
  menu->addAction(copy_action_);
  if (!frame) {
    copy_action_->setEnabled(false);
    return menu;
  }
  copy_action_->setEnabled(true);
  auto detail = index_->detail(*frame);
  QAction* fields = menu->addAction(tr("Copy field values"), this, [detail] {
    QStringList lines;
    if (detail)
      for (const FrameField& f : detail->fields)
        lines << QString(f.depth * 2, ' ') + QString::fromStdString(f.name) + '\t' + QString::fromStdString(f.value);
    QGuiApplication::clipboard()->setText(lines.join('\n') + '\n');
  });
  fields->setObjectName("copyFields");
  QAction* hex = menu->addAction(tr("Copy bytes as hex"), this, [detail] {
    if (detail) QGuiApplication::clipboard()->setText(QString::fromStdString(to_hex(detail->bytes)));
  });
  hex->setObjectName("copyHex");
  fields->setEnabled(detail.has_value());
  hex->setEnabled(detail.has_value());
  menu->addSeparator();
  const QString filter = filterFor(*frame, index.isValid() ? index.column() : FrameTableModel::Stream);
  QAction* apply = menu->addAction(tr("Filter on %1").arg(filter), this, [this, filter] { applyFilter(filter); });
  apply->setObjectName("filterOnValue");
  menu->addSeparator();
  menu->addAction(mark_action_);
  menu->addAction(reference_action_);
  menu->addAction(goto_action_);
  return menu;
}

}  // namespace anthro::widgets
