#include "capture_dialog.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "crypto/keylog.h"
#include "error_text.h"
#include "gui_thread.h"
#include "retranslator.h"
#include "job_service.h"

namespace anthro::widgets {
namespace {

QString shell_quote(const QString& s) {
  if (!s.isEmpty() && !s.contains(QRegularExpression("[^A-Za-z0-9_./:=@%+-]"))) return s;
  return "'" + QString(s).replace("'", "'\\''") + "'";
}

}  // namespace

CaptureDialog::CaptureDialog(QWidget* parent)
    : QDialog(parent),
      interface_(new QComboBox(this)),
      filter_(new QLineEdit(this)),
      duration_(new QSpinBox(this)),
      output_(new QLineEdit(this)),
      browse_(new QPushButton(this)),
      counts_(new QLabel(this)),
      status_(new QLabel(this)),
      command_(new QLabel(this)),
      start_(new QPushButton(this)),
      stop_(new QPushButton(this)),
      close_(new QPushButton(this)),
      interface_label_(new QLabel(this)),
      filter_label_(new QLabel(this)),
      duration_label_(new QLabel(this)),
      output_label_(new QLabel(this)),
      jobs_(new JobService(this)) {
  setObjectName("captureDialog");
  interface_->setEditable(true);  // an interface pcap did not list (or "any") can be typed
  interface_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  duration_->setRange(0, 86400);
  duration_->setSuffix(" s");
  output_->setText(QDir::temp().filePath(
      QStringLiteral("anthro-capture-%1.pcapng").arg(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"))));
  output_->setMinimumWidth(fontMetrics().horizontalAdvance(output_->text()) + 16);
  command_->setWordWrap(true);
  command_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_->setForegroundRole(QPalette::PlaceholderText);
  stop_->setEnabled(false);
  start_->setDefault(true);

  auto* output_row = new QHBoxLayout;
  output_row->addWidget(output_, 1);
  output_row->addWidget(browse_);
  auto* form = new QFormLayout;
  form->addRow(interface_label_, interface_);
  form->addRow(filter_label_, filter_);
  form->addRow(duration_label_, duration_);
  form->addRow(output_label_, output_row);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(counts_, 1);
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  buttons->addWidget(close_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(command_);
  layout->addWidget(status_);
  layout->addStretch(1);
  layout->addLayout(buttons);

  connect(start_, &QPushButton::clicked, this, &CaptureDialog::start);
  connect(stop_, &QPushButton::clicked, this, &CaptureDialog::stop);
  connect(close_, &QPushButton::clicked, this, &CaptureDialog::reject);
  connect(browse_, &QPushButton::clicked, this, &CaptureDialog::browse);
  auto update_command = [this] { command_->setText(tr("From a shell: %1").arg(commandLine())); };
  connect(interface_, &QComboBox::currentTextChanged, this, update_command);
  connect(filter_, &QLineEdit::textChanged, this, update_command);
  connect(duration_, &QSpinBox::valueChanged, this, update_command);
  connect(output_, &QLineEdit::textChanged, this, update_command);
  loadInterfaces();
  (new Retranslator(this))->add([this, update_command] {
    retranslate();
    update_command();
  });
}

CaptureDialog::~CaptureDialog() = default;  // the job stops and writes its file on its own

void CaptureDialog::retranslate() {
  setWindowTitle(tr("Start capture"));
  interface_label_->setText(tr("Interface"));
  filter_label_->setText(tr("Filter"));
  duration_label_->setText(tr("Duration"));
  output_label_->setText(tr("Save to"));
  filter_->setPlaceholderText(tr("BPF, as tcpdump takes it: tcp port 7443 (empty: everything)"));
  duration_->setSpecialValueText(tr("until Stop"));
  browse_->setText(tr("Browse…"));
  start_->setText(tr("Start"));
  stop_->setText(tr("Stop"));
  close_->setText(tr("Close"));
  onProgress(job_, progress_);
  if (!interfaces_error_.isEmpty()) showStatus(tr("No interface list: %1").arg(interfaces_error_), true);
}

void CaptureDialog::loadInterfaces() {
  auto list = list_capture_interfaces();
  if (!list) {
    interfaces_error_ = QString::fromStdString(list.error().detail);
    interface_->addItem(QStringLiteral("lo"));
    return;
  }
  for (const auto& i : *list) {
    QString name = QString::fromStdString(i.name);
    interface_->addItem(i.description.empty() ? name : name + " — " + QString::fromStdString(i.description), name);
  }
  if (interface_->count() == 0) interface_->addItem(QStringLiteral("lo"), QStringLiteral("lo"));
}

void CaptureDialog::setInterface(const QString& name) {
  int i = interface_->findData(name);
  if (i >= 0) interface_->setCurrentIndex(i);
  else interface_->setCurrentText(name);
}

QString CaptureDialog::interfaceName() const {
  // The item's data is the name; a typed text is the name itself.
  int i = interface_->currentIndex();
  if (i >= 0 && interface_->itemText(i) == interface_->currentText() && interface_->itemData(i).isValid())
    return interface_->itemData(i).toString();
  return interface_->currentText().trimmed();
}

void CaptureDialog::setFilter(const QString& bpf) { filter_->setText(bpf); }
void CaptureDialog::setDuration(int seconds) { duration_->setValue(seconds); }
void CaptureDialog::setOutput(const QString& path) { output_->setText(path); }
QString CaptureDialog::output() const { return output_->text().trimmed(); }
QString CaptureDialog::status() const { return status_->text(); }

QString CaptureDialog::commandLine() const {
  QStringList args{"anthro-wb", "capture", "--interface", shell_quote(interfaceName())};
  if (!filter_->text().trimmed().isEmpty()) args << "--filter" << shell_quote(filter_->text().trimmed());
  if (duration_->value() > 0) args << "--duration" << QString::number(duration_->value());
  args << "--output" << shell_quote(output());
  return args.join(' ');
}

void CaptureDialog::browse() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save capture as"), output(), tr("pcapng captures (*.pcapng)"));
  if (!path.isEmpty()) output_->setText(path);
}

bool CaptureDialog::start() {
  if (state_ != State::Idle) return false;
  if (interfaceName().isEmpty()) {
    showStatus(tr("Pick an interface to capture on."), true);
    return false;
  }
  QFileInfo out(output());
  if (output().isEmpty() || !out.absoluteDir().exists()) {
    showStatus(tr("Save to: the folder of \"%1\" does not exist.").arg(output()), true);
    return false;
  }
  LiveCaptureConfig c;
  c.interface = interfaceName().toStdString();
  c.filter = filter_->text().trimmed().toStdString();
  c.duration_s = duration_->value();
  c.output = out.absoluteFilePath().toStdString();
  c.own_keys = true;  // the workbench's own sessions, loads and checklists decrypt with no key file
  const QString path = out.absoluteFilePath();
  progress_ = {};
  setState(State::Starting);
  showStatus(tr("Opening %1…").arg(interfaceName()), false);
  job_ = jobs_->start([this, c, path](JobContext& job) {
    auto stats = run_live_capture(
        c, job.stop,
        [this, &job] {
          job.post([this, id = job.id] {
            if (id == job_ && state_ == State::Starting) setState(State::Capturing);
          });
        },
        [this, &job](const LiveCaptureStats& s) { job.post([this, id = job.id, s] { onProgress(id, s); }); });
    job.post([this, id = job.id, path, stats] { onEnded(id, path, stats); });
  });
  return true;
}

void CaptureDialog::stop() {
  if (state_ != State::Starting && state_ != State::Capturing) return;
  setState(State::Stopping);
  jobs_->stop(job_);
}

void CaptureDialog::reject() {
  stop();
  QDialog::reject();
}

void CaptureDialog::onProgress(std::uint64_t job, const LiveCaptureStats& stats) {
  if (job != job_) return;
  progress_ = stats;
  counts_->setText(tr("Packets: %1, bytes: %2")
                       .arg(stats.packets)
                       .arg(QLocale().toString(static_cast<qulonglong>(stats.bytes))));  // no unit to translate
}

void CaptureDialog::onEnded(std::uint64_t job, const QString& path, const Result<LiveCaptureStats>& stats) {
  if (job != job_) return;
  setState(State::Idle);
  if (!stats) {
    const QString detail = QString::fromStdString(stats.error().detail);
    // The helper's message names the setcap command; say who runs it (selectable, to copy).
    showStatus(stats.error().reason == "permission"
                   ? tr("This account may not capture: the capture helper lacks its capabilities. An administrator "
                        "grants them once (installing the .deb does): %1")
                         .arg(detail)
                   : detail,
               true);
    emit message(tr("Capture failed: %1").arg(QString::fromStdString(stats.error().detail)));
    return;
  }
  onProgress(job, *stats);
  showStatus(tr("Written to %1 (kernel drops %2, interface drops %3).")
                 .arg(path)
                 .arg(stats->kernel_drops)
                 .arg(stats->interface_drops),
             false);
  if (stats->own_key_lines_lost > 0)
    emit message(tr("%1: %2 key lines of this workbench's connections embedded; %3 older ones were dropped (at most %4 are kept).")
                     .arg(path)
                     .arg(stats->own_key_lines)
                     .arg(stats->own_key_lines_lost)
                     .arg(OwnKeyLog::kMaxLines));
  else
    emit message(tr("%1: %2 key lines of this workbench's connections embedded.").arg(path).arg(stats->own_key_lines));
  emit captured(path);
}

void CaptureDialog::setState(State s) {
  state_ = s;
  const bool idle = s == State::Idle;
  start_->setEnabled(idle);
  stop_->setEnabled(s == State::Starting || s == State::Capturing);
  for (QWidget* w : std::initializer_list<QWidget*>{interface_, filter_, duration_, output_, browse_}) w->setEnabled(idle);
  if (s == State::Capturing) showStatus(tr("Capturing on %1…").arg(interfaceName()), false);
  if (s == State::Stopping) showStatus(tr("Stopping: writing the file…"), false);
}

void CaptureDialog::showStatus(const QString& text, bool error) {
  status_->setText(text);
  show_as_error(status_, error);
}

}  // namespace anthro::widgets
