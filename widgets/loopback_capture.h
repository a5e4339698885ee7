// The files and settings of a capture of the workbench's own traffic to a loopback port, for the
// inspector: each capture has its own directory, pcapng file and key log, so one capture never
// holds another run's packets. CaptureController (session_controller.h) runs them, for the
// session and diagnosis controllers.
#pragma once

#include <QString>

#include "capture/live_capture.h"

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

}  // namespace anthro::widgets
