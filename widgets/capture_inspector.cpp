#include "capture_inspector.h"

#include <QAction>
#include <algorithm>
#include <QActionGroup>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
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
#include "session_tracer.h"
#include "job_service.h"
#include "worker.h"  // yield_to_gui_thread

namespace anthro::widgets {

namespace {

enum Lower { FrameTab, ConnectionsTab, ChartsTab, StatisticsTab };

}  // namespace

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
      notice_(new QLabel(this)),
      goto_(new QLineEdit(this)),
      view_button_(new QToolButton(this)),
      view_menu_(new QMenu(this)),
      time_group_(new QActionGroup(this)),
      frame_view_(new QTableView(this)),
      connection_view_(new QTableView(this)),
      connection_detail_(new ConnectionDetailView(this)),
      detail_(new FrameDetailView(this)),
      hex_(new HexView(this)),
      lower_tabs_(new QTabWidget(this)),
      charts_(new LatencyCharts(this)),
      statistics_(new CaptureStatistics(this)),
      poll_timer_(new QTimer(this)),
      jobs_(new JobService(this)) {
  QHBoxLayout* bar = nullptr;
  QHBoxLayout* status_line = nullptr;
  setupBar(bar, status_line);
  setupFrameView();
  setupConnectionView();
  buildLowerTabs();
  buildActions();
  (new Retranslator(this))->add([this] { retranslate(); });
  bindPanes();
  layOut(bar, status_line);
  bindBar();
  bindViews();
}

void CaptureInspector::setupBar(QHBoxLayout*& bar, QHBoxLayout*& status_line) {
  filter_->setClearButtonEnabled(true);
  filter_->setObjectName("frameFilter");
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  progress_->hide();
  cancel_button_->hide();
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notice_->setObjectName("inspectorNotice");
  notice_->setWordWrap(true);
  notice_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notice_->setStyleSheet("QLabel { color: #b02a2a; }");
  notice_->hide();
  goto_->setObjectName("goToFrame");
  goto_->setMaximumWidth(goto_->fontMetrics().horizontalAdvance('0') * 16);
  goto_->hide();
  view_button_->setObjectName("inspectorView");
  view_button_->setPopupMode(QToolButton::InstantPopup);
  view_button_->setMenu(view_menu_);

  bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(goto_);
  bar->addWidget(progress_);
  bar->addWidget(cancel_button_);
  bar->addWidget(view_button_);
  bar->addWidget(diagnose_button_);
  bar->addWidget(export_button_);
  diagnose_button_->setEnabled(false);
  export_button_->setEnabled(false);
  status_line = new QHBoxLayout;
  status_line->addWidget(status_);
  status_line->addWidget(notice_, 1);
}

void CaptureInspector::setupFrameView() {
  frame_view_->setModel(frames_);
  frame_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  frame_view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  frame_view_->verticalHeader()->hide();
  frame_view_->verticalHeader()->setDefaultSectionSize(frame_view_->fontMetrics().height() + 6);
  frame_view_->horizontalHeader()->setStretchLastSection(true);
  frame_view_->horizontalHeader()->setSortIndicator(FrameTableModel::Number, Qt::AscendingOrder);
  frame_view_->horizontalHeader()->setSortIndicatorClearable(true);
  frame_view_->setSortingEnabled(true);
  frame_view_->setShowGrid(false);
  frame_view_->setAlternatingRowColors(true);
  frame_view_->setWordWrap(false);
  frame_view_->setContextMenuPolicy(Qt::CustomContextMenu);
  frame_view_->installEventFilter(this);
  goto_->installEventFilter(this);
  const int digit = frame_view_->fontMetrics().horizontalAdvance('0');
  const int widths[] = {9, 15, 5, 9, 14, 7, 7};
  static_assert(std::size(widths) == FrameTableModel::FirstTracer);
  for (int c = 0; c < FrameTableModel::FirstTracer; ++c) frame_view_->setColumnWidth(c, digit * widths[c] + 12);
  for (TracerColumn c = 0; c < tracer_columns().size(); ++c)
    frame_view_->setColumnWidth(FrameTableModel::FirstTracer + static_cast<int>(c), digit * tracer_columns()[c].width + 12);
}

// Connections sort by any column, as numbers where they are numbers (ConnectionsModel::SortRole).
void CaptureInspector::setupConnectionView() {
  sorted_connections_ = new QSortFilterProxyModel(this);
  sorted_connections_->setSourceModel(connections_);
  sorted_connections_->setSortRole(ConnectionsModel::SortRole);
  connection_view_->setModel(sorted_connections_);
  connection_view_->setSortingEnabled(true);
  connection_view_->sortByColumn(ConnectionsModel::Number, Qt::AscendingOrder);
  connection_view_->verticalHeader()->hide();
  connection_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connection_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  connection_view_->horizontalHeader()->setStretchLastSection(true);
  connection_view_->setAlternatingRowColors(true);
}

void CaptureInspector::buildLowerTabs() {
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
  // The charts keep a legible size and scroll when the pane is made small.
  auto* chart_scroll = new QScrollArea(this);
  chart_scroll->setWidget(charts_);
  chart_scroll->setWidgetResizable(true);
  chart_scroll->setFrameShape(QFrame::NoFrame);
  lower_tabs_->addTab(chart_scroll, QString());
  lower_tabs_->addTab(statistics_, QString());
}

void CaptureInspector::bindPanes() {
  connect(charts_, &LatencyCharts::message, this, &CaptureInspector::message);
  connect(charts_, &LatencyCharts::requestClicked, this, [this](int, int request) { showStream(request); });
  connect(statistics_, &CaptureStatistics::message, this, &CaptureInspector::message);
  connect(statistics_, &CaptureStatistics::streamActivated, this, [this](std::uint32_t conn, std::uint32_t stream) {
    applyFilter(QString("conn:%1 stream:%2").arg(conn).arg(stream));
    lower_tabs_->setCurrentIndex(FrameTab);
  });
}

void CaptureInspector::layOut(QHBoxLayout* bar, QHBoxLayout* status_line) {
  // The frame list takes most of the tab; the panes below can be made small without the
  // docks around the tab giving way first.
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName("inspectorSplit");
  split->addWidget(frame_view_);
  split->addWidget(lower_tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  frame_view_->setMinimumHeight(frame_view_->verticalHeader()->defaultSectionSize() * 4);
  lower_tabs_->setMinimumHeight(fontMetrics().height() * 6);
  split->setSizes({3000, 2000});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->setSpacing(4);
  layout->addLayout(bar);
  layout->addLayout(status_line);
  truncated_ = new QLabel(this);
  truncated_->hide();
  layout->addWidget(truncated_);
  layout->addWidget(split, 1);
}

void CaptureInspector::bindBar() {
  poll_timer_->setInterval(50);
  connect(poll_timer_, &QTimer::timeout, this, &CaptureInspector::poll);
  connect(cancel_button_, &QPushButton::clicked, this, &CaptureInspector::cancelLoading);
  connect(diagnose_button_, &QPushButton::clicked, this, &CaptureInspector::diagnoseRequested);
  connect(export_button_, &QPushButton::clicked, this, &CaptureInspector::exportReportRequested);
  connect(filter_, &QLineEdit::returnPressed, this, [this] { applyFilter(filter_->text()); });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& t) {
    if (t.isEmpty()) applyFilter({});
  });
  connect(goto_, &QLineEdit::returnPressed, this, [this] {
    bool ok = false;
    const qulonglong n = goto_->text().trimmed().toULongLong(&ok);
    if (!ok) {
      showNotice([text = goto_->text()] { return tr("Go to frame: \"%1\" is not a frame number").arg(text); });
      return;
    }
    if (goToFrame(n)) {
      goto_->hide();
      frame_view_->setFocus();
    }
  });
}

