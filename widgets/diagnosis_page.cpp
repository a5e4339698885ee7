#include "diagnosis_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "error_text.h"
#include "file_dialog.h"
#include "client_faults_box.h"
#include "connection_match.h"
#include "diagnosis_model.h"
#include "evidence_view.h"
#include "gui_thread.h"
#include "profile/profile.h"
#include "retranslator.h"
#include "session/target.h"
#include "job_service.h"
#include <climits>

namespace anthro::widgets {
namespace {

// The live workload names its connections "live#N" and "live-baseline"; a capture names them
// by address.
bool is_live_connection(const std::string& name) { return name.rfind("live", 0) == 0; }

}  // namespace

DiagnosisPage::DiagnosisPage(QWidget* parent)
    : QWidget(parent),
      checklist_box_(new QComboBox(this)),
      use_live_(new QCheckBox(this)),
      target_(new QComboBox(this)),
      requests_(new QSpinBox(this)),
      concurrency_(new QSpinBox(this)),
      capture_run_(new QCheckBox(this)),
      faults_(new ClientFaultsBox(this)),
      use_capture_(new QCheckBox(this)),
      capture_file_(new QComboBox(this)),
      browse_(new QPushButton(this)),
      use_system_(new QCheckBox(this)),
      run_button_(new QPushButton(this)),
      cancel_button_(new QPushButton(this)),
      export_button_(new QPushButton(this)),
      progress_(new QProgressBar(this)),
      progress_text_(new QLabel(this)),
      summary_(new QLabel(this)),
      list_(new QTableView(this)),
      evidence_(new EvidenceView(this)),
      jobs_(new JobService(this)),
      controller_(new DiagnosisController(jobs_, this)) {
  DiagnosisModel* model = controller_->model();
  list_->setModel(model);
  list_->setItemDelegateForColumn(DiagnosisModel::VerdictColumn, new VerdictChipDelegate(list_));
  list_->setSelectionBehavior(QAbstractItemView::SelectRows);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->verticalHeader()->hide();
  list_->setShowGrid(false);
  list_->setWordWrap(false);
  list_->horizontalHeader()->setStretchLastSection(true);
  list_->setColumnWidth(DiagnosisModel::VerdictColumn, list_->fontMetrics().horizontalAdvance("inconclusive") + 40);
  list_->setColumnWidth(DiagnosisModel::ItemColumn, list_->fontMetrics().horizontalAdvance('x') * 48);
  list_->verticalHeader()->setDefaultSectionSize(list_->fontMetrics().height() + 12);
  progress_->setRange(0, 0);
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_button_->setEnabled(false);
  export_button_->setEnabled(false);
  summary_->setWordWrap(true);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(list_);
  split->addWidget(evidence_);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 4);
  auto* run_row = new QHBoxLayout;
  run_row->addWidget(run_button_);
  run_row->addWidget(cancel_button_);
  run_row->addWidget(progress_);
  run_row->addWidget(progress_text_, 1);
  run_row->addWidget(export_button_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(makeSources());
  layout->addLayout(run_row);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  (new Retranslator(this))->add([this] {
    run_button_->setText(tr("Run diagnosis"));
    cancel_button_->setText(tr("Cancel"));
    export_button_->setText(tr("Export report…"));
    export_button_->setToolTip(tr("The verdicts, evidence, charts and remedies as HTML, PDF, Markdown or JSON"));
    evidence_->setToolTip(QString());
    if (progress_says_) progress_text_->setText(progress_says_());
    showSummary();
  });
  connect(run_button_, &QPushButton::clicked, this, &DiagnosisPage::run);
  connect(cancel_button_, &QPushButton::clicked, this, &DiagnosisPage::cancel);
  connect(export_button_, &QPushButton::clicked, this, &DiagnosisPage::exportReportRequested);
  connect(list_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DiagnosisPage::showSelected);
  connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
    if (evidence_->row() >= from.row() && evidence_->row() <= to.row()) showSelected();
  });
  connect(evidence_, &EvidenceView::refActivated, this, &DiagnosisPage::jump);
  connect(evidence_, &EvidenceView::causeActivated, this, &DiagnosisPage::selectItem);
  connect(evidence_, &EvidenceView::rerunRequested, this,
          [this](int row) { rerun(QString::fromStdString(this->model()->row(row).item.id)); });
  connect(evidence_, &EvidenceView::manualTicked, this,
          [model](int row, bool ticked, const QString& note) { model->setTicked(row, ticked, note); });
  bindController();
}

