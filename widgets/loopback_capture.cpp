#include "loopback_capture.h"

#include <QDir>
#include <QFileInfo>
#include <QTime>
#include <QTemporaryDir>

namespace anthro::widgets {

namespace {

// Every capture of this process lives under one directory. It outlives the process: a capture
// goes when the person has saved or discarded it (the main window asks on quit), so a crash or
// a kill leaves it to be found. Only an empty directory is removed at exit.
struct CaptureRoot {
  QString path;
  CaptureRoot() {
    QTemporaryDir dir(QDir::tempPath() + "/anthro-workbench-XXXXXX");
    dir.setAutoRemove(false);
    path = dir.path();
  }
  ~CaptureRoot() { QDir().rmdir(path); }
};

const CaptureRoot& capture_root() {
  static const CaptureRoot root;
  return root;
}

}  // namespace

LoopbackCaptureFiles new_capture_files(const QString& prefix) {
  QTemporaryDir dir(capture_root().path + "/" + prefix + "-XXXXXX");
  dir.setAutoRemove(false);
  // Named by what ran and when: its tab and a saved copy say which run it holds.
  const QString name = QString(prefix).remove(QStringLiteral("anthro-")) + "-" + QTime::currentTime().toString("HHmmss");
  return {dir.filePath(name + ".pcapng"), dir.filePath("keys.log")};
}

bool is_own_capture(const QString& path) {
  const QString dir = QFileInfo(path).absolutePath();
  return QFileInfo(dir).absolutePath() == QFileInfo(capture_root().path).absoluteFilePath();
}

void remove_own_capture(const QString& path) {
  if (is_own_capture(path)) QDir(QFileInfo(path).absolutePath()).removeRecursively();
}

std::unique_ptr<Worker> start_loopback_capture(const LoopbackCaptureFiles& files, std::uint16_t port,
                                               std::shared_future<void> previous, std::function<void()> on_ready,
                                               std::function<void(const Result<LiveCaptureStats>&)> on_ended) {
  LiveCaptureConfig lc;
  lc.interface = "lo";
  lc.filter = "tcp port " + std::to_string(port);
  lc.output = files.pcapng.toStdString();
  lc.keylog_path = files.keylog.toStdString();
  return std::make_unique<Worker>([lc, previous, on_ready, on_ended](const std::atomic<bool>& stop) {
    if (previous.valid()) previous.wait();
    auto stats = run_live_capture(lc, stop, on_ready);
    on_ended(stats);
  });
}

}  // namespace anthro::widgets
