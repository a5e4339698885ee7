#include "capture_inspector.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "connection_detail_view.h"
#include "connections_model.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "gui_thread.h"
#include "hex_view.h"
#include "latency_charts.h"
#include "request_point.h"
#include "retranslator.h"
#include "worker.h"

namespace anthro::widgets {

bool parse_frame_filter(const QString& text, FrameFilter& filter, QString& error) {
  filter = {};
  QStringList words;
  for (const QString& part : text.split(' ', Qt::SkipEmptyParts)) {
    auto number = [&](const QString& value, const char* what, auto& out) {
      bool ok = false;
      unsigned v = value.toUInt(&ok);
      if (!ok) error = QObject::tr("%1 needs a number: \"%2\"").arg(what, part);
      else out = v;
      return ok;
    };
    if (part.startsWith("conn:")) {
      std::optional<std::uint32_t> conn;
      if (!number(part.mid(5), "conn:", conn)) return false;
      if (*conn == 0) {
        error = QObject::tr("connections are numbered from 1: \"%1\"").arg(part);
        return false;
      }
      filter.connection = *conn - 1;
    } else if (part.startsWith("stream:")) {
      if (!number(part.mid(7), "stream:", filter.stream_id)) return false;
    } else if (part.startsWith("type:")) {
      QString name = part.mid(5).toUpper();
      std::optional<std::uint8_t> type;
      for (std::uint8_t t = 1; t <= 5; ++t)
        if (name == QLatin1String(to_string(static_cast<FrameType>(t)))) type = t;
      if (!type) {
        error = QObject::tr("unknown frame type \"%1\" (REQUEST, RESPONSE, STREAM_TOKEN, CANCEL, ERROR)").arg(part.mid(5));
        return false;
      }
      filter.type = type;
    } else {
      words << part;
    }
  }
  filter.text = words.join(' ').toStdString();
  return true;
}

CaptureInspector::CaptureInspector(QWidget* parent)
    : QWidget(parent),
      frames_(new FrameTableModel(this)),
      connections_(new ConnectionsModel(this)),
      filter_(new QLineEdit(this)),
      progress_(new QProgressBar(this)),
      cancel_button_(new QPushButton(this)),
      diagnose_button_(new QPushButton(this)),
      export_button_(new QPushButton(this)),
      status_(new QLabel(this)),
      frame_view_(new QTableView(this)),
      connection_view_(new QTableView(this)),
      connection_detail_(new ConnectionDetailView(this)),
      detail_(new FrameDetailView(this)),
      hex_(new HexView(this)),
      lower_tabs_(new QTabWidget(this)),
      charts_(new LatencyCharts(this)),
      poll_timer_(new QTimer(this)),
      inbox_(std::make_shared<Inbox>(this)) {
  filter_->setClearButtonEnabled(true);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  progress_->hide();
  cancel_button_->hide();
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(status_);
  bar->addWidget(progress_);
  bar->addWidget(cancel_button_);
  bar->addWidget(diagnose_button_);
  bar->addWidget(export_button_);
  diagnose_button_->setEnabled(false);
  export_button_->setEnabled(false);

  frame_view_->setModel(frames_);
  frame_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  frame_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  frame_view_->verticalHeader()->hide();
  frame_view_->verticalHeader()->setDefaultSectionSize(frame_view_->fontMetrics().height() + 6);
  frame_view_->horizontalHeader()->setStretchLastSection(true);
  frame_view_->setShowGrid(false);
  frame_view_->setAlternatingRowColors(true);
  frame_view_->setWordWrap(false);
  const int digit = frame_view_->fontMetrics().horizontalAdvance('0');
  const int widths[] = {9, 12, 5, 9, 14, 7, 7};
  for (int c = 0; c < FrameTableModel::Summary; ++c) frame_view_->setColumnWidth(c, digit * widths[c] + 12);

  connection_view_->setModel(connections_);
  connection_view_->verticalHeader()->hide();
  connection_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connection_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  connection_view_->horizontalHeader()->setStretchLastSection(true);
  connection_view_->setAlternatingRowColors(true);

  auto* frame_split = new QSplitter(Qt::Horizontal, this);
  frame_split->addWidget(detail_);
  frame_split->addWidget(hex_);
  frame_split->setStretchFactor(0, 1);
  frame_split->setStretchFactor(1, 1);
  lower_tabs_->addTab(frame_split, QString());
  auto* connection_split = new QSplitter(Qt::Horizontal, this);
  connection_split->addWidget(connection_view_);
  connection_split->addWidget(connection_detail_);
  connection_split->setStretchFactor(0, 3);
  connection_split->setStretchFactor(1, 2);
  lower_tabs_->addTab(connection_split, QString());
  lower_tabs_->addTab(charts_, QString());
  (new Retranslator(this))->add([this] {
    filter_->setPlaceholderText(tr("Filter: conn:1 stream:3 type:STREAM_TOKEN text…  (Enter applies)"));
    cancel_button_->setText(tr("Cancel"));
    diagnose_button_->setText(tr("Diagnose this capture"));
    export_button_->setText(tr("Export report…"));
    export_button_->setToolTip(tr("Connections, TCP health and per-stream timing as HTML, PDF, Markdown or JSON"));
    lower_tabs_->setTabText(0, tr("Frame"));
    lower_tabs_->setTabText(1, tr("Connections"));
    lower_tabs_->setTabText(2, tr("Charts"));
    charts_->setSeriesName(0, tr("streams"));
    // The models translate their headers when asked; tell the views to ask again.
    emit frames_->headerDataChanged(Qt::Horizontal, 0, FrameTableModel::ColumnCount - 1);
    emit connections_->headerDataChanged(Qt::Horizontal, 0, ConnectionsModel::ColumnCount - 1);
  });
  connect(charts_, &LatencyCharts::message, this, &CaptureInspector::message);
  connect(charts_, &LatencyCharts::requestClicked, this, [this](int, int request) { showStream(request); });

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(frame_view_);
  split->addWidget(lower_tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  poll_timer_->setInterval(50);
  connect(poll_timer_, &QTimer::timeout, this, &CaptureInspector::poll);
  connect(cancel_button_, &QPushButton::clicked, this, &CaptureInspector::cancelLoading);
  connect(diagnose_button_, &QPushButton::clicked, this, &CaptureInspector::diagnoseRequested);
  connect(export_button_, &QPushButton::clicked, this, &CaptureInspector::exportReportRequested);
  connect(filter_, &QLineEdit::returnPressed, this, [this] { applyFilter(filter_->text()); });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& t) {
    if (t.isEmpty()) applyFilter({});
  });
  connect(frame_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &CaptureInspector::showCurrentFrame);
  connect(frames_, &QAbstractItemModel::modelReset, this, [this] {
    connect(frame_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CaptureInspector::showCurrentFrame, Qt::UniqueConnection);
  });
  connect(connection_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            const auto& rows = connections_->connections();
            if (current.isValid() && static_cast<std::size_t>(current.row()) < rows.size())
              connection_detail_->showConnection(rows[static_cast<std::size_t>(current.row())]);
          });
  connect(detail_, &FrameDetailView::fieldSelected, hex_, &HexView::setHighlight);
  connect(hex_, &HexView::byteClicked, this, &CaptureInspector::selectFieldAt);
}

