#include "screenshot_tour.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QTimer>
#include <QScrollBar>
#include <QAbstractTextDocumentLayout>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTableView>
#include <cstdio>

#include "capture_dialog.h"
#include "capture_inspector.h"
#include "compare_page.h"
#include "diagnosis_model.h"
#include "diagnosis_page.h"
#include "endpoint/endpoint.h"
#include "event_wait.h"
#include "model/faults.h"
#include "report_dialog.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "language.h"
#include "main_window.h"
#include "rollout_page.h"
#include "session/bench.h"
#include "session_panel.h"
#include "util/files.h"

namespace anthro::gui {
namespace {

using widgets::CaptureInspector;
using widgets::SessionPanel;

bool save(MainWindow& window, const QString& dir, const QString& name) {
  pump(300);  // queued replots and layouts
  QString path = QDir(dir).filePath(name);
  bool ok = window.grab().save(path);
  std::printf("%s %s\n", ok ? "saved" : "FAILED", qPrintable(path));
  return ok;
}

// The Diagnosis page after a run against a second local endpoint that stalls mid-stream, so a
// flagged item and its evidence are on screen while the window's own endpoint stays healthy.
bool diagnosis_shot(MainWindow& window, const QString& dir) {
  EndpointConfig config;
  config.tls_listen = "127.0.0.1:0";
  config.model.ttft = {150, 40, true};
  config.model.itl = {12, 3};
  config.model.faults = *parse_faults({"stall=800@10"});
  auto endpoint = Endpoint::start(config);
  if (!endpoint) return false;
  widgets::DiagnosisPage* page = window.diagnosisPage();
  window.showPage(page);
  page->setTarget(QString::fromStdString((*endpoint)->url("anthro")));
  page->setWorkload(40, 4);
  page->setCaptureRun(true);
  page->setUseSystem(true);
  bool finished = false;
  auto c = QObject::connect(page, &widgets::DiagnosisPage::finished, page, [&] { finished = true; });
  page->run();
  wait_for([&] { return finished; }, 180000);
  QObject::disconnect(c);
  (*endpoint)->stop();
  window.showPage(page);
  page->selectItem("server-stall");
  return save(window, dir, "diagnosis.png");
}

// File → Export report… on that diagnosis: the preview scrolled to its TTFT-over-time chart
// (drawn by the app's chart code, as an image) and what precedes it.
bool report_shot(MainWindow& window, const QString& dir) {
  window.showPage(window.diagnosisPage());
  widgets::ReportDialog* dialog = window.exportReport();
  if (!dialog) return false;
  wait_for([&] { return !dialog->busy(); }, 60000);
  pump(300);  // laid out
  QTextBrowser* preview = dialog->preview();
  QTextDocument* doc = preview->document();
  QTextBlock shown;
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
    for (auto f = b.begin(); !f.atEnd(); ++f)
      if (const QTextCharFormat format = f.fragment().charFormat(); format.isImageFormat()) {
        if (!shown.isValid() || format.toImageFormat().name().endsWith("ttft-over-time")) shown = b;
      }
  if (shown.isValid()) {
    const QRectF r = doc->documentLayout()->blockBoundingRect(shown);
    preview->verticalScrollBar()->setValue(static_cast<int>(r.bottom()) - preview->viewport()->height() + 24);
  }
  pump(300);
  const QString path = QDir(dir).filePath("report-export.png");
  const bool ok = dialog->document() && dialog->grab().save(path);
  std::printf("%s %s\n", ok ? "saved" : "FAILED", qPrintable(path));
  dialog->close();
  return ok;
}

// The Rollout page after anthro-v1's plan between the window's own endpoint's HTTP baseline and
// its anthro-v1 port, 120 requests a stage: too few to prove a 99.99 % rate, so those stages wait
// for a person, who lets each through as a rehearsal would; the latency and rollback gates are
// judged on what was measured.
bool rollout_shot(MainWindow& window, const QString& dir) {
  using widgets::RolloutPage;
  RolloutPage* page = window.rolloutPage();
  window.showPage(page);
  if (!page->selectPlan("anthro-v1-five-stages")) return false;
  page->setRequestsPerStage(120);
  bool finished = false;
  auto c = QObject::connect(page, &RolloutPage::finished, page, [&] { finished = true; });
  auto run = [&](const std::function<bool()>& start) {
    finished = false;
    return start() && wait_for([&] { return finished; }, 300000);
  };
  bool ok = run([page] { return page->run(); });
  for (int stage = 0; ok && stage < 5 && page->state() == RolloutPage::State::Paused; ++stage)
    ok = run([page] { return page->continueRollout(); });
  QObject::disconnect(c);
  return save(window, dir, "rollout.png") && ok;
}

// The Compare page on the tour's two loads, saved as results: anthro-v1 as the base, the HTTP
// baseline path as the candidate.
bool compare_shot(MainWindow& window, const QString& dir, const QString& base, const QString& candidate) {
  using widgets::ComparePage;
  ComparePage* page = window.comparePage();
  window.showPage(page);
  page->setBase(base);
  page->setCandidate(candidate);
  bool finished = false;
  auto c = QObject::connect(page, &ComparePage::finished, page, [&] { finished = true; });
  bool ok = page->run() && wait_for([&] { return finished; }, 120000) && page->comparison();
  QObject::disconnect(c);
  return save(window, dir, "compare.png") && ok;
}

// Session → Start Capture… at that size (suffix: "" or a language's "-zh_CN").
bool start_capture_shot(MainWindow& window, const QString& dir, const QString& suffix) {
  widgets::CaptureDialog* dialog = window.startCapture();
  dialog->setInterface("lo");
  dialog->setFilter("tcp port 7443");
  pump(300);
  const QString path = QDir(dir).filePath("start-capture" + suffix + ".png");
  const bool saved = dialog->grab().save(path);
  std::printf("%s %s\n", saved ? "saved" : "FAILED", qPrintable(path));
  dialog->close();
  return saved;
}

// The window with `dialog` drawn where it stands over it: what a person sees.
bool save_over(MainWindow& window, QWidget* dialog, const QString& dir, const QString& name) {
  pump(300);
  QPixmap shot = window.grab();
  {
    QPainter painter(&shot);
    painter.drawPixmap(dialog->frameGeometry().topLeft() - window.frameGeometry().topLeft(), dialog->grab());
  }
  const QString path = QDir(dir).filePath(name);
  const bool ok = shot.save(path);
  std::printf("%s %s\n", ok ? "saved" : "FAILED", qPrintable(path));
  return ok;
}

// Quitting with the tour's captures and results unsaved: the question, answered Cancel.
bool unsaved_work_shot(MainWindow& window, const QString& dir, const QString& suffix) {
  bool ok = false;
  QTimer poll;
  poll.setInterval(50);
  QObject::connect(&poll, &QTimer::timeout, &window, [&] {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible() && box->objectName() == "unsavedWork") {
        poll.stop();
        ok = save_over(window, box, dir, "quit-unsaved" + suffix + ".png");
        box->button(QMessageBox::Cancel)->click();
      }
  });
  poll.start();
  window.close();
  return ok;
}

// The main pages at a laptop's 1024x700, as they were left by the tour, and the export dialog
// over the Diagnosis page (suffix: "" or a language's "-zh_CN").
bool laptop_shots(MainWindow& window, CaptureInspector* inspector, const QString& dir, const QString& suffix) {
  window.resize(1024, 700);
  bool ok = true;
  const std::pair<QWidget*, const char*> pages[] = {
      {window.tabs()->page(0), "welcome"},  {inspector, "capture-inspector"},
      {window.sessionPanel(), "live-session"}, {window.diagnosisPage(), "diagnosis"},
      {window.rolloutPage(), "rollout"}, {window.comparePage(), "compare"}};
  for (const auto& [page, name] : pages) {
    window.showPage(page);
    ok = save(window, dir, QString("laptop-%1%2.png").arg(name, suffix)) && ok;
  }
  window.showPage(window.diagnosisPage());
  if (widgets::ReportDialog* dialog = window.exportReport()) {
    wait_for([&] { return !dialog->busy(); }, 60000);
    ok = save_over(window, dialog, dir, QString("laptop-report-export%1.png").arg(suffix)) && ok;
    dialog->close();
  } else {
    ok = false;
  }
  return ok;
}

}  // namespace

