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

std::unique_ptr<Worker> start_loopback_capture(const LoopbackCaptureFiles& files, std::uint16_t port,
                                               std::shared_future<void> previous, std::function<void()> on_ready,
                                               std::function<void(const Result<LiveCaptureStats>&)> on_ended) {
  const LiveCaptureConfig lc = loopback_capture_config(files, port);
  return std::make_unique<Worker>([lc, previous, on_ready, on_ended](const std::atomic<bool>& stop) {
    if (previous.valid()) previous.wait();
    auto stats = run_live_capture(lc, stop, on_ready);
    on_ended(stats);
  });
}

}  // namespace anthro::widgets
