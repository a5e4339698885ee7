#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

#include <unistd.h>

#include <sstream>

#include "capture/capture_file.h"
#include "capture_dialog.h"
#include "capture_inspector.h"
#include "compare_page.h"
#include "crypto/keylog.h"
#include "diagnosis/diagnosis.h"
#include "diagnosis_page.h"
#include "endpoint/endpoint.h"
#include "file_dialog.h"
#include "gui_thread.h"
#include "keys_panel.h"
#include "language.h"
#include "model/faults.h"
#include "report_dialog.h"
#include "retranslator.h"
#include "rollout/rollout.h"
#include "rollout_page.h"
#include "session/bench.h"
#include "session/session.h"
#include "session_panel.h"
#include "util/files.h"
#include "welcome_page.h"

namespace anthro::gui {
namespace {

constexpr int kMaxRecent = 10;


// What a file given as a capture is, from its first bytes.
enum class FileKind { Capture, PemKey, KeyLog, Other };

FileKind file_kind(const QString& path, QString& error) {
  auto reader = CaptureReader::open(path.toStdString());
  if (reader) return FileKind::Capture;
  error = QString::fromStdString(reader.error().detail);
  const auto head = read_file_start(path.toStdString(), 64 * 1024);
  if (!head) return FileKind::Other;
  if (head->find("-----BEGIN ") != std::string::npos) return FileKind::PemKey;
  const KeyLog log = parse_keylog(*head, "");
  return log.anthro.empty() && log.tls.empty() ? FileKind::Other : FileKind::KeyLog;
}

}  // namespace

// A copy written to a temporary file and renamed, so a failed save leaves nothing behind. The
// source is opened as every file read is (a FIFO put in the capture's place would block QFile).
QString copy_file(const QString& from, const QString& to) {
  auto fd = open_regular_file(from.toStdString());
  if (!fd) return QString::fromStdString(fd.error().detail);
  QFile in;
  if (!in.open(*fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
    ::close(*fd);
    return in.errorString();
  }
  QSaveFile out(to);
  if (!out.open(QIODevice::WriteOnly)) return out.errorString();
  while (!in.atEnd()) {
    const QByteArray block = in.read(1 << 20);
    if (block.isEmpty() && in.error() != QFileDevice::NoError) return in.errorString();
    if (out.write(block) != block.size()) return out.errorString();
  }
  return out.commit() ? QString() : out.errorString();
}

MainWindow::MainWindow(QWidget* parent, std::vector<std::string> endpoint_faults)
    : QMainWindow(parent),
      tabs_(new PageTabs(this)),
      welcome_(nullptr),
      session_(new widgets::SessionPanel(this)),
      diagnosis_(new widgets::DiagnosisPage(this)),
      rollout_(new widgets::RolloutPage(this)),
      compare_(new widgets::ComparePage(this)),
      keys_(new widgets::KeysPanel(this)),
      log_(new QPlainTextEdit(this)),
      keys_dock_(new QDockWidget(this)),
      log_dock_(new QDockWidget(this)),
      endpoint_label_(new QLabel(this)) {
  setObjectName("MainWindow");
  setAcceptDrops(true);
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  tabs_->setMovable(true);
  // A page taller than a laptop's screen scrolls in its tab instead of growing the window past
  // it; every page fits 1024 px in width, so only the vertical bar ever shows.
  setCentralWidget(tabs_);

  auto* welcome = new WelcomePage(this);
  welcome_ = welcome;
  tabs_->addPage(welcome_, QString());
  tabs_->addPage(session_, QString());
  tabs_->addPage(diagnosis_, QString());
  tabs_->addPage(rollout_, QString());
  tabs_->addPage(compare_, QString());
  for (int i = 0; i < 5; ++i) tabs_->tabBar()->setTabButton(i, QTabBar::RightSide, nullptr);  // fixed pages
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    fitToCurrentPage();
    updateExportAction();
    if (tabs_->currentPage() == diagnosis_) refreshDiagnosisSources();
    if (tabs_->currentPage() == compare_) compare_->setKeys(keySources());
    if (auto* inspector = currentInspector(); inspector && inspector->index() && inspector->index()->finished()) {
      auto a = inspector->index()->analysis();
      keys_->showCapture(inspector->path(), inspector->index()->connections(),
                         a ? a->embedded_keylogs : std::vector<std::string>{});
    }
  });

