#include "capture_check.h"

#include <QDir>
#include <QFile>
#include <QUrl>
#include <cstdio>

#include "capture_dialog.h"
#include "event_wait.h"
#include "main_window.h"
#include "session_panel.h"

namespace anthro::gui {
namespace {

using widgets::CaptureDialog;
using widgets::SessionPanel;

int failed(const QString& what, const QString& why) {
  std::fprintf(stderr, "anthro-workbench --capture-check: %s: %s\n", qPrintable(what), qPrintable(why));
  return 1;
}

bool run_session(SessionPanel* panel) {
  bool finished = false, ok = false;
  auto c = QObject::connect(panel, &SessionPanel::sessionFinished, panel, [&](bool good) {
    finished = true;
    ok = good;
  });
  const bool sent = panel->send();
  wait_for([&] { return finished || !sent; }, 60000);
  QObject::disconnect(c);
  return sent && ok;
}

// The session page's own capture (a per-session capture of the embedded endpoint's port).
int session_capture(MainWindow& window, const QString& to) {
  SessionPanel* panel = window.sessionPanel();
  panel->setTarget(window.endpointUrl("anthro"));
  panel->setRepeat(2);
  panel->setCaptureTraffic(true);
  QString captured;
  auto c = QObject::connect(panel, &SessionPanel::captureReady, panel, [&](const QString& path) { captured = path; });
  const bool ran = run_session(panel);
  wait_for([&] { return !captured.isEmpty(); }, 20000);
  QObject::disconnect(c);
  panel->setCaptureTraffic(false);
  if (!ran) return failed("session", window.logText());
  if (captured.isEmpty()) return failed("session capture", window.logText());
  QFile::remove(to);
  if (!QFile::copy(captured, to)) return failed("session capture", "cannot copy " + captured + " to " + to);
  std::printf("session capture: %s\n", qPrintable(to));
  return 0;
}

// Start capture… on lo, filtered to the endpoint's port, while a session runs.
int dialog_capture(MainWindow& window, const QString& to) {
  CaptureDialog* dialog = window.startCapture();
  const int port = QUrl(window.endpointUrl("anthro")).port();
  dialog->setInterface("lo");
  dialog->setFilter(QString("tcp port %1").arg(port));
  dialog->setDuration(0);
  dialog->setOutput(to);
  QString written;
  auto c = QObject::connect(dialog, &CaptureDialog::captured, dialog, [&](const QString& path) { written = path; });
  if (!dialog->start()) return failed("Start capture", dialog->status());
  wait_for([&] { return dialog->state() != CaptureDialog::State::Starting; }, 20000);
  if (dialog->state() != CaptureDialog::State::Capturing) return failed("Start capture", dialog->status());
  const bool ran = run_session(window.sessionPanel());
  pump(300);  // the last packets reach the capture
  dialog->stop();
  wait_for([&] { return !written.isEmpty() || dialog->state() == CaptureDialog::State::Idle; }, 20000);
  QObject::disconnect(c);
  if (!ran) return failed("session during Start capture", window.logText());
  if (written.isEmpty()) return failed("Start capture", dialog->status());
  std::printf("Start capture: %s (%llu packets)\n", qPrintable(written),
              static_cast<unsigned long long>(dialog->progress().packets));
  return 0;
}

}  // namespace

int run_capture_check(MainWindow& window, const QString& dir) {
  if (!QDir().mkpath(dir)) return failed(dir, "cannot create the directory");
  if (window.endpointUrl("anthro").isEmpty()) return failed("embedded endpoint", window.logText());
  if (int code = session_capture(window, QDir(dir).filePath("session.pcapng")); code != 0) return code;
  return dialog_capture(window, QDir(dir).filePath("dialog.pcapng"));
}

}  // namespace anthro::gui