void CaptureInspector::bindViews() {
  connect(frames_, &FrameTableModel::sortRequested, this, [this] { refreshRows(); });
  connect(frame_view_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QMenu* menu = contextMenuFor(frame_view_->indexAt(pos));
    menu->exec(frame_view_->viewport()->mapToGlobal(pos));
    menu->deleteLater();
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
            const QModelIndex source = sorted_connections_->mapToSource(current);
            if (source.isValid() && static_cast<std::size_t>(source.row()) < rows.size())
              connection_detail_->showConnection(rows[static_cast<std::size_t>(source.row())]);
          });
  connect(detail_, &FrameDetailView::fieldSelected, hex_, &HexView::setHighlight);
  connect(hex_, &HexView::byteClicked, this, &CaptureInspector::selectFieldAt);
}

CaptureInspector::~CaptureInspector() = default;  // the JobService drops the load and the filter, joined off this thread

// The inspector's moves, as Wireshark has them: in the View button's menu, the row's context
// menu and on the keyboard while this tab is shown.
void CaptureInspector::buildActions() {
  auto action = [this](const char* name, const QKeySequence& keys, auto slot) {
    auto* a = new QAction(this);
    a->setObjectName(name);
    a->setShortcut(keys);
    a->setShortcutContext(Qt::WindowShortcut);  // only while this tab is visible
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
  };
  focus_filter_action_ = action("focusFilter", QKeySequence::Find, [this] {
    filter_->setFocus(Qt::ShortcutFocusReason);
    filter_->selectAll();
  });
  apply_filter_action_ = action("applyFilter", QKeySequence(Qt::CTRL | Qt::Key_Return), [this] { applyFilter(filter_->text()); });
  auto* apply_enter = new QAction(this);  // the keypad's Enter too
  apply_enter->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Enter));
  connect(apply_enter, &QAction::triggered, apply_filter_action_, &QAction::trigger);
  addAction(apply_enter);
  goto_action_ = action("goToFrame", QKeySequence(Qt::CTRL | Qt::Key_G), [this] {
    goto_->show();
    goto_->setFocus(Qt::ShortcutFocusReason);
    goto_->selectAll();
  });
  mark_action_ = action("markFrame", QKeySequence(Qt::CTRL | Qt::Key_M), [this] { toggleMark(); });
  reference_action_ = action("timeReference", QKeySequence(Qt::CTRL | Qt::Key_T), [this] { toggleReference(); });
  statistics_action_ = action("showStatistics", QKeySequence(), [this] { lower_tabs_->setCurrentIndex(StatisticsTab); });
  // Ctrl+C copies rows only from the frame list: the fields and the JSON copy their text.
  copy_action_ = new QAction(this);
  copy_action_->setObjectName("copyRows");
  copy_action_->setShortcut(QKeySequence::Copy);
  copy_action_->setShortcutContext(Qt::WidgetShortcut);
  connect(copy_action_, &QAction::triggered, this, &CaptureInspector::copyRows);
  frame_view_->addAction(copy_action_);

  time_group_->setExclusive(true);
  const TimeFormat formats[] = {TimeFormat::TimeOfDay, TimeFormat::SinceStart, TimeFormat::SincePrevious,
                                TimeFormat::SinceReference};
  for (int i = 0; i < 4; ++i) {
    time_actions_[i] = time_group_->addAction(QString());
    time_actions_[i]->setCheckable(true);
    time_actions_[i]->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    time_actions_[i]->setShortcutContext(Qt::WindowShortcut);
    addAction(time_actions_[i]);
    connect(time_actions_[i], &QAction::triggered, this, [this, f = formats[i]] { setTimeFormat(f); });
  }
  time_actions_[1]->setChecked(true);
  view_menu_->addActions(time_group_->actions());
  view_menu_->addSeparator();
  view_menu_->addAction(reference_action_);
  view_menu_->addAction(mark_action_);
  view_menu_->addAction(goto_action_);
  view_menu_->addAction(focus_filter_action_);
  view_menu_->addSeparator();
  view_menu_->addAction(statistics_action_);
}

