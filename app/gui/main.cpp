// anthro-workbench [CAPTURE] [--keylog FILE]... [--server-key PEM]... [--fault NAME[=ARG]]...
#include <QApplication>
#include <QCommandLineParser>

#include "capture_check.h"
#include "language.h"
#include "keys_panel.h"
#include "main_window.h"
#include "screenshot_tour.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("anthro-workbench");
  QApplication::setApplicationName("anthro-workbench");
  QApplication::setApplicationVersion(ANTHRO_VERSION);
  QGuiApplication::setDesktopFileName(ANTHRO_APP_ID);  // its entry's icon and name on Wayland
  anthro::gui::install_default_language();

  QCommandLineParser parser;
  parser.setApplicationDescription(QApplication::translate("main", "anthro-v1 Workbench: live sessions, captures, latency charts."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption keylog("keylog", QApplication::translate("main", "NSS key log with ANTHRO_V1 lines (repeatable)."), "FILE");
  QCommandLineOption server_key("server-key", QApplication::translate("main", "Server static X25519 key, PEM (repeatable)."), "PEM");
  QCommandLineOption screenshots("screenshots", QApplication::translate("main", "Take the README screenshots into DIR and exit."), "DIR");
  QCommandLineOption vectors("vectors", QApplication::translate("main", "The spec's vectors directory (for --screenshots)."), "DIR",
                             "../shared/spec/vectors");
  QCommandLineOption fault("fault", QApplication::translate("main", "A fault of the embedded endpoint, as `anthro-wb endpoint --fault` (repeatable)."),
                           "NAME[=ARG]");
  QCommandLineOption capture_check("capture-check",
                                   QApplication::translate("main", "Capture a session and a Start capture run into DIR, then exit."),
                                   "DIR");
  screenshots.setFlags(QCommandLineOption::HiddenFromHelp);
  capture_check.setFlags(QCommandLineOption::HiddenFromHelp);
  vectors.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOption(keylog);
  parser.addOption(server_key);
  parser.addOption(fault);
  parser.addOption(screenshots);
  parser.addOption(vectors);
  parser.addOption(capture_check);
  parser.addPositionalArgument("capture", QApplication::translate("main", "A pcap or pcapng file to open."), "[CAPTURE]");
  parser.process(app);

  std::vector<std::string> faults;
  for (const QString& f : parser.values(fault)) faults.push_back(f.toStdString());
  anthro::gui::MainWindow window(nullptr, faults);
  const bool unattended = parser.isSet(screenshots) || parser.isSet(capture_check);
  if (!unattended) window.show();
  if (parser.isSet(capture_check)) return anthro::gui::run_capture_check(window, parser.value(capture_check));
  const QStringList captures = parser.positionalArguments();
  if (parser.isSet(screenshots))
    return anthro::gui::run_screenshot_tour(window, parser.value(screenshots), parser.value(vectors));
  for (const QString& path : captures) window.openCapture(path, parser.values(keylog), parser.values(server_key));
  if (captures.isEmpty()) {
    for (const QString& k : parser.values(keylog)) window.keysPanel()->addKeylog(k);
    for (const QString& k : parser.values(server_key)) window.keysPanel()->addServerKey(k);
  }
  return QApplication::exec();
}