  log_->setReadOnly(true);
  log_->setObjectName("log");
  log_->setMaximumBlockCount(5000);
  log_dock_->setObjectName("logDock");
  log_dock_->setWidget(log_);
  keys_dock_->setObjectName("keysDock");
  keys_dock_->setWidget(keys_);
  // Both at the bottom, tabbed: the pages keep the full width for tables and charts.
  addDockWidget(Qt::BottomDockWidgetArea, log_dock_);
  addDockWidget(Qt::BottomDockWidgetArea, keys_dock_);
  tabifyDockWidget(log_dock_, keys_dock_);
  log_dock_->raise();
  statusBar()->addPermanentWidget(endpoint_label_);

  connect(keys_, &widgets::KeysPanel::message, this, &MainWindow::log);
  connect(keys_, &widgets::KeysPanel::keysChanged, this, &MainWindow::reloadCapturesWithKeys);
  connect(session_, &widgets::SessionPanel::message, this, &MainWindow::log);
  connect(rollout_, &widgets::RolloutPage::message, this, &MainWindow::log);
  connect(compare_, &widgets::ComparePage::message, this, &MainWindow::log);
  connect(compare_, &widgets::ComparePage::finished, this, &MainWindow::updateExportAction);
  // Each page's "Export report…" and the File menu's open the same dialog.
  connect(session_, &widgets::SessionPanel::exportReportRequested, this, [this] { exportReport(session_); });
  connect(diagnosis_, &widgets::DiagnosisPage::exportReportRequested, this, [this] { exportReport(diagnosis_); });
  connect(rollout_, &widgets::RolloutPage::exportReportRequested, this, [this] { exportReport(rollout_); });
  connect(session_, &widgets::SessionPanel::sessionFinished, this, &MainWindow::updateExportAction);
  connect(session_, &widgets::SessionPanel::loadFinished, this, &MainWindow::updateExportAction);
  connect(diagnosis_, &widgets::DiagnosisPage::finished, this, &MainWindow::updateExportAction);
  connect(rollout_, &widgets::RolloutPage::stateChanged, this, &MainWindow::updateExportAction);
  connect(session_, &widgets::SessionPanel::captureReady, this, [this](const QString& path) {
    log(tr("Session capture written to %1").arg(path));
    made_captures_ << path;
    if (!closing_) openCapture(path);
  });
  connect(session_, &widgets::SessionPanel::streamClicked, this, [this](const QString& capture, std::uint32_t stream) {
    for (int i = 0; i < tabs_->count(); ++i)
      if (auto* inspector = qobject_cast<widgets::CaptureInspector*>(tabs_->page(i)); inspector && inspector->path() == capture) {
        showPage(inspector);
        inspector->applyFilter(QString("stream:%1").arg(stream));
        return;
      }
    log(tr("The capture %1 is no longer open").arg(capture));
  });
  connect(welcome, &WelcomePage::openCaptureRequested, this, &MainWindow::openCaptureDialog);
  connect(welcome, &WelcomePage::newSessionRequested, this, [this] { showPage(session_); });
  connect(welcome, &WelcomePage::startCaptureRequested, this, &MainWindow::startCapture);
  connect(welcome, &WelcomePage::recentRequested, this, [this](const QString& path) { openCapture(path); });

  fitToCurrentPage();
  connectDiagnosis();
  buildMenus();
  startEndpoint(endpoint_faults);
  (new widgets::Retranslator(this))->add([this] { retranslate(); });
  updateRecentMenu();

  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1400, 900);
  // Never larger than the screen it opens on (a laptop's, or a smaller one than last time).
  if (QScreen* s = screen()) resize(size().boundedTo(s->availableGeometry().size()));
  if (!restoreState(settings.value("window/state").toByteArray()))
    resizeDocks({log_dock_}, {fontMetrics().height() * (height() < 800 ? 4 : 8)}, Qt::Vertical);
}

