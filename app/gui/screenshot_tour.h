// `anthro-workbench --screenshots DIR`: drives each view as a user would (the vector capture,
// a live session and a load on the embedded endpoint) and saves PNGs of the window into DIR
// (resources/screenshots/ for the README). Run under xvfb-run.
#pragma once

#include <QString>

namespace anthro::gui {

class MainWindow;

// Returns the process exit code; errors are printed.
int run_screenshot_tour(MainWindow& window, const QString& dir, const QString& vectors_dir);

}  // namespace anthro::gui
