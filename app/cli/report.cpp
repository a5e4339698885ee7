// anthro-wb-report's `report RESULT.json --to html|pdf|md|json --output FILE`: a saved result
// rendered with the app's own charts, offscreen (no display needed), redacted, in English or
// 简体中文.
#include "cli/report.h"

#include <QApplication>
#include <QLocale>
#include <QTemporaryDir>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/args.h"
#include "cli/commands.h"
#include "language.h"
#include "report_renderer.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

// The Qt application the charts are drawn in: offscreen, with a private runtime directory when
// the caller has none, in `lang`.
class OffscreenQt {
 public:
  explicit OffscreenQt(const std::string& lang) {
    setenv("QT_QPA_PLATFORM", "offscreen", 1);  // it draws, but never on a screen
    if (!std::getenv("XDG_RUNTIME_DIR") && runtime_.isValid())
      setenv("XDG_RUNTIME_DIR", runtime_.path().toLocal8Bit().constData(), 1);
    if (!QApplication::instance()) app_ = std::make_unique<QApplication>(argc_, argv_);
    gui::install_language(QString::fromStdString(lang));
  }

 private:
  QTemporaryDir runtime_;
  int argc_ = 1;
  char name_[10] = "anthro-wb";
  char* argv_[2] = {name_, nullptr};
  std::unique_ptr<QApplication> app_;
};

// Renders `result_json` as `format` into `path`; gives the number of fields redacted.
Result<std::size_t> write_report(const std::string& result_json, const std::string& origin, const std::string& lang,
                                 bool redact_prompts, widgets::ReportFormat format, const std::string& path) {
  OffscreenQt qt(lang);
  auto doc = build_report(result_json, widgets::reportOptions(QString::fromStdString(origin), QString::fromStdString(lang),
                                                              redact_prompts));
  if (!doc) return doc.error();
  QString error;
  if (!widgets::writeReport(*doc, format, QString::fromStdString(path), &error)) return make_error(ErrorClass::Input, error.toStdString());
  return doc->redactions.size();
}

}  // namespace

int render_report(const std::vector<std::string>& argv) {
  Args args("report", argv);
  if (args.positional().size() != 1) args.fail("expects one result file (RESULT.json)");
  std::string format = args.value_or("--to", "");
  auto parsed = widgets::parseReportFormat(QString::fromStdString(format));
  if (!parsed) args.fail("--to \"" + format + "\": expected html, pdf, md or json");
  if (!args.has("--output")) args.fail("--output FILE is required");
  std::string lang = args.value_or("--lang", QLocale::system().name().startsWith("zh") ? "zh_CN" : "en");
  if (lang != "en" && lang != "zh_CN") args.fail("--lang \"" + lang + "\": expected en or zh_CN");
  if (!args.ok()) return usage_error("report", args.error());

  const std::string input = args.positional()[0], output = *args.value("--output");
  auto text = read_file(input, file_limit::kResult);
  if (!text) return error_exit("report", make_error(ErrorClass::Input, text.error().detail));
  auto redacted = write_report(*text, input, lang, args.has("--redact-prompts"), *parsed, output);
  if (!redacted) return error_exit("report", redacted.error());
  std::cerr << "report: " << output << " (" << *redacted << " fields redacted)\n";
  return 0;
}

}  // namespace anthro::cli