MainWindow::~MainWindow() {
  // Pages tell their sessions and loads to stop before the endpoint they talk to stops; the
  // endpoint tells the connections still open why they end.
  delete tabs_;
  tabs_ = nullptr;
  if (endpoint_) endpoint_->stop();
}

void MainWindow::startEndpoint(const std::vector<std::string>& faults) {
  EndpointConfig config;
  config.tls_listen = "127.0.0.1:0";
  config.lab_listen = "127.0.0.1:0";
  config.http_listen = "127.0.0.1:0";
  offer_embedded_formats(config);
  config.model.ttft = {150, 40, true};
  config.model.itl = {12, 3};
  if (auto parsed = parse_faults(faults)) config.model.faults = *parsed;
  else log(tr("Endpoint faults ignored: %1").arg(QString::fromStdString(parsed.error().detail)));
  // From the endpoint's thread, which stop() joins before this window goes.
  config.on_log = [this](const std::string& line) {
    widgets::post_to(this, [this, text = QString::fromStdString(line)] { log(tr("Embedded endpoint: %1").arg(text)); });
  };
  auto started = Endpoint::start(config);
  if (!started) {
    log(tr("The embedded endpoint did not start: %1").arg(QString::fromStdString(started.error().detail)));
    return;
  }
  endpoint_ = std::move(*started);
  // Each format's own emulation by its schemes; the Diagnosis page takes their cleartext ones.
  QStringList own, own_cleartext;
  for (const Profile* p : own_port_formats())
    for (const ProfileScheme& s : p->schemes) (s.tls ? own : own_cleartext) << endpointUrl(QString::fromUtf8(s.name.data(), static_cast<int>(s.name.size())));
  session_->setEmbeddedTargets(QStringList{endpointUrl("anthro"), endpointUrl("anthro+lab"), endpointUrl("https") + "/v1/messages",
                                           endpointUrl("http") + "/v1/messages"} + own + own_cleartext);
  diagnosis_->setTargets(QStringList{endpointUrl("anthro"), endpointUrl("anthro+lab"), endpointUrl("https") + "/v1/messages"} +
                         own_cleartext);
  // The rollout moves traffic from the HTTP baseline to anthro-v1, as anthro-v1's plan does.
  rollout_->setEmbeddedTargets({endpointUrl("https") + "/v1/messages", endpointUrl("http") + "/v1/messages", endpointUrl("anthro"),
                        endpointUrl("anthro+lab")});
  rollout_->setBaseline(endpointUrl("https") + "/v1/messages");
  rollout_->setCandidate(endpointUrl("anthro"));
  rollout_->setProfileTargets("", endpointUrl("https") + "/v1/messages", endpointUrl("anthro"));
  // A plan of a format riding on HTTP rehearses on the cleartext Messages API, as `rollout` does.
  for (const Profile* p : profiles())
    if (p->rides_on == "http" && !p->rollout_plan_id.empty())
      rollout_->setProfileTargets(QString::fromUtf8(p->name.data(), static_cast<int>(p->name.size())),
                                  endpointUrl("http") + "/v1/messages", endpointUrl("http") + "/v1/messages");
  Endpoint* served = endpoint_.get();
  rollout_->setEmbeddedMetrics([served] { return served->metrics_text(); });
  log(tr("Embedded endpoint: %1 (TLS), %2 (lab), %3 (HTTP baseline)")
          .arg(endpointUrl("anthro"), endpointUrl("anthro+lab"), endpointUrl("http")));
  if (!faults.empty()) log(tr("Embedded endpoint faults: %1").arg(QString::fromStdString(describe(config.model.faults))));
}

