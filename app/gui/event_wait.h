// Waiting on the event loop without a person: for the app's own unattended runs
// (--screenshots, --capture-check).
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <functional>

namespace anthro::gui {

// Runs the event loop for `ms` milliseconds.
inline void pump(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

// Runs the event loop until `done` or the timeout; returns done().
inline bool wait_for(const std::function<bool()>& done, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeout_ms) pump(50);
  return done();
}

}  // namespace anthro::gui