CaptureInspector::~CaptureInspector() { inbox_->close(); }  // the workers stop and are joined off this thread

void CaptureInspector::open(const QString& path, const CaptureKeySources& keys) {
  loader_.reset();  // the previous load stops; its result is never shown
  diagnose_button_->setEnabled(false);
  export_button_->setEnabled(false);
  stopFilter();
  path_ = path;
  keys_ = keys;
  auto index = CaptureIndex::create();
  if (!index) {
    status_->setText(QString::fromStdString(index.error().detail));
    emit loaded(false, status_->text());
    return;
  }
  index_ = *index;
  frames_->setIndex(index_);
  connections_->setConnections({});
  detail_->clear();
  hex_->clear();
  load_progress_ = std::make_shared<LoadProgress>();
  progress_->setValue(0);
  progress_->show();
  cancel_button_->show();
  status_->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  loader_ = std::make_unique<Worker>([this, inbox = inbox_, index = index_, progress = load_progress_,
                                      file = path.toStdString(), keys](const std::atomic<bool>& stop) {
    auto result = index->load(file, keys, [&](std::uint64_t done, std::uint64_t total) {
      progress->done = done;
      progress->total = total;
      return !stop.load();
    });
    inbox->post([this, index, result] {
      if (index == index_) finishLoading(result);  // else a later open() replaced this load
    });
  });
  poll_timer_->start();
}

