// `anthro-workbench --capture-check DIR`: the window's two live captures with no person at the
// controls, for installer/deb_test.sh to prove that the installed GUI, run by a normal user,
// captures through its helper: a session on the embedded endpoint captured by the session page,
// then Session → Start capture… on lo while a second session runs. Each capture is copied into
// DIR (session.pcapng, dialog.pcapng) for `anthro-wb analyze` to check.
#pragma once

#include <QString>

namespace anthro::gui {

class MainWindow;

// 0 when both captures were written; otherwise 1 and the reason (the dialog's status, the
// window's log) on stderr.
int run_capture_check(MainWindow& window, const QString& dir);

}  // namespace anthro::gui
