// File → Export report…: a result of the workbench (its JSON text, or a job that makes it)
// turned into a report. The report is built on the job service (a big result takes a while to parse),
// previewed as the PDF lays it out (charts as images: a QTextBrowser cannot show inline SVG),
// in the format, language and redaction picked, and saved where the user says — atomically,
// so a failed save leaves nothing half-written; errors are shown in the dialog.
#pragma once

#include <QDialog>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "report/report.h"
#include "job_service.h"
#include "report_renderer.h"
#include "util/result.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace anthro::widgets {


class ReportDialog : public QDialog {
  Q_OBJECT
 public:
  // Makes the result's JSON text (diagnosis_json, rollout_json, ...) on the dialog's worker, in
  // `lang` where the result has texts of its own in both languages (a checklist's titles); it
  // should return soon after `stop` is set. Run again when the language changes.
  using ResultJob = std::function<Result<std::string>(const std::string& lang, const std::atomic<bool>& stop)>;

  // `origin`: the result's file, or empty for a result that was never saved. `language`: the
  // report's at first ("en" or "zh_CN"), the interface's.
  ReportDialog(ResultJob job, const QString& origin, const QString& language, QWidget* parent = nullptr);
  ReportDialog(std::string result_json, const QString& origin, const QString& language, QWidget* parent = nullptr);
  ~ReportDialog() override;

  void setFormat(ReportFormat format);
  ReportFormat format() const;
  void setLanguage(const QString& code);  // rebuilds the report in that language
  QString language() const;
  void setRedactPrompts(bool on);         // rebuilds it with prompts and answers replaced, or not

  bool busy() const { return job_ != 0; }
  // The report as previewed, or null while it is built or when it could not be.
  const ReportDocument* document() const { return doc_.get(); }
  QTextBrowser* preview() const { return preview_; }
  QString errorText() const;

  // Writes the report in format() to `path` (no file dialog); false with the error shown.
  bool save(const QString& path);

 signals:
  // The report was built and previewed, or it failed (errorText() says why).
  void previewReady(bool ok);
  void saved(const QString& path);
  void message(const QString& text);  // for the log: where the report went

 private:
  void rebuild();
  void onBuilt(const QString& lang, std::shared_ptr<const std::string> json,
               const std::shared_ptr<Result<ReportDocument>>& doc);
  void askToSave();
  void showError(const QString& text);
  void setBusy(bool on);

  QComboBox* format_;
  QComboBox* language_;
  QCheckBox* redact_;
  QTextBrowser* preview_;
  QProgressBar* progress_;
  QLabel* status_;
  QLabel* error_;
  QPushButton* save_button_;
  QPushButton* close_button_;

  ResultJob job_maker_;  // makes the result's JSON, off this thread
  QString origin_;
  std::shared_ptr<const std::string> json_;  // the job's text, once made
  QString json_lang_;                        // and the language it was made in
  std::shared_ptr<const ReportDocument> doc_;
  JobService* jobs_;
  JobId job_ = 0;  // the build under way, or 0
};

}  // namespace anthro::widgets
