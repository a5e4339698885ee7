#include "report_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStyleOptionComboBox>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>

#include "file_dialog.h"
#include "window_fit.h"
#include "gui_thread.h"
#include "retranslator.h"
#include "job_service.h"

namespace anthro::widgets {

ReportDialog::ReportDialog(std::string result_json, const QString& origin, const QString& language, QWidget* parent)
    : ReportDialog(ResultJob([json = std::make_shared<const std::string>(std::move(result_json))](
                                 const std::string&, const std::atomic<bool>&) { return Result<std::string>(*json); }),
                   origin, language, parent) {}

ReportDialog::ReportDialog(ResultJob job, const QString& origin, const QString& language, QWidget* parent)
    : QDialog(parent),
      format_(new QComboBox(this)),
      language_(new QComboBox(this)),
      redact_(new QCheckBox(this)),
      preview_(new QTextBrowser(this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      error_(new QLabel(this)),
      save_button_(new QPushButton(this)),
      close_button_(new QPushButton(this)),
      job_maker_(std::move(job)),
      origin_(origin),
      jobs_(new JobService(this)) {
  setObjectName("ReportDialog");
  for (ReportFormat f : {ReportFormat::Html, ReportFormat::Pdf, ReportFormat::Markdown, ReportFormat::Json})
    format_->addItem(QString(), static_cast<int>(f));
  // Language names in their own language, as in View → Language.
  language_->addItem(QStringLiteral("English"), QStringLiteral("en"));
  language_->addItem(QString::fromUtf8("简体中文"), QStringLiteral("zh_CN"));
  language_->setCurrentIndex(std::max(0, language_->findData(language)));
  preview_->setOpenLinks(false);  // a click must not replace the preview with a link's target
  preview_->setObjectName("report-preview");
  progress_->setRange(0, 0);
  progress_->setMaximumWidth(120);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setStyleSheet(QStringLiteral("color: #c62828;"));
  error_->hide();
  save_button_->setDefault(true);

  auto* format_label = new QLabel(this);
  auto* language_label = new QLabel(this);
  format_label->setBuddy(format_);
  language_label->setBuddy(language_);
  auto* options = new QHBoxLayout;
  options->addWidget(format_label);
  options->addWidget(format_);
  options->addSpacing(12);
  options->addWidget(language_label);
  options->addWidget(language_);
  options->addSpacing(12);
  options->addWidget(redact_);
  options->addStretch(1);
  auto* buttons = new QDialogButtonBox(this);
  buttons->addButton(save_button_, QDialogButtonBox::AcceptRole);
  buttons->addButton(close_button_, QDialogButtonBox::RejectRole);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(progress_);
  bottom->addWidget(status_, 1);
  bottom->addWidget(buttons);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(options);
  layout->addWidget(preview_, 1);
  layout->addWidget(error_);
  layout->addLayout(bottom);
  fit_dialog(this, QSize(980, 820));

  (new Retranslator(this))->add([=, this] {
    setWindowTitle(tr("Export report"));
    format_label->setText(tr("&Format"));
    language_label->setText(tr("&Language"));
    format_->setItemText(0, tr("HTML (one file, charts inline)"));
    format_->setItemText(1, tr("PDF"));
    format_->setItemText(2, tr("Markdown (charts as PNG files beside it)"));
    format_->setItemText(3, tr("JSON (the result and the report's sections)"));
    // Wide enough for the longest item in this language: the style's own size hint falls a few
    // pixels short of its text field for CJK text.
    int widest = 0;
    for (int i = 0; i < format_->count(); ++i) widest = std::max(widest, format_->fontMetrics().horizontalAdvance(format_->itemText(i)));
    QStyleOptionComboBox option;
    option.initFrom(format_);
    const QSize text(widest + 8, format_->fontMetrics().height());
    format_->setMinimumWidth(format_->style()->sizeFromContents(QStyle::CT_ComboBox, &option, text, format_).width());
    redact_->setText(tr("Redact prompts and answers"));
    redact_->setToolTip(tr("Replace prompt and answer text by its length and SHA-256. API keys, key log secrets "
                           "and private keys are always redacted."));
    language_->setToolTip(tr("The report's language, whatever the interface's"));
    preview_->setToolTip(tr("The report as the PDF lays it out; HTML and Markdown hold the same"));
    save_button_->setText(tr("&Save…"));
    close_button_->setText(tr("&Close"));
  });

  connect(language_, &QComboBox::currentIndexChanged, this, &ReportDialog::rebuild);
  connect(redact_, &QCheckBox::toggled, this, &ReportDialog::rebuild);
  connect(save_button_, &QPushButton::clicked, this, &ReportDialog::askToSave);
  connect(close_button_, &QPushButton::clicked, this, &QDialog::reject);
  rebuild();
}

// A build still running is stopped and its thread joined off this one; what it posts is dropped.
ReportDialog::~ReportDialog() = default;  // the JobService drops a build still running, joined off this thread

void ReportDialog::setFormat(ReportFormat format) { format_->setCurrentIndex(format_->findData(static_cast<int>(format))); }
ReportFormat ReportDialog::format() const { return static_cast<ReportFormat>(format_->currentData().toInt()); }
QString ReportDialog::language() const { return language_->currentData().toString(); }
QString ReportDialog::errorText() const { return error_->text(); }

void ReportDialog::setLanguage(const QString& code) {
  const int at = language_->findData(code);
  if (at >= 0) language_->setCurrentIndex(at);
}

void ReportDialog::setRedactPrompts(bool on) { redact_->setChecked(on); }

void ReportDialog::rebuild() {
  jobs_->drop(job_);  // a build for options since changed: its result is not wanted
  error_->clear();
  error_->hide();
  setBusy(true);
  const QString lang = language();
  if (json_lang_ != lang) json_.reset();  // made again in this language
  status_->setText(json_ ? tr("Building the report…") : tr("Preparing the result…"));
  // The options are read here, on this thread (the zh_CN translator loads once, here).
  ReportOptions options = reportOptions(origin_, lang, redact_->isChecked());
  job_ = jobs_->start([this, lang, text = json_, job = json_ ? ResultJob() : job_maker_,
                       options = std::move(options)](JobContext& context) mutable {
    if (!text) {
      auto made = job(lang.toStdString(), context.stop);
      if (context.stop) return;
      if (!made) {
        auto failed = std::make_shared<Result<ReportDocument>>(made.error());
        context.post([this, lang, failed] { onBuilt(lang, nullptr, failed); });
        return;
      }
      text = std::make_shared<const std::string>(std::move(*made));
    }
    if (context.stop) return;
    auto doc = std::make_shared<Result<ReportDocument>>(build_report(*text, options));
    context.post([this, lang, text, doc] { onBuilt(lang, text, doc); });
  });
}

void ReportDialog::onBuilt(const QString& lang, std::shared_ptr<const std::string> json,
                           const std::shared_ptr<Result<ReportDocument>>& doc) {
  job_ = 0;
  if (json) {
    json_ = std::move(json);
    json_lang_ = lang;
  }
  if (!*doc) {
    doc_.reset();
    setBusy(false);
    preview_->clear();
    status_->clear();
    showError(QString::fromStdString(doc->error().detail));
    emit previewReady(false);
    return;
  }
  doc_ = std::make_shared<const ReportDocument>(std::move(**doc));
  setBusy(false);
  // The charts are drawn by the app's chart widgets: on this thread.
  auto* laid_out = new QTextDocument(preview_);
  const QStringList failed = layoutReport(laid_out, *doc_, preview_->viewport()->width() - 40);
  preview_->setDocument(laid_out);  // the previous preview, a child of the browser, is deleted
  if (!failed.isEmpty()) showError(failed.join('\n'));
  status_->setText(tr("%1 — charts: %2, fields redacted: %3")
                       .arg(QString::fromStdString(doc_->title))
                       .arg(doc_->charts.size())
                       .arg(doc_->redactions.size()));
  emit previewReady(true);
}

void ReportDialog::askToSave() {
  if (!doc_ || busy()) return;
  const ReportFormat f = format();
  const QString suffix = reportFormatSuffix(f);
  const QString filters[] = {tr("HTML (*.html);;All files (*)"), tr("PDF (*.pdf);;All files (*)"),
                             tr("Markdown (*.md);;All files (*)"), tr("JSON (*.json);;All files (*)")};
  const QString name = QStringLiteral("%1-report.%2").arg(QString::fromLatin1(to_string(doc_->kind)), suffix);
  QString path = save_file_name(this, tr("Export report"), name, filters[static_cast<int>(f)]);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().compare(suffix, Qt::CaseInsensitive) != 0) path += "." + suffix;
  save(path);
}

bool ReportDialog::save(const QString& path) {
  if (!doc_ || busy()) {
    showError(tr("The report is not ready yet."));
    return false;
  }
  error_->hide();
  QString why;
  if (!writeReport(*doc_, format(), path, &why)) {
    showError(why);
    emit message(tr("Report not written: %1").arg(why));
    return false;
  }
  const QString shown = QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath());
  status_->setText(tr("Written to %1").arg(shown));
  emit message(format() == ReportFormat::Markdown
                   ? tr("Report written to %1 (charts in %2_charts beside it)").arg(shown, QFileInfo(path).completeBaseName())
                   : tr("Report written to %1").arg(shown));
  emit saved(path);
  return true;
}

void ReportDialog::showError(const QString& text) {
  error_->setText(text);
  error_->show();
}

void ReportDialog::setBusy(bool on) {
  progress_->setVisible(on);
  save_button_->setEnabled(!on && doc_ != nullptr);
}

}  // namespace anthro::widgets
