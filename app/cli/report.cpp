// `anthro-wb report RESULT.json --to html|pdf|md|json --output FILE`: a saved result rendered
// with the app's own charts, offscreen (no display needed), redacted, in English or 简体中文.
#include <QApplication>
#include <QLocale>
#include <QTemporaryDir>

#include <cstdlib>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "language.h"
#include "report_renderer.h"
#include "util/files.h"

namespace anthro::cli {

int run_report(const std::vector<std::string>& argv) {
  Args args("report", argv, {"--to", "--output", "--lang"}, {"--redact-prompts"});
  if (args.positional().size() != 1) args.fail("expects one result file (RESULT.json)");
  auto format = widgets::parseReportFormat(QString::fromStdString(args.value_or("--to", "")));
  if (!format) args.fail("--to \"" + args.value_or("--to", "") + "\": expected html, pdf, md or json");
  if (!args.has("--output")) args.fail("--output FILE is required");
  std::string lang = args.value_or("--lang", QLocale::system().name().startsWith("zh") ? "zh_CN" : "en");
  if (lang != "en" && lang != "zh_CN") args.fail("--lang \"" + lang + "\": expected en or zh_CN");
  if (!args.ok()) return usage_error("report", args.error());

  const std::string input = args.positional()[0];
  auto text = read_file(input);
  if (!text) return error_exit("report", make_error(ErrorClass::Input, text.error().detail));
  setenv("QT_QPA_PLATFORM", "offscreen", 1);  // it draws, but never on a screen
  QTemporaryDir runtime;  // Qt wants a private runtime directory; a script may not have one
  if (!std::getenv("XDG_RUNTIME_DIR") && runtime.isValid()) setenv("XDG_RUNTIME_DIR", runtime.path().toLocal8Bit().constData(), 1);
  int argc = 1;
  char name[] = "anthro-wb";
  char* qt_argv[] = {name, nullptr};
  QApplication app(argc, qt_argv);
  gui::install_language(QString::fromStdString(lang));
  auto doc = build_report(*text, widgets::reportOptions(QString::fromStdString(input), QString::fromStdString(lang),
                                                        args.has("--redact-prompts")));
  if (!doc) return error_exit("report", doc.error());
  QString error;
  const QString output = QString::fromStdString(*args.value("--output"));
  if (!widgets::writeReport(*doc, *format, output, &error))
    return error_exit("report", make_error(ErrorClass::Input, error.toStdString()));
  std::cerr << "report: " << output.toStdString() << " (" << doc->charts.size() << " charts, "
            << doc->redactions.size() << " fields redacted)\n";
  return 0;
}

}  // namespace anthro::cli