// The Diagnosis page reaches the inspector (its run's capture, evidence jumps) and is reached
// from a loaded capture and from the end of a live load.
void MainWindow::connectDiagnosis() {
  connect(diagnosis_, &widgets::DiagnosisPage::message, this, &MainWindow::log);
  connect(diagnosis_, &widgets::DiagnosisPage::captureReady, this, [this](const QString& path) {
    log(tr("Diagnosis capture written to %1").arg(path));
    made_captures_ << path;
    if (closing_) return;
    QWidget* shown = tabs_->currentPage();
    openCapture(path);
    showPage(shown);  // the person is reading verdicts: the capture waits in its tab
  });
  connect(diagnosis_, &widgets::DiagnosisPage::jumpToFrames, this, &MainWindow::jumpToFrames);
  connect(session_, &widgets::SessionPanel::diagnoseRequested, this, [this](const QString& target) {
    diagnosis_->setTarget(target);
    diagnosis_->setUseLive(true);
    showPage(diagnosis_);
    log(tr("Diagnosis of %1: pick the sources and run it").arg(target));
  });
}

void MainWindow::refreshDiagnosisSources() {
  std::vector<std::pair<QString, CaptureKeySources>> open;
  for (int i = 0; i < tabs_->count(); ++i)
    if (auto* inspector = qobject_cast<widgets::CaptureInspector*>(tabs_->page(i)))
      open.emplace_back(inspector->path(), inspector->keys());
  diagnosis_->setOpenCaptures(open, keySources());
}

void MainWindow::jumpToFrames(const QString& capture, const QString& conn, int stream) {
  widgets::CaptureInspector* target = nullptr;
  for (int i = 0; i < tabs_->count() && !target; ++i)
    if (auto* inspector = qobject_cast<widgets::CaptureInspector*>(tabs_->page(i)); inspector && inspector->path() == capture)
      target = inspector;
  if (!target) target = openCapture(capture);
  if (!target) return;  // refused, with its reason
  showPage(target);
  target->showConnectionStream(conn, stream);
}

QString MainWindow::endpointUrl(const QString& scheme) const {
  return endpoint_ ? QString::fromStdString(endpoint_->url(scheme.toStdString())) : QString();
}

void MainWindow::buildMenus() {
  file_menu_ = menuBar()->addMenu(QString());
  open_action_ = file_menu_->addAction(QString(), QKeySequence::Open, this, &MainWindow::openCaptureDialog);
  recent_menu_ = file_menu_->addMenu(QString());
  save_capture_action_ = file_menu_->addAction(QString(), QKeySequence::SaveAs, this, &MainWindow::saveCaptureAs);
  close_tab_action_ = file_menu_->addAction(QString(), QKeySequence::Close, this, [this] { closeTab(tabs_->currentIndex()); });
  file_menu_->addSeparator();
  export_report_action_ = file_menu_->addAction(QString(), this, [this] { exportReport(); });
  connect(file_menu_, &QMenu::aboutToShow, this, &MainWindow::updateExportAction);
  file_menu_->addSeparator();
  // The keys panel's own buttons do the same.
  add_keylog_action_ = file_menu_->addAction(QString(), keys_->addKeylogButton(), &QPushButton::click);
  add_pem_action_ = file_menu_->addAction(QString(), keys_->addServerKeyButton(), &QPushButton::click);
  file_menu_->addSeparator();
  quit_action_ = file_menu_->addAction(QString(), QKeySequence::Quit, this, &QWidget::close);

  session_menu_ = menuBar()->addMenu(QString());
  new_session_action_ = session_menu_->addAction(QString(), QKeySequence::New, this, [this] { showPage(session_); });
  start_capture_action_ = session_menu_->addAction(QString(), this, &MainWindow::startCapture);
  diagnose_action_ = session_menu_->addAction(QString(), this, [this] { showPage(diagnosis_); });
  rollout_action_ = session_menu_->addAction(QString(), this, [this] { showPage(rollout_); });
  compare_action_ = session_menu_->addAction(QString(), this, [this] { showPage(compare_); });

  view_menu_ = menuBar()->addMenu(QString());
  view_menu_->addAction(keys_dock_->toggleViewAction());
  view_menu_->addAction(log_dock_->toggleViewAction());
  language_menu_ = view_menu_->addMenu(QString());
  auto* group = new QActionGroup(this);
  for (auto [code, name] : {std::pair{"en", "English"}, std::pair{"zh_CN", "简体中文"}}) {
    QAction* a = language_menu_->addAction(QString::fromUtf8(name));
    a->setCheckable(true);
    a->setData(QString::fromLatin1(code));
    a->setChecked(current_language() == QLatin1String(code));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, a] { setLanguage(a->data().toString()); });
  }

  help_menu_ = menuBar()->addMenu(QString());
  about_action_ = help_menu_->addAction(QString(), this, [this] {
    QMessageBox::about(this, tr("About anthro-v1 Workbench"),
                       tr("<h3>anthro-v1 Workbench %1</h3><p>Live sessions, captures and latency diagnosis for "
                          "anthro-v1 and the HTTP Messages API it replaces.</p><p>Qt %2, QCustomPlot, OpenSSL, "
                          "libsodium, libpcap.</p>")
                           .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
  });
}

