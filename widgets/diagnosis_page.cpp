#include "diagnosis_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "file_dialog.h"
#include "client_faults_box.h"
#include "connection_match.h"
#include "diagnosis_model.h"
#include "evidence_view.h"
#include "gui_thread.h"
#include "profile/profile.h"
#include "retranslator.h"
#include "session/target.h"
#include "worker.h"

namespace anthro::widgets {
namespace {

// The checklist reduced to one item, for re-running it alone.
Checklist only(const Checklist& checklist, const std::string& id) {
  Checklist c = checklist;
  c.items.clear();
  if (const ChecklistItem* item = checklist.item(id)) c.items.push_back(*item);
  return c;
}

// The live workload names its connections "live#N" and "live-baseline"; a capture names them
// by address.
bool is_live_connection(const std::string& name) { return name.rfind("live", 0) == 0; }

QString summary_of(const Diagnosis& d) {
  int flagged = 0;
  for (const auto& i : d.items) flagged += i.verdict == Verdict::Warn || i.verdict == Verdict::Fail;
  return DiagnosisPage::tr("%1 items, %2 flagged; worst: %3").arg(d.items.size()).arg(flagged).arg(verdict_text(d.worst()));
}

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
      model_(new DiagnosisModel(this)),
      list_(new QTableView(this)),
      evidence_(new EvidenceView(this)),
      inbox_(std::make_shared<Inbox>(this)) {
  model_->setChecklist(checklist_);
  list_->setModel(model_);
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
  });
  connect(run_button_, &QPushButton::clicked, this, &DiagnosisPage::run);
  connect(cancel_button_, &QPushButton::clicked, this, &DiagnosisPage::cancel);
  connect(export_button_, &QPushButton::clicked, this, &DiagnosisPage::exportReportRequested);
  connect(list_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DiagnosisPage::showSelected);
  connect(model_, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
    if (evidence_->row() >= from.row() && evidence_->row() <= to.row()) showSelected();
  });
  connect(evidence_, &EvidenceView::refActivated, this, &DiagnosisPage::jump);
  connect(evidence_, &EvidenceView::causeActivated, this, &DiagnosisPage::selectItem);
  connect(evidence_, &EvidenceView::rerunRequested, this,
          [this](int row) { rerun(QString::fromStdString(model_->row(row).item.id)); });
  connect(evidence_, &EvidenceView::manualTicked, this,
          [this](int row, bool ticked, const QString& note) { model_->setTicked(row, ticked, note); });
}

DiagnosisPage::~DiagnosisPage() { inbox_->close(); }  // the workers stop and are joined off this thread

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
  checklist_ = checklist;
  model_->setChecklist(checklist_);
  evidence_->showRow(model_, -1);
  checklist_box_->setCurrentIndex(checklist_box_->findData(QString::fromStdString(checklist.id)));
}

void DiagnosisPage::onChecklistPicked(int index) {
  const Checklist* picked = builtin_checklist(checklist_box_->itemData(index).toString().toStdString());
  if (!picked || picked->id == checklist_.id) return;
  setChecklist(*picked);
  fitTarget();
}

// A checklist of a format riding on HTTP cannot run against an anthro-v1
// target: the first offered target it can reach is taken instead.
void DiagnosisPage::fitTarget() {
  auto serves = [this](const QString& url) {
    const qsizetype colon = url.indexOf("://");
    return colon > 0 && scheme_serves_checklist(url.left(colon).toStdString(), checklist_.id);
  };
  if (serves(target_->currentText().trimmed())) return;
  for (int i = 0; i < target_->count(); ++i)
    if (serves(target_->itemText(i))) return target_->setCurrentIndex(i);
}

void DiagnosisPage::setLanguage(const QString& code) {
  model_->setLanguage(code);
  const std::string lang = code.toStdString();
  for (int i = 0; i < checklist_box_->count(); ++i)
    if (const Checklist* c = builtin_checklist(checklist_box_->itemData(i).toString().toStdString()))
      checklist_box_->setItemText(i, QString::fromStdString(c->title.in(lang)));
  showSelected();
}

QString DiagnosisPage::progressText() const { return progress_text_->text(); }