int run_screenshot_tour(MainWindow& window, const QString& dir, const QString& vectors_dir) {
  QDir().mkpath(dir);
  window.resize(1366, 768);
  window.show();
  bool ok = save(window, dir, "welcome.png");

  auto* inspector = window.openCapture(QDir(vectors_dir).filePath("lab-conversation.pcap"),
                                       {QDir(vectors_dir).filePath("lab-conversation.keylog")});
  if (!inspector) return 1;  // refused: the vectors directory holds no capture there
  ok = wait_for([&] { return !inspector->loading(); }, 20000) && ok;
  inspector->frameView()->selectRow(1);
  inspector->detailView()->selectField("text");
  ok = save(window, dir, "capture-inspector.png") && ok;
  inspector->lowerTabs()->setCurrentIndex(1);
  ok = save(window, dir, "connections.png") && ok;

  SessionPanel* panel = window.sessionPanel();
  window.showPage(panel);
  panel->setTarget(window.endpointUrl("anthro"));
  panel->setRepeat(1);
  bool loaded = false;
  auto wait_load = [&] {
    loaded = false;
    auto c = QObject::connect(panel, &SessionPanel::loadFinished, panel, [&] { loaded = true; });
    panel->runLoad();
    wait_for([&] { return loaded; }, 120000);
    QObject::disconnect(c);
  };
  // Each load saved as a result, for the Compare page (not beside the screenshots).
  QTemporaryDir results;
  auto save_load = [&](const char* name) {
    const QString path = results.filePath(name);
    return panel->lastLoad() && write_file_atomic(path.toStdString(), bench_json(*panel->lastLoad())) ? path : QString();
  };
  wait_load();  // anthro-v1 as the baseline
  const QString base_result = save_load("tour-base.json");
  panel->setTarget(window.endpointUrl("http") + "/v1/messages");
  // The candidate: the HTTP baseline path, plotted second.
  panel->setLoadSeries(1);
  wait_load();
  const QString candidate_result = save_load("tour-candidate.json");
  panel->setTarget(window.endpointUrl("anthro"));
  panel->setRepeat(6);
  panel->setCaptureTraffic(true);
  bool finished = false;
  auto c = QObject::connect(panel, &SessionPanel::sessionFinished, panel, [&] { finished = true; });
  panel->send();
  wait_for([&] { return finished; }, 120000);
  QObject::disconnect(c);
  // The session's capture opens in the inspector (when capturing on lo is permitted).
  wait_for([&] { return window.currentInspector() && window.currentInspector() != inspector; }, 20000);
  if (auto* captured = window.currentInspector(); captured && captured != inspector) {
    wait_for([&] { return !captured->loading(); }, 20000);
    captured->lowerTabs()->setCurrentIndex(2);
    ok = save(window, dir, "capture-charts.png") && ok;
    window.keysDock()->raise();
    captured->lowerTabs()->setCurrentIndex(1);
    ok = save(window, dir, "keys.png") && ok;
    window.logDock()->raise();
  }
  window.showPage(panel);
  ok = save(window, dir, "live-session.png") && ok;
  ok = diagnosis_shot(window, dir) && ok;
  ok = report_shot(window, dir) && ok;
  ok = rollout_shot(window, dir) && ok;
  ok = compare_shot(window, dir, base_result, candidate_result) && ok;

  ok = laptop_shots(window, inspector, dir, "") && ok;
  ok = start_capture_shot(window, dir, "") && ok;
  ok = unsaved_work_shot(window, dir, "") && ok;
  install_language("zh_CN");
  ok = laptop_shots(window, inspector, dir, "-zh_CN") && ok;
  ok = start_capture_shot(window, dir, "-zh_CN") && ok;
  ok = unsaved_work_shot(window, dir, "-zh_CN") && ok;
  window.resize(1366, 768);
  window.showPage(window.tabs()->page(0));
  ok = save(window, dir, "welcome-zh_CN.png") && ok;
  window.showPage(panel);
  ok = save(window, dir, "live-session-zh_CN.png") && ok;
  window.showPage(window.diagnosisPage());
  ok = save(window, dir, "diagnosis-zh_CN.png") && ok;
  window.showPage(window.rolloutPage());
  ok = save(window, dir, "rollout-zh_CN.png") && ok;
  window.showPage(window.comparePage());
  ok = save(window, dir, "compare-zh_CN.png") && ok;
  install_language("en");
  return ok ? 0 : 1;
}

}  // namespace anthro::gui