void MainWindow::retranslate() {
  setWindowTitle(tr("anthro-v1 Workbench"));
  tabs_->setTabText(tabs_->indexOfPage(welcome_), tr("Welcome"));
  tabs_->setTabText(tabs_->indexOfPage(session_), tr("Live session"));
  tabs_->setTabText(tabs_->indexOfPage(diagnosis_), tr("Diagnosis"));
  tabs_->setTabText(tabs_->indexOfPage(rollout_), tr("Rollout"));
  tabs_->setTabText(tabs_->indexOfPage(compare_), tr("Compare"));
  diagnosis_->setLanguage(current_language());
  rollout_->setLanguage(current_language());
  keys_dock_->setWindowTitle(tr("Keys"));
  log_dock_->setWindowTitle(tr("Log"));
  file_menu_->setTitle(tr("&File"));
  open_action_->setText(tr("&Open Capture…"));
  recent_menu_->setTitle(tr("Open &Recent"));
  save_capture_action_->setText(tr("Save Capture &As…"));
  save_capture_action_->setToolTip(tr("A copy of the capture shown (a session's capture lives in a temporary directory)"));
  close_tab_action_->setText(tr("&Close Tab"));
  export_report_action_->setText(tr("&Export Report…"));
  export_report_action_->setToolTip(tr("The current tab's result as an HTML, PDF, Markdown or JSON report"));
  add_keylog_action_->setText(tr("Add &Key Log…"));
  add_pem_action_->setText(tr("Add &Server Key (PEM)…"));
  quit_action_->setText(tr("&Quit"));
  session_menu_->setTitle(tr("&Session"));
  new_session_action_->setText(tr("&New Live Session"));
  start_capture_action_->setText(tr("Start &Capture…"));
  diagnose_action_->setText(tr("&Diagnose Latency…"));
  rollout_action_->setText(tr("&Rollout Rehearsal…"));
  compare_action_->setText(tr("C&ompare Two Results…"));
  view_menu_->setTitle(tr("&View"));
  language_menu_->setTitle(tr("&Language"));
  help_menu_->setTitle(tr("&Help"));
  about_action_->setText(tr("&About"));
  endpoint_label_->setText(endpoint_ ? tr("Embedded endpoint %1").arg(endpointUrl("anthro")) : tr("No embedded endpoint"));
}

void MainWindow::setLanguage(const QString& locale) {
  QSettings().setValue("ui/language", locale);
  install_language(locale);
  log(tr("Language: %1").arg(locale));
}

void MainWindow::showPage(QWidget* page) { tabs_->setCurrentPage(page); }

// The tab widget is as large as its largest page unless the others are ignored: then only the
// page shown scrolls, and only when it needs to.
void MainWindow::fitToCurrentPage() {
  for (int i = 0; i < tabs_->count(); ++i) {
    const bool shown = i == tabs_->currentIndex();
    tabs_->widget(i)->setSizePolicy(shown ? QSizePolicy::Preferred : QSizePolicy::Ignored,
                                    shown ? QSizePolicy::Preferred : QSizePolicy::Ignored);
  }
}