DiagnosisPage::~DiagnosisPage() = default;  // the jobs end with the JobService, joined off this thread

QWidget* DiagnosisPage::makeSources() {
  auto* box = new QGroupBox(this);
  target_->setEditable(true);
  target_->setInsertPolicy(QComboBox::NoInsert);
  target_->setMinimumContentsLength(36);
  requests_->setRange(1, 1000000);
  requests_->setValue(200);
  concurrency_->setRange(1, 1024);
  concurrency_->setValue(4);
  use_live_->setChecked(true);
  capture_run_->setChecked(true);
  capture_file_->setEditable(true);
  capture_file_->setMinimumContentsLength(36);
  auto* requests_label = new QLabel(this);
  auto* concurrency_label = new QLabel(this);
  auto* live_row = new QHBoxLayout;
  live_row->addWidget(target_, 1);
  live_row->addWidget(requests_label);
  live_row->addWidget(requests_);
  live_row->addWidget(concurrency_label);
  live_row->addWidget(concurrency_);
  auto* capture_row = new QHBoxLayout;
  capture_row->addWidget(capture_file_, 1);
  capture_row->addWidget(browse_);
  for (const Checklist* c : builtin_checklists()) checklist_box_->addItem(QString::fromStdString(c->title.en), QString::fromStdString(c->id));
  auto* checklist_label = new QLabel(this);
  auto* form = new QFormLayout(box);
  form->addRow(checklist_label, checklist_box_);
  form->addRow(use_live_, live_row);
  form->addRow(QString(), capture_run_);  // on its own row: the page fits a 1024 px screen
  form->addRow(QString(), faults_);
  form->addRow(use_capture_, capture_row);
  form->addRow(use_system_);
  thresholds_ = new QLineEdit(this);
  thresholds_->setObjectName(QStringLiteral("thresholds"));
  thresholds_->setClearButtonEnabled(true);
  auto* thresholds_label = new QLabel(this);
  thresholds_label->setBuddy(thresholds_);
  form->addRow(thresholds_label, thresholds_);
  connect(checklist_box_, &QComboBox::activated, this, &DiagnosisPage::onChecklistPicked);
  connect(browse_, &QPushButton::clicked, this, [this] {
    QString path = open_file_name(this, tr("Capture to diagnose"), tr("Captures (*.pcap *.pcapng *.cap);;All files (*)"));
    if (!path.isEmpty()) setCaptureFile(path);
  });
  (new Retranslator(this))->add([=, this] {
    box->setTitle(tr("Sources"));
    checklist_label->setText(tr("Checklist"));
    QString checklists = tr("Latency diagnosis for anthro-v1 and the HTTP baseline");
    QString riders;  // "; A and B on the Messages API": the checklists of formats riding on HTTP
    for (const Profile* p : profiles())
      if (p->rides_on == "http" && !p->checklist_id.empty()) {
        const QString name = QString::fromUtf8(p->display_name.data(), static_cast<int>(p->display_name.size()));
        riders = riders.isEmpty() ? name : tr("%1 and %2").arg(riders, name);
      }
    if (!riders.isEmpty()) checklists += tr("; %1 on the Messages API").arg(riders);
    for (const Profile* p : own_client_profiles()) {  // "; Name sessions on x:// and x+lab:// targets"
      QString schemes;
      for (const ProfileScheme& s : p->schemes) {
        const QString one = QString::fromUtf8(s.name.data(), static_cast<int>(s.name.size())) + "://";
        schemes = schemes.isEmpty() ? one : tr("%1 and %2").arg(schemes, one);
      }
      checklists += tr("; %1 sessions on %2 targets").arg(QString::fromUtf8(p->display_name.data(), static_cast<int>(p->display_name.size())), schemes);
    }
    checklist_box_->setToolTip(checklists);
    use_live_->setText(tr("Live target"));
    requests_label->setText(tr("Requests"));
    concurrency_label->setText(tr("Concurrency"));
    capture_run_->setText(tr("Capture this run's traffic (evidence jumps to frames)"));
    use_capture_->setText(tr("Capture"));
    browse_->setText(tr("Browse…"));
    use_system_->setText(tr("This machine (OpenSSL, CPU governor, NIC drops, socket buffers)"));
    thresholds_label->setText(tr("Thresholds"));
    thresholds_->setPlaceholderText(tr("ttft-tail=800, server-stall=500 (item=value or item.name=value)"));
    thresholds_->setToolTip(tr("Your own limits instead of the checklist's: an item's first threshold by its id, "
                               "another by id.name; the remedies name them"));
    target_->setToolTip(tr("anthro://host:port, anthro+lab://host:port, https://host/v1/messages, lz+lab://host:port"));
    capture_file_->setToolTip(tr("A capture open in the inspector, or a file"));
  });
  return box;
}