void DiagnosisPage::selectItem(const QString& id) {
  int row = model_->rowOf(id);
  if (row >= 0) list_->selectionModel()->setCurrentIndex(model_->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void DiagnosisPage::showSelected() {
  const QModelIndex current = list_->currentIndex();
  evidence_->showRow(model_, current.isValid() ? current.row() : -1);
  evidence_->setRerunEnabled(!running() && last_config_.has_value());
}

// The sources ticked, as run_diagnosis takes them; nullopt (and a message) when unusable.
std::optional<DiagnoseConfig> DiagnosisPage::configFromSources() {
  DiagnoseConfig c;
  c.checklist = checklist_;
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
  return start(std::move(*config), {}, config->live && capture_run_->isChecked());
}

bool DiagnosisPage::diagnoseCapture(const QString& path, const CaptureKeySources& keys) {
  setUseLive(false);
  setUseSystem(false);
  setCaptureFile(path);
  DiagnoseConfig c;
  c.checklist = checklist_;
  c.capture = path.toStdString();
  c.keys = keys;
  return start(std::move(c), {}, false);
}

bool DiagnosisPage::rerun(const QString& id) {
  if (!last_config_) {
    emit message(tr("Run the diagnosis once before re-running an item."));
    return false;
  }
  DiagnoseConfig c = *last_config_;
  c.checklist = only(checklist_, id.toStdString());
  return start(std::move(c), id, last_captured_);
}

bool DiagnosisPage::start(DiagnoseConfig config, const QString& only_item, bool capture_run) {
  if (running()) {
    emit message(tr("A diagnosis is already running; cancel it first."));
    return false;
  }
  std::optional<std::uint16_t> port;
  if (config.live) {
    auto target = parse_target(config.live->session.target);
    if (!target) {
      emit message(QString::fromStdString(target.error().detail));
      return false;
    }
    port = target->port;
  }
  if (only_item.isEmpty()) {
    last_config_ = config;
    last_captured_ = capture_run;
    last_diagnosis_.reset();
    model_->clearResults();
  }
  ++run_;
  pending_ = std::make_unique<PendingRun>();
  pending_->config = std::move(config);
  pending_->only_item = only_item;
  pending_->result = std::make_shared<DiagnosisRun>();
  pending_->result->capture_asked = capture_run && port;
  summary_->clear();
  if (!capture_run || !port) {
    startWorker();
    return true;
  }
  // The capture must be listening before the workload sends its first byte.
  pending_->capture = new_capture_files("anthro-diagnosis");
  pending_->config.live->session.keylog_path = pending_->capture->keylog.toStdString();
  auto previous = capture_worker_ ? capture_worker_->finished() : std::shared_future<void>();
  setState(State::StartingCapture);
  setProgress([] { return tr("Starting the capture on lo…"); });
  capture_worker_ = start_loopback_capture(
      *pending_->capture, *port, previous, [this, inbox = inbox_, run = run_] { inbox->post([this, run] { onCaptureListening(run); }); },
      [this, inbox = inbox_, run = run_](const Result<LiveCaptureStats>& stats) {
        inbox->post([this, run, stats] { onCaptureEnded(run, stats); });
      });
  return true;
}

void DiagnosisPage::onCaptureListening(int run) {
  if (run == run_ && state_ == State::StartingCapture) startWorker();
}

void DiagnosisPage::startWorker() {
  setState(State::Running);
  setProgress([] { return tr("Running…"); });
  worker_ = std::make_unique<Worker>([this, inbox = inbox_, run = run_, config = pending_->config](const std::atomic<bool>& stop) mutable {
    config.stop = &stop;
    config.on_progress = [this, inbox](const std::string& line) {
      inbox->post([this, l = QString::fromStdString(line)] { setProgress([l] { return l; }); });
    };
    auto result = run_diagnosis(config);
    inbox->post([this, run, result] { onDiagnosed(run, result); });
  });
}

void DiagnosisPage::onDiagnosed(int run, const Result<Diagnosis>& result) {
  if (run != run_ || state_ != State::Running) return;
  worker_.reset();
  if (capture_worker_) capture_worker_->stop();  // it writes the file, then reports
  if (!result) return finish(false, [d = QString::fromStdString(result.error().detail)] { return d; });
  pending_->result->observations = result->observations;
  if (pending_->only_item.isEmpty()) {
    last_diagnosis_ = *result;
    model_->setDiagnosis(*result, pending_->result);
  } else if (!result->items.empty()) model_->setItemResult(result->items.front(), pending_->result);
  for (const auto& w : result->warnings) emit message(QString::fromStdString(w));
  summary_->setText(summary_of(*result));
  if (list_->currentIndex().isValid() == false) {
    for (const auto& i : result->items)  // the worst item first, as a person would look
      if (i.verdict == result->worst()) {
        selectItem(QString::fromStdString(i.id));
        break;
      }
  }
  if (!pending_->capture) return finish(true, [] { return tr("Diagnosis done"); });
  pending_->judged = std::make_shared<Diagnosis>(*result);
  setState(State::Matching);
  setProgress([] { return tr("Writing the run's capture…"); });
}

void DiagnosisPage::onCaptureEnded(int run, const Result<LiveCaptureStats>& stats) {
  if (run != run_) return;
  if (!stats) emit message(tr("Capture failed: %1").arg(QString::fromStdString(stats.error().detail)));
  else if (stats->kernel_drops + stats->interface_drops > 0)
    emit message(tr("The capture lost %1 packets: some streams may not decode").arg(stats->kernel_drops + stats->interface_drops));
  if (state_ == State::StartingCapture) {  // it never got ready: go on without it
    pending_->capture.reset();
    pending_->config.live->session.keylog_path.clear();
    return startWorker();
  }
  if (state_ != State::Matching) return;
  if (!stats) return finish(true, [] { return tr("Diagnosis done; its capture failed, so evidence cannot jump to frames"); });
  pending_->result->capture = pending_->capture->pcapng;
  emit captureReady(pending_->result->capture);
  startMatching();
}

// The live run's connections named as in its capture, and the capture made a source of the
// diagnosis (add_capture_of_run: the items only a capture measures), read on a worker.
void DiagnosisPage::startMatching() {
  setProgress([] { return tr("Matching the run's connections to its capture…"); });
  match_worker_ = std::make_unique<Worker>([this, inbox = inbox_, run = run_, path = pending_->result->capture.toStdString(),
                                            checklist = pending_->config.checklist,
                                            live = pending_->judged](const std::atomic<bool>& stop) {
    AnalyzeOptions options;
    options.progress = [&stop](std::uint64_t, std::uint64_t) { return !stop.load(); };
    auto analysis = analyze_capture(path, {}, {}, options);  // the keys are embedded in the file
    std::map<std::string, std::string> names;
    auto judged = std::make_shared<Diagnosis>(*live);
    QString problem;
    if (analysis) {
      Observations captured = observe_capture(*analysis);
      names = match_connections(live->observations, captured);
      add_capture_of_run(*judged, checklist, std::move(captured));
    } else {
      problem = QString::fromStdString(analysis.error().detail);
    }
    inbox->post([this, run, names, judged, problem] { onMatched(run, names, judged, problem); });
  });
}

void DiagnosisPage::onMatched(int run, const std::map<std::string, std::string>& names,
                              std::shared_ptr<const Diagnosis> judged, const QString& problem) {
  if (run != run_ || state_ != State::Matching) return;
  match_worker_.reset();
  auto matched = std::make_shared<DiagnosisRun>(*pending_->result);
  matched->conn_names = names;
  matched->observations = judged->observations;
  model_->setRun(pending_->result, matched);
  if (pending_->only_item.isEmpty()) {
    last_diagnosis_ = *judged;
    model_->setDiagnosis(*judged, matched);
  } else if (!judged->items.empty()) {
    model_->setItemResult(judged->items.front(), matched);
  }
  summary_->setText(summary_of(*judged));
  if (!problem.isEmpty())
    finish(true, [problem] { return tr("Diagnosis done; its capture could not be read: %1").arg(problem); });
  else
    finish(true, [file = QFileInfo(matched->capture).fileName(), found = !names.empty()] {
      return found ? tr("Diagnosis done; evidence jumps to the frames of %1").arg(file)
                   : tr("Diagnosis done; no connection of the run was found in its capture");
    });
  showSelected();
}

std::optional<Diagnosis> DiagnosisPage::diagnosis() const {
  if (!hasDiagnosis()) return std::nullopt;
  Diagnosis d = *last_diagnosis_;
  for (auto& item : d.items)  // re-runs and notes live in the rows
    if (int row = model_->rowOf(QString::fromStdString(item.id)); row >= 0 && model_->row(row).result)
      item = *model_->row(row).result;
  return d;
}

void DiagnosisPage::cancel() {
  if (!running()) return;
  emit message(tr("Diagnosis cancelled"));
  finish(false, [] { return tr("Cancelled"); });
}

void DiagnosisPage::setProgress(std::function<QString()> text) {
  progress_says_ = std::move(text);
  progress_text_->setText(progress_says_());
}

void DiagnosisPage::finish(bool ok, std::function<QString()> text) {
  // Workers are never joined here: dropping them stops them, and the reaper joins.
  worker_.reset();
  match_worker_.reset();
  if (capture_worker_) capture_worker_->stop();
  ++run_;  // what the dropped workers still post is ignored
  pending_.reset();
  setState(State::Idle);
  setProgress(std::move(text));
  if (!ok) emit message(progress_text_->text());
  emit finished(ok);
}

void DiagnosisPage::setState(State s) {
  state_ = s;
  const bool busy = s != State::Idle;
  run_button_->setEnabled(!busy);
  cancel_button_->setEnabled(busy);
  progress_->setVisible(busy);
  evidence_->setRerunEnabled(!busy && last_config_.has_value());
  export_button_->setEnabled(!busy && last_diagnosis_.has_value());
}

void DiagnosisPage::jump(int row, int ref) {
  const DiagnosisRow& r = model_->row(row);
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