bool MainWindow::hasReport(QWidget* page) const {
  if (!page) return false;
  if (page == diagnosis_) return diagnosis_->hasDiagnosis();
  if (page == rollout_)
    return rollout_->result() && (rollout_->state() == widgets::RolloutPage::State::Idle ||
                                  rollout_->state() == widgets::RolloutPage::State::Paused);
  if (page == session_) return session_->lastRun() != widgets::SessionPanel::LastRun::None;
  if (page == compare_) return compare_->comparison() && !compare_->running();
  if (auto* inspector = qobject_cast<widgets::CaptureInspector*>(page))
    return inspector->index() && inspector->index()->finished() && inspector->index()->analysis();
  return false;
}

void MainWindow::updateExportAction() {
  if (export_report_action_ && tabs_) export_report_action_->setEnabled(hasReport(tabs_->currentPage()));
  if (save_capture_action_) save_capture_action_->setEnabled(currentInspector() != nullptr);
  if (close_tab_action_ && tabs_) {
    QWidget* page = tabs_->currentPage();
    close_tab_action_->setEnabled(page && page != welcome_ && page != session_ && page != diagnosis_ && page != rollout_);
  }
}

void MainWindow::closeTab(int index) {
  // Only capture tabs close: the fixed pages (Welcome … Compare) live as long as the window.
  auto* page = qobject_cast<widgets::CaptureInspector*>(tabs_->page(index));
  if (!page || !mayCloseCapture(page->path())) return;
  tabs_->removePage(index);
}

void MainWindow::saveCaptureAs() {
  auto* inspector = currentInspector();
  if (!inspector) return;
  const QString target = widgets::save_file_name(this, tr("Save capture as"), QFileInfo(inspector->path()).fileName(),
                                                 tr("Captures (*.pcap *.pcapng *.cap);;All files (*)"));
  if (target.isEmpty()) return;
  if (QFileInfo(target).absoluteFilePath() == QFileInfo(inspector->path()).absoluteFilePath()) return;
  const QString error = copy_file(inspector->path(), target);
  log(error.isEmpty() ? tr("Capture saved as %1").arg(target) : tr("Capture not saved to %1: %2").arg(target, error));
  if (error.isEmpty()) markCaptureSaved(inspector->path());
}

// A page's result as its JSON (the one `anthro-wb` writes), made later off this thread from a copy.
widgets::ReportDialog::ResultJob MainWindow::resultJob(QWidget* page) const {
  using Job = widgets::ReportDialog::ResultJob;
  using Stop = const std::atomic<bool>&;
  Job job;
  if (page == diagnosis_) {
    job = [d = *diagnosis_->diagnosis(), checklist = diagnosis_->checklist()](const std::string& lang, Stop) {
      return Result<std::string>(diagnosis_json(d, lang, &checklist));
    };
  } else if (page == rollout_) {
    job = [r = *rollout_->result()](const std::string& lang, Stop) { return Result<std::string>(rollout_json(r, lang)); };
  } else if (page == compare_) {
    job = [c = *compare_->comparison()](const std::string&, Stop) { return Result<std::string>(comparison_json(c)); };
  } else if (page == session_) {
    if (session_->lastRun() == widgets::SessionPanel::LastRun::Load)
      job = [b = *session_->lastLoad()](const std::string&, Stop) { return Result<std::string>(bench_json(b)); };
    else
      job = [s = *session_->lastSession()](const std::string&, Stop) { return Result<std::string>(session_json(s)); };
  } else if (auto* inspector = qobject_cast<widgets::CaptureInspector*>(page)) {
    // The inspector's index ran analyze_capture on the file with the keys it was opened with
    // (its ITL samples kept): that analysis is the capture's result, not run a second time.
    // Its findings are analyze's: the latency checklist walked over that analysis.
    job = [a = inspector->index()->analysis()](const std::string&, Stop) {
      const Checklist& checklist = builtin_latency_checklist();
      std::ostringstream out;
      write_analyze_json(*a, checklist, out);
      return Result<std::string>(out.str());
    };
  }
  return job;
}