void DiagnosisPage::setTargets(const QStringList& urls) {
  const QString current = target_->currentText();
  target_->clear();
  target_->addItems(urls);
  if (!current.isEmpty()) target_->setCurrentText(current);
}

void DiagnosisPage::setTarget(const QString& url) { target_->setCurrentText(url); }
QString DiagnosisPage::target() const { return target_->currentText(); }
void DiagnosisPage::setUseLive(bool on) { use_live_->setChecked(on); }
void DiagnosisPage::setCaptureRun(bool on) { capture_run_->setChecked(on); }
void DiagnosisPage::setUseCapture(bool on) { use_capture_->setChecked(on); }
void DiagnosisPage::setUseSystem(bool on) { use_system_->setChecked(on); }

void DiagnosisPage::setWorkload(int requests, int concurrency) {
  requests_->setValue(requests);
  concurrency_->setValue(concurrency);
}

void DiagnosisPage::setOpenCaptures(const std::vector<std::pair<QString, CaptureKeySources>>& captures,
                                    const CaptureKeySources& fallback) {
  open_captures_ = captures;
  fallback_keys_ = fallback;
  const QString current = capture_file_->currentText();
  capture_file_->clear();
  for (const auto& [path, keys] : captures) capture_file_->addItem(QFileInfo(path).fileName(), path);
  capture_file_->setCurrentIndex(-1);
  if (!current.isEmpty()) setCaptureFile(current);
}

void DiagnosisPage::setCaptureFile(const QString& path) {
  int at = capture_file_->findData(path);
  if (at >= 0) capture_file_->setCurrentIndex(at);
  else capture_file_->setEditText(path);
  use_capture_->setChecked(!path.isEmpty());
}

void DiagnosisPage::setChecklist(const Checklist& checklist) {
  controller_->setChecklist(checklist);
  evidence_->showRow(model(), -1);
  checklist_box_->setCurrentIndex(checklist_box_->findData(QString::fromStdString(checklist.id)));
}

void DiagnosisPage::onChecklistPicked(int index) {
  const Checklist* picked = builtin_checklist(checklist_box_->itemData(index).toString().toStdString());
  if (!picked || picked->id == checklist().id) return;
  setChecklist(*picked);
  fitTarget();
}

// A checklist of a format riding on HTTP cannot run against an anthro-v1
// target: the first offered target it can reach is taken instead.
void DiagnosisPage::fitTarget() {
  auto serves = [this](const QString& url) {
    const qsizetype colon = url.indexOf("://");
    return colon > 0 && scheme_serves_checklist(url.left(colon).toStdString(), checklist().id);
  };
  if (serves(target_->currentText().trimmed())) return;
  for (int i = 0; i < target_->count(); ++i)
    if (serves(target_->itemText(i))) return target_->setCurrentIndex(i);
}

void DiagnosisPage::setLanguage(const QString& code) {
  model()->setLanguage(code);
  const std::string lang = code.toStdString();
  for (int i = 0; i < checklist_box_->count(); ++i)
    if (const Checklist* c = builtin_checklist(checklist_box_->itemData(i).toString().toStdString()))
      checklist_box_->setItemText(i, QString::fromStdString(c->title.in(lang)));
  showSelected();
}

QString DiagnosisPage::progressText() const { return progress_text_->text(); }

