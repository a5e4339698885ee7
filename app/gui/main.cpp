// anthro-workbench [CAPTURE] [--keylog FILE]... [--server-key PEM]... [--fault NAME[=ARG]]...
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "capture_check.h"
#include "language.h"
#include "keys_panel.h"
#include "main_window.h"
#include "screenshot_tour.h"

namespace {

struct Options {
  QCommandLineOption keylog{"keylog", QCoreApplication::translate("main", "NSS key log with ANTHRO_V1 lines (repeatable)."), "FILE"};
  QCommandLineOption server_key{"server-key", QCoreApplication::translate("main", "Server static X25519 key, PEM (repeatable)."), "PEM"};
  QCommandLineOption screenshots{"screenshots", QCoreApplication::translate("main", "Take the README screenshots into DIR and exit."), "DIR"};
  QCommandLineOption vectors{"vectors", QCoreApplication::translate("main", "The spec's vectors directory (for --screenshots)."), "DIR",
                             "../shared/spec/vectors"};
  QCommandLineOption fault{"fault", QCoreApplication::translate("main", "A fault of the embedded endpoint, as `anthro-wb endpoint --fault` (repeatable)."),
                           "NAME[=ARG]"};
  QCommandLineOption capture_check{"capture-check",
                                   QCoreApplication::translate("main", "Capture a session and a Start capture run into DIR, then exit."), "DIR"};
  QCommandLineParser parser;

  explicit Options(QCoreApplication& app) {
    parser.setApplicationDescription(QCoreApplication::translate("main", "anthro-v1 Workbench: live sessions, captures, latency charts."));
    parser.addHelpOption();
    parser.addVersionOption();
    for (QCommandLineOption* hidden : {&screenshots, &capture_check, &vectors}) hidden->setFlags(QCommandLineOption::HiddenFromHelp);
    for (const QCommandLineOption& o : {keylog, server_key, fault, screenshots, vectors, capture_check}) parser.addOption(o);
    parser.addPositionalArgument("capture", QCoreApplication::translate("main", "A pcap or pcapng file to open."), "[CAPTURE]");
    parser.process(app);  // --help, --version and a bad option print and exit here
  }
};

void name_application() {
  QCoreApplication::setOrganizationName("anthro-workbench");
  QCoreApplication::setApplicationName("anthro-workbench");
  QCoreApplication::setApplicationVersion(ANTHRO_VERSION);
}

bool asks_only_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version", "-?"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

// QApplication aborts without a display; say what to do instead.
bool has_display() {
  for (const char* variable : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
    if (const char* v = std::getenv(variable); v && *v) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (asks_only_for_text(argc, argv)) {
    // Help and version need no display: parsed on a console application, which exits.
    QCoreApplication console(argc, argv);
    name_application();
    anthro::gui::install_default_language();
    Options options(console);
    return 0;
  }
  if (!has_display()) {
    std::fputs("anthro-workbench: no display (DISPLAY and WAYLAND_DISPLAY are unset). `anthro-wb demo` runs the main job "
               "without one; QT_QPA_PLATFORM=offscreen runs the window off screen.\n",
               stderr);
    return 1;
  }
  QApplication app(argc, argv);
  name_application();
  QGuiApplication::setDesktopFileName(ANTHRO_APP_ID);  // its entry's icon and name on Wayland
  anthro::gui::install_default_language();
  Options options(app);

  std::vector<std::string> faults;
  for (const QString& f : options.parser.values(options.fault)) faults.push_back(f.toStdString());
  anthro::gui::MainWindow window(nullptr, faults);
  const bool unattended = options.parser.isSet(options.screenshots) || options.parser.isSet(options.capture_check);
  if (!unattended) window.show();
  if (options.parser.isSet(options.capture_check))
    return anthro::gui::run_capture_check(window, options.parser.value(options.capture_check));
  const QStringList captures = options.parser.positionalArguments();
  if (options.parser.isSet(options.screenshots))
    return anthro::gui::run_screenshot_tour(window, options.parser.value(options.screenshots), options.parser.value(options.vectors));
  const QStringList keylogs = options.parser.values(options.keylog), server_keys = options.parser.values(options.server_key);
  for (const QString& path : captures) window.openCapture(path, keylogs, server_keys);
  if (captures.isEmpty()) {
    for (const QString& k : keylogs) window.keysPanel()->addKeylog(k);
    for (const QString& k : server_keys) window.keysPanel()->addServerKey(k);
  }
  return QApplication::exec();
}