// The page's result is copied here and made into its JSON on the dialog's worker: the page may
// run again, or its tab close, while the dialog is open.
widgets::ReportDialog* MainWindow::exportReport(QWidget* page) {
  if (!page) page = tabs_->currentPage();
  if (!hasReport(page)) {
    log(tr("Nothing to report here yet: run a diagnosis, a rollout, a session or a load, or open a capture."));
    return nullptr;
  }
  widgets::ReportDialog::ResultJob job = resultJob(page);
  auto* dialog = new widgets::ReportDialog(std::move(job), QString(), current_language(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &widgets::ReportDialog::message, this, &MainWindow::log);
  connect(dialog, &widgets::ReportDialog::saved, this, [this, page] { markResultSaved(page); });
  dialog->open();
  return dialog;
}

widgets::CaptureInspector* MainWindow::openCapture(const QString& path, const QStringList& keylogs,
                                                   const QStringList& server_keys) {
  if (QString error; file_kind(path, error) != FileKind::Capture) {
    refuseCapture(path);
    return nullptr;
  }
  // Keys given with this capture are for it: adding them must not reload the capture shown now.
  adding_keys_ = true;
  for (const QString& k : keylogs) keys_->addKeylog(k);
  for (const QString& k : server_keys) keys_->addServerKey(k);
  adding_keys_ = false;
  CaptureKeySources keys = keySources();
  auto* inspector = new widgets::CaptureInspector(this);
  connect(inspector, &widgets::CaptureInspector::message, this, &MainWindow::log);
  connect(inspector, &widgets::CaptureInspector::diagnoseRequested, this, [this, inspector] {
    showPage(diagnosis_);
    diagnosis_->diagnoseCapture(inspector->path(), inspector->keys());
  });
  connect(inspector, &widgets::CaptureInspector::exportReportRequested, this, [this, inspector] { exportReport(inspector); });
  connect(inspector, &widgets::CaptureInspector::loaded, this, [this, inspector](bool ok, const QString&) {
    updateExportAction();
    if (!ok || !inspector->index()) return;
    auto a = inspector->index()->analysis();
    if (currentInspector() == inspector)
      keys_->showCapture(inspector->path(), inspector->index()->connections(),
                         a ? a->embedded_keylogs : std::vector<std::string>{});
  });
  int tab = tabs_->addPage(inspector, tabNameFor(path));
  tabs_->setTabToolTip(tab, path);
  tabs_->setCurrentIndex(tab);
  inspector->open(path, keys);
  addRecent(QFileInfo(path).absoluteFilePath());
  return inspector;
}

void MainWindow::refuseCapture(const QString& path) {
  QString error;
  const FileKind kind = file_kind(path, error);
  const QString name = QFileInfo(path).fileName();
  QString text;
  if (kind == FileKind::PemKey)
    text = tr("%1 is a PEM key, not a capture. Add it as a server key to decrypt captures: Add server key… in "
              "the Keys panel, File → Add Server Key, or drop it on the window.").arg(name);
  else if (kind == FileKind::KeyLog)
    text = tr("%1 is a key log, not a capture. Add it as a key log to decrypt captures: Add key log… in the "
              "Keys panel, File → Add Key Log, or drop it on the window.").arg(name);
  else
    text = tr("%1 cannot be opened as a capture: %2").arg(name, error);
  log(text);
  removeRecent(QFileInfo(path).absoluteFilePath());
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Not a capture"), text, QMessageBox::Close, this);
  box->setObjectName("notACapture");
  box->button(QMessageBox::Close)->setText(tr("Close"));  // Qt's own word is English without its translations
  box->setAttribute(Qt::WA_DeleteOnClose);
  if (kind == FileKind::PemKey || kind == FileKind::KeyLog) {
    QPushButton* add = box->addButton(tr("Add as key"), QMessageBox::AcceptRole);
    add->setObjectName("addAsKey");
    connect(add, &QPushButton::clicked, this, [this, path, kind] {
      if (kind == FileKind::PemKey) keys_->addServerKey(path);
      else keys_->addKeylog(path);
    });
  }
  box->open();
}

// Tabs of two captures never share a name: "s.pcapng (2)".
QString MainWindow::tabNameFor(const QString& path) const {
  const QString base = QFileInfo(path).fileName();
  QStringList taken;
  for (int i = 0; i < tabs_->count(); ++i)
    if (qobject_cast<widgets::CaptureInspector*>(tabs_->page(i))) taken << tabs_->tabText(i);
  QString name = base;
  for (int n = 2; taken.contains(name); ++n) name = QString("%1 (%2)").arg(base).arg(n);
  return name;
}

widgets::CaptureInspector* MainWindow::currentInspector() const {
  return tabs_ ? qobject_cast<widgets::CaptureInspector*>(tabs_->currentPage()) : nullptr;
}

void MainWindow::reloadCapturesWithKeys() {
  // New keys may open what could not be opened: reload the shown capture with them.
  auto* inspector = currentInspector();
  if (!inspector || adding_keys_) return;
  inspector->open(inspector->path(), keySources());
}

CaptureKeySources MainWindow::keySources() const {
  CaptureKeySources keys;
  for (const QString& k : keys_->keylogs()) keys.keylog_files.push_back(k.toStdString());
  for (const QString& k : keys_->serverKeys()) keys.server_key_files.push_back(k.toStdString());
  return keys;
}

void MainWindow::openCaptureDialog() {
  const QString path = widgets::open_file_name(this, tr("Open capture"), tr("Captures (*.pcap *.pcapng *.cap);;All files (*)"));
  if (!path.isEmpty()) openCapture(path);
}

widgets::CaptureDialog* MainWindow::startCapture() {
  if (!capture_dialog_) {
    capture_dialog_ = new widgets::CaptureDialog(this);
    connect(capture_dialog_, &widgets::CaptureDialog::message, this, &MainWindow::log);
    connect(capture_dialog_, &widgets::CaptureDialog::captured, this, [this](const QString& path) {
      log(tr("Capture written to %1").arg(path));
      openCapture(path);
    });
  }
  capture_dialog_->show();
  capture_dialog_->raise();
  capture_dialog_->activateWindow();
  return capture_dialog_;
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("files/recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("files/recent", recent);
  updateRecentMenu();
}

void MainWindow::removeRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("files/recent").toStringList();
  if (recent.removeAll(path) == 0) return;
  settings.setValue("files/recent", recent);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  QStringList recent = QSettings().value("files/recent").toStringList();
  // A file removed since (a discarded capture, one deleted by hand) is no longer offered.
  recent.removeIf([](const QString& path) { return !QFileInfo::exists(path); });
  recent_menu_->clear();
  for (const QString& path : recent) recent_menu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openCapture(path); })->setToolTip(path);
  recent_menu_->setEnabled(!recent.isEmpty());
  if (auto* welcome = qobject_cast<WelcomePage*>(welcome_)) welcome->setRecentFiles(recent);
}