void DiagnosisPage::selectItem(const QString& id) {
  int row = model()->rowOf(id);
  if (row >= 0) list_->selectionModel()->setCurrentIndex(model()->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void DiagnosisPage::showSelected() {
  const QModelIndex current = list_->currentIndex();
  evidence_->showRow(model(), current.isValid() ? current.row() : -1);
  evidence_->setRerunEnabled(!running() && controller_->hasConfig());
}

// The sources ticked, as run_diagnosis takes them; nullopt (and a message) when unusable.
// The page's checklist with the Thresholds field applied, by the rule `diagnose --threshold`
// follows; a bad entry is said on the field, and nothing runs.
std::optional<Checklist> DiagnosisPage::checklistWithThresholds() {
  Checklist list = checklist();
  for (const QString& spec : thresholds_->text().split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
    if (auto ok = apply_threshold(list, spec.toStdString()); !ok) {
      const QString why = tr("Thresholds: %1").arg(QString::fromStdString(ok.error().detail));
      mark_field(thresholds_, why);
      emit message(why);
      return std::nullopt;
    }
  }
  mark_field(thresholds_, QString());
  return list;
}

std::optional<DiagnoseConfig> DiagnosisPage::configFromSources() {
  DiagnoseConfig c;
  auto list = checklistWithThresholds();
  if (!list) return std::nullopt;
  c.checklist = std::move(*list);
  if (use_live_->isChecked()) {
    LiveWorkloadConfig live;
    live.session.target = target_->currentText().trimmed().toStdString();
    live.requests = static_cast<std::uint64_t>(requests_->value());
    live.concurrency = static_cast<unsigned>(concurrency_->value());
    faults_->applyTo(live);
    c.live = live;
  }
  if (use_capture_->isChecked()) {
    QString path = capture_file_->currentData().toString();
    if (path.isEmpty() || capture_file_->currentText() != capture_file_->itemText(capture_file_->currentIndex()))
      path = capture_file_->currentText().trimmed();
    if (path.isEmpty()) {
      emit message(tr("Pick a capture, or untick the capture source."));
      return std::nullopt;
    }
    c.capture = path.toStdString();
    c.keys = fallback_keys_;
    for (const auto& [open, keys] : open_captures_)
      if (open == path) c.keys = keys;
  }
  if (use_system_->isChecked()) c.system = SystemProbeConfig{};
  if (!c.live && !c.capture && !c.system) {
    emit message(tr("Tick a source: a live target, a capture or this machine."));
    return std::nullopt;
  }
  return c;
}

bool DiagnosisPage::run() {
  auto config = configFromSources();
  if (!config) return false;
  const bool capture = config->live && capture_run_->isChecked();
  return controller_->start(std::move(*config), {}, capture);
}

bool DiagnosisPage::diagnoseCapture(const QString& path, const CaptureKeySources& keys) {
  setUseLive(false);
  setUseSystem(false);
  setCaptureFile(path);
  DiagnoseConfig c;
  auto list = checklistWithThresholds();
  if (!list) return false;
  c.checklist = std::move(*list);
  c.capture = path.toStdString();
  c.keys = keys;
  return controller_->start(std::move(c), {}, false);
}

bool DiagnosisPage::rerun(const QString& id) { return controller_->rerun(id); }

void DiagnosisPage::bindController() {
  connect(controller_, &DiagnosisController::stateChanged, this, &DiagnosisPage::onStateChanged);
  connect(controller_, &DiagnosisController::started, this, [this] {
    summary_->clear();
    summary_worst_.reset();
    progress_->setRange(0, 0);  // indeterminate until the run's total is known
    setProgress([] { return tr("Starting…"); });
  });
  connect(controller_, &DiagnosisController::stage, this,
          [this](const QString& line) { setProgress([line] { return line; }); });
  connect(controller_, &DiagnosisController::progress, this, &DiagnosisPage::onProgress);
  connect(controller_, &DiagnosisController::diagnosed, this, &DiagnosisPage::onDiagnosed);
  connect(controller_, &DiagnosisController::rejudged, this, &DiagnosisPage::onDiagnosed);
  connect(controller_, &DiagnosisController::finished, this, &DiagnosisPage::onFinished);
  connect(controller_, &DiagnosisController::failed, this, &DiagnosisPage::message);
  connect(controller_, &DiagnosisController::message, this, &DiagnosisPage::message);
  connect(controller_, &DiagnosisController::captureReady, this, &DiagnosisPage::captureReady);
}

// A determinate bar once the run knows its total: "54/200", not a bar going back and forth.
void DiagnosisPage::onProgress(quint64 done, quint64 total) {
  if (total == 0) return;
  progress_->setRange(0, static_cast<int>(std::min<quint64>(total, INT_MAX)));
  progress_->setValue(static_cast<int>(std::min(done, total)));
  progress_->setFormat(QStringLiteral("%v/%m"));
}

// Items not run (no source measures them, or a re-run of one) are not counted as checked; made
// again when the language changes.
void DiagnosisPage::showSummary() {
  if (!summary_worst_) return;
  int flagged = 0, ran = 0;
  DiagnosisModel* rows = model();
  for (int row = 0; row < rows->rowCount(); ++row) {
    const auto& item = rows->row(row).result;
    ran += item.has_value();
    flagged += item && (item->verdict == Verdict::Warn || item->verdict == Verdict::Fail);
  }
  summary_->setText(tr("%1 of %2 items run, %3 flagged; worst: %4")
                        .arg(ran).arg(rows->rowCount()).arg(flagged).arg(verdict_text(*summary_worst_)));
}

void DiagnosisPage::onDiagnosed(const Diagnosis& d) {
  summary_worst_ = d.worst();
  showSummary();
  if (!list_->currentIndex().isValid()) {
    for (const auto& i : d.items)  // the worst item first, as a person would look
      if (i.verdict == d.worst()) {
        selectItem(QString::fromStdString(i.id));
        break;
      }
  }
}

void DiagnosisPage::onFinished(DiagnosisController::Outcome outcome) {
  using Outcome = DiagnosisController::Outcome;
  const QString file = QFileInfo(controller_->capturePath()).fileName();
  const QString error = controller_->error();
  const quint64 done = controller_->done(), total = controller_->total();
  switch (outcome) {
    case Outcome::Done: setProgress([] { return tr("Diagnosis done"); }); break;
    case Outcome::Matched: setProgress([file] { return tr("Diagnosis done; evidence jumps to the frames of %1").arg(file); }); break;
    case Outcome::Unmatched: setProgress([] { return tr("Diagnosis done; no connection of the run was found in its capture"); }); break;
    case Outcome::CaptureFailed:
      setProgress([] { return tr("Diagnosis done; its capture failed, so evidence cannot jump to frames"); });
      break;
    case Outcome::CaptureUnread:
      setProgress([error] { return tr("Diagnosis done; its capture could not be read: %1").arg(error); });
      break;
    case Outcome::Failed: setProgress([error] { return error; }); break;
    case Outcome::Cancelled:  // how far it got, not core's last progress line
      setProgress([done, total] { return total ? tr("Cancelled: %1 of %2 requests done").arg(done).arg(total) : tr("Cancelled"); });
      emit message(tr("Diagnosis cancelled"));
      break;
  }
  const bool ok = outcome != Outcome::Failed && outcome != Outcome::Cancelled;
  if (!ok && outcome != Outcome::Failed) emit message(progress_text_->text());
  showSelected();
  emit finished(ok);
}

std::optional<Diagnosis> DiagnosisPage::diagnosis() const { return controller_->diagnosis(); }

void DiagnosisPage::cancel() { controller_->cancel(); }

bool DiagnosisPage::busy() const { return jobs_->busy() || controller_->busy(); }
bool DiagnosisPage::waitForJobs(int timeout_ms) { return jobs_->waitAll(timeout_ms); }

void DiagnosisPage::setProgress(std::function<QString()> text) {
  progress_says_ = std::move(text);
  progress_text_->setText(progress_says_());
}

void DiagnosisPage::onStateChanged() {
  const bool busy = running();
  run_button_->setEnabled(!busy);
  cancel_button_->setEnabled(busy);
  progress_->setVisible(busy);
  evidence_->setRerunEnabled(!busy && controller_->hasConfig());
  export_button_->setEnabled(!busy && controller_->hasDiagnosis());
}

void DiagnosisPage::jump(int row, int ref) {
  const DiagnosisRow& r = model()->row(row);
  if (!r.result || ref < 0 || static_cast<std::size_t>(ref) >= r.result->refs.size()) return;
  const EvidenceRef& e = r.result->refs[static_cast<std::size_t>(ref)];
  const int stream = e.stream_id ? static_cast<int>(*e.stream_id) : -1;
  if (r.run) {
    if (auto name = r.run->conn_names.find(e.conn); name != r.run->conn_names.end() && !r.run->capture.isEmpty())
      return emit jumpToFrames(r.run->capture, QString::fromStdString(name->second), stream);
    if (!r.run->observations.capture_file.empty() && !is_live_connection(e.conn))
      return emit jumpToFrames(QString::fromStdString(r.run->observations.capture_file), QString::fromStdString(e.conn), stream);
  }
  // Why there are no frames to show, as it is: never a box to tick that is ticked.
  const QString conn = QString::fromStdString(e.conn);
  if (!r.run || !r.run->capture_asked)
    emit message(tr("%1 was measured live without a capture: tick \"Capture this run's traffic\" and run again to see its frames.").arg(conn));
  else if (r.run->capture.isEmpty())
    emit message(tr("%1: the run's capture is not ready (still being written, or it failed: see the log).").arg(conn));
  else
    emit message(tr("%1 is not in the run's capture %2: none of its requests was found there with the same stream and timing.")
                     .arg(conn, QFileInfo(r.run->capture).fileName()));
}

}  // namespace anthro::widgets
