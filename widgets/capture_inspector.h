// One capture file in the workbench: the frame list (filterable), the selected frame's fields
// and bytes, the connections with their decryption status, loading with progress and Cancel.
// The index is built on a worker thread; the UI thread polls it for the growing frame list and
// the progress bar, and gets the load's result posted, so it never blocks on file I/O or
// decryption.
#pragma once

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "capture/capture_index.h"
#include "capture_statistics.h"
#include "frame_filter.h"
#include "job_service.h"
#include "frame_table_model.h"

class QAction;
class QActionGroup;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;
class QToolButton;

namespace anthro::widgets {

class ConnectionDetailView;
class ConnectionsModel;
class FrameDetailView;
class HexView;
class LatencyCharts;

class CaptureInspector : public QWidget {
  Q_OBJECT
 public:
  explicit CaptureInspector(QWidget* parent = nullptr);
  ~CaptureInspector() override;

  // Starts loading `path` with `keys` (plus the capture's own DSB keys). Errors are reported
  // through loaded() and shown inline.
  void open(const QString& path, const CaptureKeySources& keys);
  QString path() const { return path_; }
  const CaptureKeySources& keys() const { return keys_; }
  bool loading() const { return load_job_ != 0; }
  void cancelLoading();

  // "conn:2 stream:7 type:STREAM_TOKEN some text": every part optional. Empty shows all. A
  // filter that cannot be read is refused: the list keeps what it showed, and filterError()
  // says why and what the list still shows. The selected frame stays selected when it still
  // matches; otherwise nothing is selected and the detail panes are empty.
  void applyFilter(const QString& filter);
  bool filtering() const { return filter_job_ != 0; }
  QString filterError() const;  // empty when the last filter was applied
  QString appliedFilter() const { return active_filter_; }
  void selectFrame(std::size_t frame);
  // Selects frame `number` (from 1, as the No. column); false, with the reason in
  // filterError(), when there is no such frame or the filter hides it.
  bool goToFrame(std::size_t number);
  void setTimeFormat(TimeFormat format);
  // Toggles the time reference / the mark on the current frame.
  void toggleReference();
  void toggleMark();
  // The selected rows (header first, tab-separated) to the clipboard.
  void copyRows();
  // The context menu of a frame row (`index` under the mouse); the caller owns it.
  QMenu* contextMenuFor(const QModelIndex& index);
  // Filters to the frames of the connection named `conn` (as the analysis names it), of
  // `stream` (-1: every stream); waits for the load to end when the file is still loading.
  void showConnectionStream(const QString& conn, int stream);

  std::shared_ptr<const CaptureIndex> index() const { return index_; }
  FrameTableModel* frames() const { return frames_; }
  ConnectionsModel* connections() const { return connections_; }
  ConnectionDetailView* connectionDetail() const { return connection_detail_; }
  QTableView* frameView() const { return frame_view_; }
  FrameDetailView* detailView() const { return detail_; }
  HexView* hexView() const { return hex_; }
  QTabWidget* lowerTabs() const { return lower_tabs_; }
  // The capture's streams on the same charts as a live session (filled when loading ends).
  LatencyCharts* charts() const { return charts_; }
  CaptureStatistics* statistics() const { return statistics_; }
  QLineEdit* filterEdit() const { return filter_; }
  QLabel* noticeLabel() const { return notice_; }
  QLabel* truncationBanner() const { return truncated_; }  // shown when the file ends inside a record
  // The filter the row context menu's "Filter on this value" applies for a frame's column.
  QString filterFor(std::size_t frame, int column) const;

 signals:
  void loaded(bool ok, const QString& message);
  void message(const QString& text);  // for the log panel
  void diagnoseRequested();           // "Diagnose this capture" was clicked
  void exportReportRequested();       // "Export report…" was clicked

 private:
  // A load's byte counts, for the progress bar; each load has its own.
  struct LoadProgress {
    std::atomic<std::uint64_t> done{0}, total{0};
  };

  void poll();
  void finishLoading(const Result<bool>& result, std::shared_ptr<CaptureStatistics::Prepared> tables);
  void showTracerColumns();
  void showCurrentFrame();
  void selectFieldAt(qsizetype offset);
  bool eventFilter(QObject* watched, QEvent* event) override;
  // The constructor's parts, in order.
  void setupBar(QHBoxLayout*& bar, QHBoxLayout*& status_line);
  void setupFrameView();
  void setupConnectionView();
  void buildLowerTabs();
  void bindPanes();
  void layOut(QHBoxLayout* bar, QHBoxLayout* status_line);
  void bindBar();
  void bindViews();
  void buildActions();
  void retranslate();
  // The status line and the notice are remade on a language switch: they keep how to say it.
  void setStatus(std::function<QString()> text);
  void showNotice(std::function<QString()> text);
  void showTruncation(const std::optional<CaptureTruncation>& cut);
  void refreshRows();
  void showRows(std::optional<std::vector<std::uint32_t>> rows);
  std::optional<std::size_t> currentFrame() const;
  void stopFilter();
  void endLoading(bool ok, const QString& text);
  // The charts and statistics of the finished load (its statistics tables when made on the
  // worker); `done` once the charts hold every stream.
  void fillCharts(std::shared_ptr<CaptureStatistics::Prepared> tables, std::function<void()> done);
  struct ChartFill {
    std::shared_ptr<const CaptureAnalysis> analysis;
    double first = 0;  // the first request's time, the charts' zero
    std::size_t conn = 0, stream = 0;  // the next stream to add
  };
  void addChartPoints(ChartFill fill, std::function<void()> done);
  void showStream(int request);

  QString path_;
  CaptureKeySources keys_;
  std::shared_ptr<CaptureIndex> index_;
  JobId load_job_ = 0, filter_job_ = 0;  // the current load and filter, until their results are shown
  std::shared_ptr<LoadProgress> load_progress_;
  QString active_filter_;
  FrameFilter frame_filter_;  // active_filter_, parsed

  FrameTableModel* frames_;
  ConnectionsModel* connections_;
  QSortFilterProxyModel* sorted_connections_ = nullptr;  // the connection list's order
  QLineEdit* filter_;
  QProgressBar* progress_;
  QPushButton* cancel_button_;
  QPushButton* diagnose_button_;
  QPushButton* export_button_;
  std::optional<std::pair<QString, int>> pending_jump_;  // showConnectionStream during a load
  QLabel* status_;
  std::function<QString()> status_text_, notice_text_;
  QLabel* notice_;  // a refused filter or go-to, until the next one succeeds
  QLabel* truncated_ = nullptr;  // what a cut-short file lost, above the frames
  std::function<QString()> truncated_text_;
  QLineEdit* goto_;
  QToolButton* view_button_;
  QMenu* view_menu_;
  QActionGroup* time_group_;
  QAction* time_actions_[4];
  QAction *copy_action_, *mark_action_, *reference_action_, *goto_action_, *focus_filter_action_,
      *apply_filter_action_, *statistics_action_;
  QTableView* frame_view_;
  QTableView* connection_view_;
  ConnectionDetailView* connection_detail_;
  FrameDetailView* detail_;
  HexView* hex_;
  QTabWidget* lower_tabs_;
  LatencyCharts* charts_;
  CaptureStatistics* statistics_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> chart_streams_;  // request id -> (connection, stream)
  QTimer* poll_timer_;
  int polls_ = 0;
  JobService* jobs_;  // the load and the filter run here
};


}  // namespace anthro::widgets