void CaptureInspector::retranslate() {
  filter_->setPlaceholderText(tr("Filter: conn:1 stream:3 type:STREAM_TOKEN text…  (Enter applies)"));
  goto_->setPlaceholderText(tr("Go to frame…"));
  cancel_button_->setText(tr("Cancel"));
  diagnose_button_->setText(tr("Diagnose this capture"));
  export_button_->setText(tr("Export report…"));
  export_button_->setToolTip(tr("Connections, TCP health and per-stream timing as HTML, PDF, Markdown or JSON"));
  view_button_->setText(tr("View"));
  view_button_->setToolTip(tr("Time format, time reference, marks, go to frame, statistics"));
  lower_tabs_->setTabText(FrameTab, tr("Frame"));
  lower_tabs_->setTabText(ConnectionsTab, tr("Connections"));
  lower_tabs_->setTabText(ChartsTab, tr("Charts"));
  lower_tabs_->setTabText(StatisticsTab, tr("Statistics"));
  charts_->setSeriesName(0, tr("streams"));
  time_actions_[0]->setText(tr("Time of day"));
  time_actions_[1]->setText(tr("Seconds since capture start"));
  time_actions_[2]->setText(tr("Seconds since previous displayed frame"));
  time_actions_[3]->setText(tr("Seconds since time reference"));
  reference_action_->setText(tr("Set / unset time reference"));
  mark_action_->setText(tr("Mark / unmark frame"));
  goto_action_->setText(tr("Go to frame…"));
  focus_filter_action_->setText(tr("Filter…"));
  apply_filter_action_->setText(tr("Apply filter"));
  statistics_action_->setText(tr("Statistics"));
  copy_action_->setText(tr("Copy rows"));
  if (status_text_) status_->setText(status_text_());
  if (notice_text_) notice_->setText(notice_text_());
  if (truncated_text_) truncated_->setText(truncated_text_());
  // The models translate their headers and a few cells ("*REF*") when asked; tell the views to ask again.
  emit frames_->headerDataChanged(Qt::Horizontal, 0, frame_column_count() - 1);
  if (frames_->rowCount() > 0)
    emit frames_->dataChanged(frames_->index(0, 0), frames_->index(frames_->rowCount() - 1, frame_column_count() - 1));
  emit connections_->headerDataChanged(Qt::Horizontal, 0, ConnectionsModel::ColumnCount - 1);
}

