// One capture file in the workbench: the frame list (filterable), the selected frame's fields
// and bytes, the connections with their decryption status, loading with progress and Cancel.
// The index is built on a worker thread; the UI thread polls it for the growing frame list and
// the progress bar, and gets the load's result posted, so it never blocks on file I/O or
// decryption.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "capture/capture_index.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTimer;

namespace anthro::widgets {

class ConnectionDetailView;
class ConnectionsModel;
class FrameDetailView;
class FrameTableModel;
class HexView;
class Inbox;
class LatencyCharts;
class Worker;

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
  bool loading() const { return loader_ != nullptr; }
  void cancelLoading();

  // "conn:2 stream:7 type:STREAM_TOKEN some text": every part optional. Empty shows all.
  void applyFilter(const QString& filter);
  bool filtering() const { return filter_worker_ != nullptr; }
  void selectFrame(std::size_t frame);
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
  void finishLoading(const Result<bool>& result);
  void showCurrentFrame();
  void selectFieldAt(qsizetype offset);
  void runFilter(FrameFilter filter);
  void showFiltered(std::vector<std::uint32_t> rows);
  void stopFilter();
  void fillCharts();
  void showStream(int request);

  QString path_;
  CaptureKeySources keys_;
  std::shared_ptr<CaptureIndex> index_;
  std::unique_ptr<Worker> loader_, filter_worker_;  // the current load and filter, until their results are shown
  std::shared_ptr<LoadProgress> load_progress_;
  int filter_run_ = 0;  // numbers the filters, so only the last one's rows are shown
  QString active_filter_;

  FrameTableModel* frames_;
  ConnectionsModel* connections_;
  QLineEdit* filter_;
  QProgressBar* progress_;
  QPushButton* cancel_button_;
  QPushButton* diagnose_button_;
  QPushButton* export_button_;
  std::optional<std::pair<QString, int>> pending_jump_;  // showConnectionStream during a load
  QLabel* status_;
  QTableView* frame_view_;
  QTableView* connection_view_;
  ConnectionDetailView* connection_detail_;
  FrameDetailView* detail_;
  HexView* hex_;
  QTabWidget* lower_tabs_;
  LatencyCharts* charts_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> chart_streams_;  // request id -> (connection, stream)
  QTimer* poll_timer_;
  int polls_ = 0;
  std::shared_ptr<Inbox> inbox_;
};

// Parses the filter syntax of CaptureInspector::applyFilter; false with `error` set when a
// part cannot be read (e.g. "conn:x").
bool parse_frame_filter(const QString& text, FrameFilter& filter, QString& error);

}  // namespace anthro::widgets
