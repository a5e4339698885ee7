#include "loopback_capture.h"

#include <QDir>
#include <QTemporaryDir>

namespace anthro::widgets {

namespace {

// Every capture of this process lives under one directory removed when the process exits
// (File → Save Capture As… keeps one); the inspector reads a file after its capture ended,
// so a capture's own directory outlives it.
const QTemporaryDir& process_capture_root() {
  static const QTemporaryDir root(QDir::tempPath() + "/anthro-workbench-XXXXXX");
  return root;
}

}  // namespace

LoopbackCaptureFiles new_capture_files(const QString& prefix) {
  QTemporaryDir dir(process_capture_root().path() + "/" + prefix + "-XXXXXX");
  dir.setAutoRemove(false);
  return {dir.filePath("session.pcapng"), dir.filePath("keys.log")};
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
