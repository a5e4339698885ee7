#include "screenshot_tour.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QPixmap>
#include <QTabWidget>
#include <QTableView>
#include <cstdio>

#include "capture_inspector.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "language.h"
#include "main_window.h"
#include "session_panel.h"

namespace anthro::gui {
namespace {

using widgets::SessionPanel;

// Runs the event loop for `ms` milliseconds.
void pump(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

bool wait_for(const std::function<bool()>& done, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeout_ms) pump(50);
  return done();
}

bool save(MainWindow& window, const QString& dir, const QString& name) {
  pump(300);  // queued replots and layouts
  QString path = QDir(dir).filePath(name);
  bool ok = window.grab().save(path);
  std::printf("%s %s\n", ok ? "saved" : "FAILED", qPrintable(path));
  return ok;
}

}  // namespace

int run_screenshot_tour(MainWindow& window, const QString& dir, const QString& vectors_dir) {
  QDir().mkpath(dir);
  window.resize(1500, 920);
  window.show();
  bool ok = save(window, dir, "welcome.png");

  auto* inspector = window.openCapture(QDir(vectors_dir).filePath("lab-conversation.pcap"),
                                       {QDir(vectors_dir).filePath("lab-conversation.keylog")});
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
  wait_load();  // anthro-v1 as the baseline
  panel->setTarget(window.endpointUrl("http") + "/v1/messages");
  // The candidate: the HTTP baseline path, plotted second.
  panel->setLoadSeries(1);
  wait_load();
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

  install_language("zh_CN");
  window.showPage(window.tabs()->widget(0));
  ok = save(window, dir, "welcome-zh_CN.png") && ok;
  window.showPage(panel);
  ok = save(window, dir, "live-session-zh_CN.png") && ok;
  install_language("en");
  return ok ? 0 : 1;
}

}  // namespace anthro::gui