void CaptureInspector::setStatus(std::function<QString()> text) {
  status_text_ = std::move(text);
  status_->setText(status_text_ ? status_text_() : QString());
}

void CaptureInspector::showNotice(std::function<QString()> text) {
  notice_text_ = std::move(text);
  notice_->setText(notice_text_ ? notice_text_() : QString());
  notice_->setVisible(static_cast<bool>(notice_text_));
}

// A file cut short says so above its frames, not only in the log: where it ends and what it cut.
void CaptureInspector::showTruncation(const std::optional<CaptureTruncation>& cut) {
  truncated_->setObjectName("inspectorTruncation");
  truncated_->setWordWrap(true);
  truncated_->setStyleSheet("QLabel { background: #fff3cd; color: #5c4400; padding: 4px; }");
  truncated_text_ = nullptr;
  if (cut)
    truncated_text_ = [c = *cut] {
      return tr("Cut short: the file ends at byte %1, inside %2. The %3 packets before it are shown; nothing after was captured.")
          .arg(c.file_size)
          .arg(QString::fromStdString(c.record))
          .arg(c.packets_read);
    };
  truncated_->setText(truncated_text_ ? truncated_text_() : QString());
  truncated_->setVisible(static_cast<bool>(truncated_text_));
}

QString CaptureInspector::filterError() const { return notice_text_ ? notice_->text() : QString(); }

void CaptureInspector::open(const QString& path, const CaptureKeySources& keys) {
  jobs_->drop(load_job_);  // the previous load stops; its result is never shown
  load_job_ = 0;
  diagnose_button_->setEnabled(false);
  export_button_->setEnabled(false);
  stopFilter();
  path_ = path;
  keys_ = keys;
  showTruncation(std::nullopt);
  auto index = CaptureIndex::create();
  if (!index) {
    setStatus([text = QString::fromStdString(index.error().detail)] { return text; });
    emit loaded(false, status_->text());
    return;
  }
  index_ = *index;
  frames_->setIndex(index_);
  connections_->setConnections({});
  showTracerColumns();
  statistics_->setAnalysis(nullptr);
  detail_->clear();
  hex_->clear();
  load_progress_ = std::make_shared<LoadProgress>();
  progress_->setValue(0);
  progress_->show();
  cancel_button_->show();
  setStatus([name = QFileInfo(path).fileName()] { return tr("Loading %1…").arg(name); });
  load_job_ = jobs_->start([this, index = index_, progress = load_progress_, file = path.toStdString(), keys,
                            sorting = statistics_->sorting(), gui = thread()](JobContext& job) {
    const std::atomic<bool>& stop = job.stop;
    yield_to_gui_thread();  // this thread and the pass's lanes
    auto result = index->load(file, keys, [&](std::uint64_t done, std::uint64_t total) {
      progress->done = done;
      progress->total = total;
      return !stop.load();
    });
    // The statistics' rows are made here too: a big capture's would hold the GUI thread.
    auto tables = result ? CaptureStatistics::prepare(index->analysis(), sorting, gui) : nullptr;
    job.post([this, index, result, tables] {
      if (index == index_) finishLoading(result, tables);  // else a later open() replaced this load
    });
  });
  poll_timer_->start();
}

void CaptureInspector::cancelLoading() {
  if (load_job_) jobs_->stop(load_job_);  // what it has read is still shown
}

