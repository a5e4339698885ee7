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

LiveCaptureConfig loopback_capture_config(const LoopbackCaptureFiles& files, std::uint16_t port) {
  LiveCaptureConfig lc;
  lc.interface = "lo";
  lc.filter = "tcp port " + std::to_string(port);
  lc.output = files.pcapng.toStdString();
  lc.keylog_path = files.keylog.toStdString();
  return lc;
}

}  // namespace anthro::widgets