void MainWindow::log(const QString& text) {
  log_->appendPlainText(QDateTime::currentDateTime().toString("HH:mm:ss  ") + text);
  statusBar()->showMessage(text, 8000);
}

QString MainWindow::logText() const { return log_->toPlainText(); }

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList captures;
  for (const QUrl& url : event->mimeData()->urls()) {
    QString path = url.toLocalFile();
    if (path.isEmpty()) continue;
    // By what the file holds, not by its name.
    QString error;
    const FileKind kind = file_kind(path, error);
    if (kind == FileKind::Capture) captures << path;
    else if (kind == FileKind::PemKey) keys_->addServerKey(path);
    else keys_->addKeylog(path);  // refused with its reason when it is no key log either
  }
  for (const QString& path : captures) openCapture(path);
  event->acceptProposedAction();
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (docks_settled_) return;
  docks_settled_ = true;
  // Once laid out: a state saved on a taller screen, or the docks' own size hints before the
  // first layout, would leave the log a third of a laptop's height.
  QTimer::singleShot(0, this, &MainWindow::keepDocksSmall);
}

void MainWindow::keepDocksSmall() {
  const int most = height() / 4;
  for (QDockWidget* dock : {log_dock_, keys_dock_})
    if (dock->isVisible() && !dock->isFloating() && dock->height() > most) resizeDocks({dock}, {most}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!mayClose()) {
    event->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  QMainWindow::closeEvent(event);
}

}  // namespace anthro::gui