void CaptureInspector::poll() {
  if (!index_) return;
  frames_->poll();  // a filtered or sorted view takes no rows; loading's end makes it again
  const std::uint64_t done = load_progress_->done, total = load_progress_->total;
  if (total > 0) progress_->setValue(static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
  progress_->setFormat(tr("%1 frames").arg(index_->frame_count()));
  if (++polls_ % 10 == 0) connections_->setConnections(index_->connections());
  showTracerColumns();
  if (frames_->rowCount() > 0 && !frame_view_->currentIndex().isValid() && frames_->showsAll())
    selectFrame(frames_->frameAt(0));
}

// The session tracer's columns take room only in a capture with HTTP connections, a registered
// format's only in one with its connections.
void CaptureInspector::showTracerColumns() {
  const auto& conns = connections_->connections();
  const bool http = std::any_of(conns.begin(), conns.end(),
                                [](const CaptureConnection& c) { return c.transport == CaptureTransport::Http || c.http_requests > 0; });
  for (int c = FrameTableModel::FirstTracer; c < summary_column(); ++c) frame_view_->setColumnHidden(c, !http);
  // A registered format's columns, likewise in a capture with its connections.
  for (std::size_t at = 0; at < profile_columns().size(); ++at) {
    const ProfileId id = profile_columns()[at].profile;
    const bool spoken = std::any_of(conns.begin(), conns.end(), [id](const CaptureConnection& c) { return c.profile == id; });
    frame_view_->setColumnHidden(first_profile_column() + static_cast<int>(at), !spoken);
  }
  // Once loaded, a column no row fills gives its room to Summary.
  if (index_ && index_->finished())
    for (int c : empty_columns(*index_)) frame_view_->setColumnHidden(c, true);
}

void CaptureInspector::finishLoading(const Result<bool>& result, std::shared_ptr<CaptureStatistics::Prepared> tables) {
  poll_timer_->stop();
  load_job_ = 0;
  poll();  // the rows, progress and selection as the load left them
  connections_->setConnections(index_->connections());
  showTracerColumns();
  if (connections_->rowCount() > 0) connection_view_->selectRow(0);
  progress_->hide();
  cancel_button_->hide();
  const QString name = QFileInfo(path_).fileName();
  bool ok = static_cast<bool>(result);
  if (ok) {
    std::size_t opened = 0;
    for (const auto& c : index_->connections()) opened += connection_decrypted(c);
    setStatus([name, frames = index_->frame_count(), connections = index_->connections().size(), opened] {
      // English has no translator to pick a plural form: one connection is said in its own words.
      return connections == 1 ? tr("%1: %2 frames, 1 connection (%3 decrypted)").arg(name).arg(frames).arg(opened)
                              : tr("%1: %2 frames, %3 connections (%4 decrypted)").arg(name).arg(frames).arg(connections).arg(opened);
    });
    if (auto a = index_->analysis()) {
      for (const auto& w : a->warnings) emit message(QString::fromStdString(w));
      showTruncation(a->truncation);
    }
  } else {
    setStatus([text = QString::fromStdString(result.error().detail)] { return text; });
  }
  const QString text = status_->text();
  diagnose_button_->setEnabled(ok);
  export_button_->setEnabled(ok && index_ && index_->analysis());
  // The load ends (loaded()) once the charts hold every stream.
  fillCharts(std::move(tables), [this, ok, text] { endLoading(ok, text); });
}

void CaptureInspector::endLoading(bool ok, const QString& text) {
  if (pending_jump_) {
    auto [conn, stream] = *std::exchange(pending_jump_, std::nullopt);
    showConnectionStream(conn, stream);
  } else if (!active_filter_.isEmpty() || frames_->sorted()) {
    refreshRows();
  }
  emit message(text);
  emit loaded(ok, text);
}

void CaptureInspector::fillCharts(std::shared_ptr<CaptureStatistics::Prepared> tables, std::function<void()> done) {
  charts_->clear();
  chart_streams_.clear();
  auto analysis = index_ ? index_->analysis() : nullptr;
  statistics_->setAnalysis(nullptr);
  if (!analysis) return done();
  if (tables) statistics_->showPrepared(std::move(tables));
  else statistics_->setAnalysis(analysis);
  double first = -1;
  for (const auto& c : analysis->connections)
    for (const auto& s : c.streams)
      if (first < 0 || s.timeline.request_written < first) first = s.timeline.request_written;
  addChartPoints({analysis, first, 0, 0}, std::move(done));
}

// A slice of the streams' points (about kChartSlice ITL samples: each is bucketed for the
// histogram), then back through the event loop for the next: a big capture's millions of
// samples in one go held the GUI thread for a second. The index numbers connections as the
// analysis lists them. A later open() ends the chain.
void CaptureInspector::addChartPoints(ChartFill fill, std::function<void()> done) {
  constexpr std::size_t kChartSlice = 200'000;
  const auto& conns = fill.analysis->connections;
  std::vector<RunPoint> points;
  std::size_t samples = 0;
  for (; fill.conn < conns.size(); ++fill.conn, fill.stream = 0) {
    const ChartRun run = capture_run(conns[fill.conn].info, fill.first);
    for (; fill.stream < conns[fill.conn].streams.size() && samples < kChartSlice; ++fill.stream) {
      const RequestResult& s = conns[fill.conn].streams[fill.stream];
      points.push_back(request_point(s, run, s.timeline.request_written, static_cast<int>(chart_streams_.size())));
      chart_streams_.emplace_back(static_cast<std::uint32_t>(fill.conn), s.stream_id);
      samples += s.figures.itl_ms.size() + 1;
    }
    if (samples >= kChartSlice) break;
  }
  charts_->addPoints(points);
  if (fill.conn == conns.size()) return done();
  QTimer::singleShot(0, this, [this, fill, done = std::move(done)]() mutable {
    if (index_ && index_->analysis() == fill.analysis) addChartPoints(std::move(fill), std::move(done));
  });
}

void CaptureInspector::showStream(int request) {
  if (request < 0 || static_cast<std::size_t>(request) >= chart_streams_.size()) return;
  auto [conn, stream] = chart_streams_[static_cast<std::size_t>(request)];
  applyFilter(QString("conn:%1 stream:%2").arg(conn + 1).arg(stream));
  lower_tabs_->setCurrentIndex(FrameTab);
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
    lower_tabs_->setCurrentIndex(FrameTab);
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
    showNotice([text, shown = active_filter_] {
      FrameFilter unused;
      QString error;  // read again, so a language switch says it in the new language
      parse_frame_filter(text, unused, error);
      return shown.isEmpty() ? tr("Filter not applied: %1. The list still shows every frame.").arg(error)
                             : tr("Filter not applied: %1. The list still shows the frames of \"%2\".").arg(error, shown);
    });
    return;
  }
  filter_->setStyleSheet({});
  showNotice({});
  active_filter_ = filter.empty() ? QString() : text;
  frame_filter_ = std::move(filter);
  refreshRows();
}

