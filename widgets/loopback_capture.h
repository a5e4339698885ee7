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
// directory, with a file named after the run and its time ("session-145210.pcapng"). It stays
// until remove_own_capture: the person decides (File → Save Capture As…, or on quit).
LoopbackCaptureFiles new_capture_files(const QString& prefix);
// `path` is a capture new_capture_files made.
bool is_own_capture(const QString& path);
// Removes such a capture with its directory and key log; any other path is left alone.
void remove_own_capture(const QString& path);

// What run_live_capture takes to capture tcp `port` on lo into `files`.
LiveCaptureConfig loopback_capture_config(const LoopbackCaptureFiles& files, std::uint16_t port);

}  // namespace anthro::widgets
