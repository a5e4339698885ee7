// A capture of the workbench's own traffic to a loopback port, for the inspector: each capture
// has its own directory, pcapng file and key log, and its own Worker, so one capture never holds
// another run's packets. Used by the session page and the diagnosis page.
#pragma once

#include <QString>
#include <functional>
#include <future>
#include <memory>

#include "capture/live_capture.h"
#include "worker.h"

namespace anthro::widgets {

struct LoopbackCaptureFiles {
  QString pcapng;  // written when the capture stops, keys embedded
  QString keylog;  // the client writes its keys here (SessionConfig::keylog_path)
};

// A new directory named after `prefix` ("anthro-session") in this process's own temporary
// directory, which is removed, with every capture in it, when the process exits.
LoopbackCaptureFiles new_capture_files(const QString& prefix);

// What run_live_capture takes to capture tcp `port` on lo into `files`.
LiveCaptureConfig loopback_capture_config(const LoopbackCaptureFiles& files, std::uint16_t port);

// Captures tcp `port` on lo into `files` until the Worker is stopped. It starts only once
// `previous` is ready (an earlier capture still writing its file). `on_ready` (once capturing)
// and `on_ended` run on the worker thread: post their results through an Inbox.
std::unique_ptr<Worker> start_loopback_capture(const LoopbackCaptureFiles& files, std::uint16_t port,
                                               std::shared_future<void> previous, std::function<void()> on_ready,
                                               std::function<void(const Result<LiveCaptureStats>&)> on_ended);

}  // namespace anthro::widgets