void CaptureInspector::cancelLoading() {
  if (loader_) loader_->stop();
}

void CaptureInspector::poll() {
  if (!index_) return;
  frames_->poll();  // a filtered view takes no rows; loading's end matches them against the filter
  const std::uint64_t done = load_progress_->done, total = load_progress_->total;
  if (total > 0) progress_->setValue(static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
  progress_->setFormat(tr("%1 frames").arg(index_->frame_count()));
  if (++polls_ % 10 == 0) connections_->setConnections(index_->connections());
  if (frames_->rowCount() > 0 && !frame_view_->currentIndex().isValid()) selectFrame(frames_->frameAt(0));
}

void CaptureInspector::finishLoading(const Result<bool>& result) {
  poll_timer_->stop();
  loader_.reset();
  poll();  // the rows, progress and selection as the load left them
  connections_->setConnections(index_->connections());
  if (connections_->rowCount() > 0) connection_view_->selectRow(0);
  progress_->hide();
  cancel_button_->hide();
  const QString name = QFileInfo(path_).fileName();
  QString text;
  bool ok = static_cast<bool>(result);
  if (ok) {
    std::size_t opened = 0;
    for (const auto& c : index_->connections()) opened += c.decryption == DecryptionState::Ok;
    text = tr("%1: %2 frames, %3 connections (%4 decrypted)")
               .arg(name)
               .arg(index_->frame_count())
               .arg(index_->connections().size())
               .arg(opened);
    if (auto a = index_->analysis())
      for (const auto& w : a->warnings) emit message(QString::fromStdString(w));
  } else {
    text = QString::fromStdString(result.error().detail);
  }
  status_->setText(text);
  diagnose_button_->setEnabled(ok);
  export_button_->setEnabled(ok && index_ && index_->analysis());
  fillCharts();
  if (pending_jump_) {
    auto [conn, stream] = *std::exchange(pending_jump_, std::nullopt);
    showConnectionStream(conn, stream);
  } else if (!active_filter_.isEmpty()) {
    applyFilter(active_filter_);
  }
  emit message(text);
  emit loaded(ok, text);
}

void CaptureInspector::fillCharts() {
  charts_->clear();
  chart_streams_.clear();
  auto analysis = index_ ? index_->analysis() : nullptr;
  if (!analysis) return;
  // Connections are matched to the index's numbering by name and first packet.
  const auto connections = index_->connections();
  double first = -1;
  for (const auto& c : analysis->connections)
    for (const auto& s : c.streams)
      if (first < 0 || s.timeline.request_written < first) first = s.timeline.request_written;
  std::vector<RequestPoint> points;
  for (const auto& c : analysis->connections) {
    std::uint32_t conn = 0;
    for (std::size_t i = 0; i < connections.size(); ++i)
      if (connections[i].name == c.info.name && connections[i].first_packet == c.info.first_packet)
        conn = static_cast<std::uint32_t>(i);
    for (const auto& s : c.streams) {
      points.push_back(request_point(s, s.timeline.request_written - first, static_cast<int>(chart_streams_.size())));
      chart_streams_.emplace_back(conn, s.stream_id);
    }
  }
  charts_->addPoints(0, points);
}

void CaptureInspector::showStream(int request) {
  if (request < 0 || static_cast<std::size_t>(request) >= chart_streams_.size()) return;
  auto [conn, stream] = chart_streams_[static_cast<std::size_t>(request)];
  applyFilter(QString("conn:%1 stream:%2").arg(conn + 1).arg(stream));
  lower_tabs_->setCurrentIndex(0);
  emit message(tr("Stream %1 of connection %2").arg(stream).arg(conn + 1));
}

void CaptureInspector::showConnectionStream(const QString& conn, int stream) {
  if (loading()) {
    pending_jump_ = {conn, stream};
    return;
  }
  const auto connections = index_ ? index_->connections() : std::vector<CaptureConnection>{};
  for (std::size_t i = 0; i < connections.size(); ++i) {
    if (connections[i].name != conn.toStdString()) continue;
    QString filter = QString("conn:%1").arg(i + 1);
    if (stream >= 0) filter += QString(" stream:%1").arg(stream);
    applyFilter(filter);
    lower_tabs_->setCurrentIndex(0);
    return;
  }
  emit message(tr("No connection %1 in %2").arg(conn, QFileInfo(path_).fileName()));
}

void CaptureInspector::applyFilter(const QString& text) {
  if (!index_) return;
  if (filter_->text() != text) filter_->setText(text);
  FrameFilter filter;
  QString error;
  if (!parse_frame_filter(text, filter, error)) {
    filter_->setStyleSheet("QLineEdit { border: 1px solid #d03a3a; }");
    status_->setText(error);
    return;
  }
  filter_->setStyleSheet({});
  active_filter_ = filter.empty() ? QString() : text;
  if (filter.empty()) {
    stopFilter();
    frames_->setSelection(std::nullopt);
    frames_->poll();
    status_->setText(tr("%1 frames").arg(index_->frame_count()));
    return;
  }
  runFilter(std::move(filter));
}

void CaptureInspector::runFilter(FrameFilter filter) {
  stopFilter();
  status_->setText(tr("Filtering…"));
  filter_worker_ = std::make_unique<Worker>([this, inbox = inbox_, run = filter_run_, filter = std::move(filter),
                                             index = index_](const std::atomic<bool>& stop) {
    auto rows = index->select(filter, &stop);
    if (stop) return;
    inbox->post([this, run, rows = std::move(rows)]() mutable {
      if (run == filter_run_) showFiltered(std::move(rows));
    });
  });
}

void CaptureInspector::showFiltered(std::vector<std::uint32_t> rows) {
  filter_worker_.reset();
  const std::size_t n = rows.size();
  frames_->setSelection(std::move(rows));
  status_->setText(tr("%1 of %2 frames").arg(n).arg(index_->frame_count()));
}

// The filter under way stops, and its rows are never shown: they would replace what a later
// filter, a cleared filter or another capture shows.
void CaptureInspector::stopFilter() {
  filter_worker_.reset();
  ++filter_run_;
}

void CaptureInspector::selectFrame(std::size_t frame) {
  int row = frames_->rowOf(frame);
  if (row < 0) return;
  QModelIndex index = frames_->index(row, 0);
  frame_view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  frame_view_->scrollTo(index);
}

void CaptureInspector::showCurrentFrame() {
  QModelIndex current = frame_view_->currentIndex();
  if (!current.isValid() || !index_) return;
  std::size_t frame = frames_->frameAt(current.row());
  auto d = index_->detail(frame);
  if (!d) {
    detail_->clear();
    hex_->clear();
    return;
  }
  detail_->showFrame(frame, *d);
  hex_->setBytes(QByteArray(reinterpret_cast<const char*>(d->bytes.data()), static_cast<qsizetype>(d->bytes.size())));
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

}  // namespace anthro::widgets