// The rows shown: every frame in capture order, live while loading; or the filter's frames
// and/or the header's order, made on a worker.
void CaptureInspector::refreshRows() {
  if (!index_) return;
  stopFilter();
  if (frame_filter_.empty() && !frames_->sorted()) {
    showRows(std::nullopt);
    return;
  }
  const bool sorted = frames_->sorted();
  setStatus([filtering = !frame_filter_.empty()] { return filtering ? tr("Filtering…") : tr("Sorting…"); });
  filter_job_ = jobs_->start([this, filter = frame_filter_, column = frames_->sortColumn(), order = frames_->sortOrder(),
                              sorted, index = index_](JobContext& job) {
    const std::atomic<bool>& stop = job.stop;
    std::vector<std::uint32_t> rows;
    if (filter.empty()) {
      rows.resize(std::min<std::size_t>(index->frame_count(), std::numeric_limits<int>::max()));
      std::iota(rows.begin(), rows.end(), 0u);
    } else {
      rows = index->select(filter, &stop);
    }
    if (sorted && !stop) rows = sort_frames(*index, std::move(rows), column, order, &stop);
    if (stop) return;
    job.post([this, rows = std::move(rows)]() mutable { showRows(std::move(rows)); });  // a dropped filter's never arrive
  });
}

void CaptureInspector::showRows(std::optional<std::vector<std::uint32_t>> rows) {
  filter_job_ = 0;
  const auto keep = currentFrame();
  const bool filtered = !frame_filter_.empty();
  frames_->setSelection(std::move(rows));
  frames_->poll();
  const std::size_t shown = static_cast<std::size_t>(frames_->rowCount());
  setStatus([filtered, shown, total = index_->frame_count()] {
    return filtered ? tr("%1 of %2 frames").arg(shown).arg(total) : tr("%1 frames").arg(total);
  });
  // The frame shown below stays when the list still has it; else nothing is shown below.
  if (keep && frames_->rowOf(*keep) >= 0) {
    selectFrame(*keep);
  } else {
    detail_->clear();
    hex_->clear();
  }
}

// The filter under way stops, and its rows are never shown: they would replace what a later
// filter, a cleared filter or another capture shows.
void CaptureInspector::stopFilter() {
  jobs_->drop(filter_job_);
  filter_job_ = 0;
}

}  // namespace anthro::widgets
