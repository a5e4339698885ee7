// The workbench's main window: a welcome page, one tab per open capture (the inspector), the
// live session, Diagnosis and Rollout pages, the keys panel and the log. It owns the embedded local endpoint, started
// with the window on free loopback ports, so a new session needs no configuration.
#pragma once

#include <QMainWindow>
#include <memory>
#include <string>
#include <vector>

#include "capture/analysis.h"
#include "page_tabs.h"
#include "report_dialog.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;

namespace anthro {
class Endpoint;
}

namespace anthro::widgets {
class CaptureDialog;
class CaptureInspector;
class ComparePage;
class DiagnosisPage;
class KeysPanel;
class ReportDialog;
class RolloutPage;
class SessionPanel;
}  // namespace anthro::widgets

namespace anthro::gui {

// `from` copied to `to` through a temporary file renamed at the end; the error, or empty.
QString copy_file(const QString& from, const QString& to);

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `endpoint_faults` as on the command line ("stall=800@10"): the embedded endpoint misbehaves
  // on demand, for demonstrations and the diagnosis tests.
  explicit MainWindow(QWidget* parent = nullptr, std::vector<std::string> endpoint_faults = {});
  ~MainWindow() override;

  // Opens a capture in a new tab with the key files given plus those of the keys panel. A file
  // that is no pcap or pcapng (a PEM key, a key log, anything else) is refused with a message
  // box saying what it is and what to do instead: null, no tab, no Recent entry.
  widgets::CaptureInspector* openCapture(const QString& path, const QStringList& keylogs = {},
                                         const QStringList& server_keys = {});
  widgets::CaptureInspector* currentInspector() const;
  widgets::SessionPanel* sessionPanel() const { return session_; }
  widgets::KeysPanel* keysPanel() const { return keys_; }
  widgets::DiagnosisPage* diagnosisPage() const { return diagnosis_; }
  widgets::RolloutPage* rolloutPage() const { return rollout_; }
  widgets::ComparePage* comparePage() const { return compare_; }
  QDockWidget* keysDock() const { return keys_dock_; }
  QDockWidget* logDock() const { return log_dock_; }
  PageTabs* tabs() const { return tabs_; }
  // The embedded endpoint's URL for a scheme (anthro, anthro+lab, http, https), or empty.
  QString endpointUrl(const QString& scheme) const;
  // Appends to the log panel (errors never open a dialog).
  void log(const QString& text);
  QString logText() const;
  void showPage(QWidget* page);

  // File → Export report…: the result of `page` (null: the current tab) in the export dialog,
  // opened window-modal; null (and a line in the log) when the page holds no result.
  widgets::ReportDialog* exportReport(QWidget* page = nullptr);
  QAction* exportReportAction() const { return export_report_action_; }
  // `page` when it holds a result to report: the Diagnosis page after a run, the Rollout page
  // with a result, a loaded capture, the live session page after a session or a load, the Compare
  // page after a comparison.
  bool hasReport(QWidget* page) const;
  // Session → Start Capture…: the capture dialog (one, kept), shown; its capture opens in a tab.
  widgets::CaptureDialog* startCapture();

  // What closing the window would lose (app/gui/unsaved_work.cpp): the captures its pages made
  // that nobody saved, the pages whose result is neither saved nor exported, the runs going on.
  QStringList unsavedCaptures() const;
  QList<QWidget*> unsavedResults() const;
  QStringList runningWork() const;

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void retranslate();
  void startEndpoint(const std::vector<std::string>& faults);
  void connectDiagnosis();
  void refreshDiagnosisSources();
  void jumpToFrames(const QString& capture, const QString& conn, int stream);
  void openCaptureDialog();
  void closeTab(int index);
  void saveCaptureAs();
  // Says why `path` is no capture (a key suggests adding it as one); no tab, no Recent entry.
  void refuseCapture(const QString& path);
  QString tabNameFor(const QString& path) const;
  void removeRecent(const QString& path);
  void addRecent(const QString& path);
  void updateRecentMenu();
  void reloadCapturesWithKeys();
  CaptureKeySources keySources() const;  // the keys panel's files
  void setLanguage(const QString& locale);
  void fitToCurrentPage();
  void keepDocksSmall();
  void updateExportAction();
  widgets::ReportDialog::ResultJob resultJob(QWidget* page) const;
  // Never lose work: closing asks, as Wireshark does, when something would be lost.
  void markResultSaved(QWidget* page);
  void markCaptureSaved(const QString& path);
  bool mayClose();
  bool mayCloseCapture(const QString& path);
  bool saveAllInto(const QString& dir);
  void stopRuns();
  void discardOwnCaptures();

  std::unique_ptr<Endpoint> endpoint_;
  bool adding_keys_ = false;
  bool docks_settled_ = false;
  bool closing_ = false;             // asked and answered: runs end without opening tabs
  // Every capture the pages made, in the process's capture directory: removed from there once
  // the person has saved or discarded what it holds (the pages know which are unsaved).
  QStringList made_captures_;
  PageTabs* tabs_;
  QWidget* welcome_;
  widgets::SessionPanel* session_;
  widgets::DiagnosisPage* diagnosis_;
  widgets::RolloutPage* rollout_;
  widgets::ComparePage* compare_;
  widgets::KeysPanel* keys_;
  QPlainTextEdit* log_;
  QDockWidget* keys_dock_;
  QDockWidget* log_dock_;
  QLabel* endpoint_label_;
  widgets::CaptureDialog* capture_dialog_ = nullptr;
  QMenu* file_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* session_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* language_menu_ = nullptr;
  QMenu* help_menu_ = nullptr;
  QAction* open_action_ = nullptr;
  QAction* export_report_action_ = nullptr;
  QAction* save_capture_action_ = nullptr;
  QAction* close_tab_action_ = nullptr;
  QAction* add_keylog_action_ = nullptr;
  QAction* add_pem_action_ = nullptr;
  QAction* quit_action_ = nullptr;
  QAction* new_session_action_ = nullptr;
  QAction* start_capture_action_ = nullptr;
  QAction* diagnose_action_ = nullptr;
  QAction* rollout_action_ = nullptr;
  QAction* compare_action_ = nullptr;
  QAction* about_action_ = nullptr;
};

}  // namespace anthro::gui
