#include "session_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "client_faults_box.h"
#include "error_text.h"
#include "gui_thread.h"
#include "latency_charts.h"
#include "loopback_capture.h"
#include "request_point.h"
#include "retranslator.h"
#include "session/bench.h"
#include "session/live_session.h"
#include "session/target.h"
#include "worker.h"

namespace anthro::widgets {
namespace {

constexpr int kMaxRecentTargets = 10;

QString ms(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 1) + " ms" : QStringLiteral("–"); }

}  // namespace

SessionPanel::SessionPanel(QWidget* parent)
    : QWidget(parent),
      target_(new QComboBox(this)),
      key_source_(new QComboBox(this)),
      api_key_(new QLineEdit(this)),
      model_(new QLineEdit(QStringLiteral("claude-3-haiku-20240307"), this)),
      max_tokens_(new QSpinBox(this)),
      system_(new QLineEdit(this)),
      prompt_(new QPlainTextEdit(this)),
      stream_(new QCheckBox(this)),
      repeat_(new QSpinBox(this)),
      capture_(new QCheckBox(this)),
      send_(new QPushButton(this)),
      cancel_(new QPushButton(this)),
      answer_(new QPlainTextEdit(this)),
      figures_(new QLabel(this)),
      session_error_(new QLabel(this)),
      concurrency_(new QSpinBox(this)),
      rate_(new QDoubleSpinBox(this)),
      requests_(new QSpinBox(this)),
      series_(new QComboBox(this)),
      load_button_(new QPushButton(this)),
      load_status_(new QLabel(this)),
      diagnose_button_(new QPushButton(this)),
      export_button_(new QPushButton(this)),
      faults_(new ClientFaultsBox(this)),
      charts_(new LatencyCharts(this)),
      inbox_(std::make_shared<Inbox>(this)) {
  target_->setEditable(true);
  target_->setInsertPolicy(QComboBox::NoInsert);
  target_->setMinimumContentsLength(24);  // long URLs scroll in the field; the page must fit 1024 px
  target_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  key_source_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // follows the language's longest text
  key_source_->addItems({QString(), QString(), QString(), QString()});
  api_key_->setEchoMode(QLineEdit::Password);
  api_key_->setEnabled(false);
  connect(key_source_, &QComboBox::currentIndexChanged, this, [this](int i) { api_key_->setEnabled(i == 3); });
  max_tokens_->setRange(1, 1 << 20);
  max_tokens_->setValue(256);
  prompt_->setPlainText(tr("Explain tail latency in one paragraph."));
  prompt_->setMaximumHeight(90);
  stream_->setChecked(true);
  repeat_->setRange(1, 1000);
  cancel_->setEnabled(false);
  answer_->setReadOnly(true);
  figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  concurrency_->setRange(0, 4096);
  concurrency_->setValue(4);
  rate_->setRange(0, 100000);
  requests_->setRange(1, 1000000);
  requests_->setValue(50);
  series_->addItems({QString(), QString()});

  auto* request_box = new QGroupBox(this);
  // Never squeezed below its rows' heights: on a short screen the page scrolls instead.
  request_box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  auto* target_label = new QLabel(this);
  auto* model_label = new QLabel(this);
  auto* max_tokens_label = new QLabel(this);
  auto* system_label = new QLabel(this);
  auto* message_label = new QLabel(this);
  auto* form = new QFormLayout(request_box);
  form->addRow(target_label, target_);
  // The key's source, and under it the field a typed key goes in, as wide as the column: the
  // column stays narrow enough for the charts beside it on a 1024 px screen.
  auto* key_label = new QLabel(this);
  form->addRow(key_label, key_source_);
  form->addRow(QString(), api_key_);
  form->addRow(model_label, model_);
  auto* tokens_row = new QHBoxLayout;
  tokens_row->addWidget(max_tokens_);
  tokens_row->addWidget(stream_);
  tokens_row->addStretch(1);
  form->addRow(max_tokens_label, tokens_row);
  form->addRow(system_label, system_);
  form->addRow(message_label, prompt_);
  form->addRow(capture_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(repeat_);
  buttons->addWidget(send_);
  buttons->addWidget(cancel_);
  form->addRow(buttons);

  auto* answer_box = new QGroupBox(this);
  auto* answer_layout = new QVBoxLayout(answer_box);
  answer_layout->addWidget(answer_, 1);
  // The stats line and the error wrap rather than widen the page.
  figures_->setWordWrap(true);
  answer_layout->addWidget(figures_);
  show_as_error(session_error_);
  session_error_->hide();
  answer_layout->addWidget(session_error_);

  auto* load_box = new QGroupBox(this);
  load_box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  auto* concurrency_label = new QLabel(this);
  auto* rate_label = new QLabel(this);
  auto* requests_label = new QLabel(this);
  auto* load_layout = new QHBoxLayout;
  auto* load_box_layout = new QVBoxLayout(load_box);
  load_box_layout->addLayout(load_layout);
  load_box_layout->addWidget(load_status_);  // under the controls, the whole width: one line
  load_box_layout->addWidget(faults_);
  load_layout->addWidget(concurrency_label);
  load_layout->addWidget(concurrency_);
  load_layout->addWidget(rate_label);
  load_layout->addWidget(rate_);
  load_layout->addWidget(requests_label);
  load_layout->addWidget(requests_);
  load_layout->addWidget(series_);
  load_layout->addWidget(load_button_);
  load_layout->addStretch(1);
  load_layout->addWidget(diagnose_button_);
  load_layout->addWidget(export_button_);
  load_status_->setWordWrap(true);  // progress lines must not widen the page
  diagnose_button_->hide();  // shown when a load has ended: its target is worth diagnosing
  export_button_->hide();    // shown when a session or a load has ended

  // A splitter, not a box layout: the answer's wrapping stats line (height-for-width) would make
  // the answer box's preferred height its minimum in a box layout and squeeze the request box.
  auto* left = new QSplitter(Qt::Vertical, this);
  left->setChildrenCollapsible(false);
  left->addWidget(request_box);
  left->addWidget(answer_box);
  left->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(charts_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 5);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(split, 1);
  layout->addWidget(load_box);

  (new Retranslator(this))->add([=, this] {
    stream_->setText(tr("Stream"));
    capture_->setText(tr("Capture this session's traffic into the inspector"));
    send_->setText(tr("Send"));
    cancel_->setText(tr("Cancel"));
    load_button_->setText(loadRunning() ? tr("Stop load") : tr("Run load"));
    diagnose_button_->setText(tr("Diagnose this target…"));
    export_button_->setText(tr("Export report…"));
    export_button_->setToolTip(tr("The last session or load (whichever ended last) as HTML, PDF, Markdown or JSON"));
    target_->setToolTip(tr("anthro://host:port, anthro+lab://host:port, https://host/v1/messages, "
                           "https://host/v1/chat/completions"));
    const QString sources[] = {tr("No API key"), tr("From $ANTHROPIC_API_KEY"), tr("From $OPENAI_API_KEY"), tr("Typed here")};
    for (int i = 0; i < 4; ++i) key_source_->setItemText(i, sources[i]);
    api_key_->setPlaceholderText(tr("API key, never saved"));
    api_key_->setToolTip(tr("API key (kept in memory only, never saved)"));
    system_->setPlaceholderText(tr("System prompt (optional)"));
    repeat_->setPrefix(tr("× "));
    repeat_->setToolTip(tr("Requests on the same connection, one after another"));
    answer_->setPlaceholderText(tr("The answer streams here."));
    concurrency_->setSpecialValueText(tr("open loop"));
    rate_->setSuffix(tr(" req/s"));
    rate_->setToolTip(tr("Open loop (used when concurrency is 0): constant arrivals at this rate"));
    series_->setItemText(0, tr("as baseline"));
    series_->setItemText(1, tr("as candidate"));
    charts_->setSeriesName(0, tr("baseline"));
    charts_->setSeriesName(1, tr("candidate"));
    request_box->setTitle(tr("Request"));
    target_label->setText(tr("Target"));
    key_label->setText(tr("API key"));
    model_label->setText(tr("Model"));
    max_tokens_label->setText(tr("max_tokens"));
    system_label->setText(tr("System"));
    message_label->setText(tr("Message"));
    answer_box->setTitle(tr("Answer"));
    load_box->setTitle(tr("Load"));
    concurrency_label->setText(tr("Concurrency"));
    rate_label->setText(tr("Rate"));
    requests_label->setText(tr("Requests"));
  });

  connect(charts_, &LatencyCharts::message, this, &SessionPanel::message);
  connect(charts_, &LatencyCharts::requestClicked, this, [this](int, int request) {
    if (request < 0 || static_cast<std::size_t>(request) >= plotted_.size()) return;
    const auto& [capture, stream] = plotted_[static_cast<std::size_t>(request)];
    if (capture.isEmpty()) emit message(tr("Stream %1 was not captured: tick the capture option to see its frames.").arg(stream));
    else emit streamClicked(capture, stream);
  });
  connect(send_, &QPushButton::clicked, this, &SessionPanel::send);
  connect(diagnose_button_, &QPushButton::clicked, this, [this] { emit diagnoseRequested(target()); });
  connect(export_button_, &QPushButton::clicked, this, &SessionPanel::exportReportRequested);
  connect(cancel_, &QPushButton::clicked, this, &SessionPanel::cancel);
  connect(load_button_, &QPushButton::clicked, this, [this] {
    if (loadRunning()) stopLoad();
    else runLoad();
  });
  for (const QString& url : recentTargets()) target_->addItem(url);
}

SessionPanel::~SessionPanel() {
  inbox_->close();
  // The session cancels and the workers stop (a load's requests in flight finish) on the
  // reaper thread, not this one.
  reap([session = std::shared_ptr<LiveSession>(std::move(session_))] {});
}

void SessionPanel::setEmbeddedTargets(const QString& anthro, const QString& lab, const QString& https_messages,
                                      const QString& http_messages) {
  // The previous start's ports, remembered before this fix or by an older version, go.
  QSettings settings;
  QStringList stale = settings.value("session/embeddedTargets").toStringList();
  QStringList recent = recentTargets();
  for (const QString& url : stale) {
    recent.removeAll(url);
    if (int i = target_->findText(url); i >= 0) target_->removeItem(i);
  }
  settings.setValue("session/recentTargets", recent);
  embedded_targets_ = {anthro, lab, https_messages, http_messages};
  embedded_targets_.removeAll(QString());
  settings.setValue("session/embeddedTargets", embedded_targets_);
  int at = 0;
  for (const QString& url : {anthro, lab, https_messages, http_messages})
    if (!url.isEmpty() && target_->findText(url) < 0) target_->insertItem(at++, url);
  target_->insertSeparator(at);
  if (target_->findText("https://api.anthropic.com/v1/messages") < 0) target_->addItem("https://api.anthropic.com/v1/messages");
  target_->setCurrentIndex(0);
}

void SessionPanel::setTarget(const QString& url) { target_->setCurrentText(url); }
QString SessionPanel::target() const { return target_->currentText().trimmed(); }
void SessionPanel::setPrompt(const QString& text) { prompt_->setPlainText(text); }
void SessionPanel::setRepeat(int requests) { repeat_->setValue(requests); }
void SessionPanel::setCaptureTraffic(bool on) { capture_->setChecked(on); }
QString SessionPanel::answer() const { return answer_->toPlainText(); }
bool SessionPanel::running() const { return state_ != State::Idle; }

QStringList SessionPanel::recentTargets() const { return QSettings().value("session/recentTargets").toStringList(); }

void SessionPanel::rememberTarget(const QString& url) {
  // Only URLs are kept: API keys never reach the settings file.
  if (embedded_targets_.contains(url)) return;
  QStringList recent = recentTargets();
  recent.removeAll(url);
  recent.prepend(url);
  while (recent.size() > kMaxRecentTargets) recent.removeLast();
  QSettings().setValue("session/recentTargets", recent);
}

SessionConfig SessionPanel::config() const {
  SessionConfig c;
  c.target = target().toStdString();
  c.model = model_->text().trimmed().toStdString();
  c.max_tokens = static_cast<std::uint32_t>(max_tokens_->value());
  if (!system_->text().trimmed().isEmpty()) c.system = system_->text().toStdString();
  c.messages = {{"user", prompt_->toPlainText().toStdString()}};
  c.stream = stream_->isChecked();
  c.repeat = static_cast<unsigned>(repeat_->value());
  switch (key_source_->currentIndex()) {
    case 1: c.api_key = qEnvironmentVariable("ANTHROPIC_API_KEY").toStdString(); break;
    case 2: c.api_key = qEnvironmentVariable("OPENAI_API_KEY").toStdString(); break;
    case 3: c.api_key = api_key_->text().toStdString(); break;
    default: break;
  }
  return c;
}

bool SessionPanel::send() {
  if (running()) {
    emit message(tr("A session is already running; cancel it first."));
    return false;
  }
  SessionConfig c = config();
  auto parsed = parse_target(c.target);
  if (!parsed) {
    emit message(QString::fromStdString(parsed.error().detail));
    showSessionError(QString::fromStdString(parsed.error().detail));
    return false;
  }
  if (key_source_->currentIndex() == 1 && c.api_key.empty())
    emit message(tr("ANTHROPIC_API_KEY is not set in the environment; sending without a key."));
  answer_->clear();
  figures_->clear();
  showSessionError({});
  results_.clear();
  rememberTarget(target());

  if (!capture_->isChecked()) return startSession(std::move(c), {});
  startCapture(std::move(c), parsed->port);
  return true;
}

// The capture must be listening before the first byte is sent: the session starts when it is
// ready, or without it when it cannot start (the reason goes to the log). Each capture has its
// own directory, file and stop flag, and opens only once the previous one has written its file,
// so one capture never holds another session's packets.
void SessionPanel::startCapture(SessionConfig c, std::uint16_t port) {
  const LoopbackCaptureFiles files = new_capture_files("anthro-session");
  c.keylog_path = files.keylog.toStdString();
  const QString path = files.pcapng;
  const int run = ++capture_run_;
  auto previous = capture_worker_ ? capture_worker_->finished() : std::shared_future<void>();
  state_ = State::StartingCapture;
  updateButtons();
  capture_worker_ = start_loopback_capture(
      files, port, previous, [this, inbox = inbox_, c, path, run] { inbox->post([this, c, path, run] { onCaptureListening(run, c, path); }); },
      [this, inbox = inbox_, c, path, run](const Result<LiveCaptureStats>& stats) {
        inbox->post([this, c, path, run, stats] { onCaptureEnded(run, c, path, stats); });
      });
}

void SessionPanel::onCaptureListening(int run, const SessionConfig& c, const QString& path) {
  if (run != capture_run_ || state_ != State::StartingCapture) return;  // cancelled meanwhile
  emit message(tr("Capturing on lo…"));
  startSession(c, path);
}

void SessionPanel::onCaptureEnded(int run, const SessionConfig& c, const QString& path,
                                  const Result<LiveCaptureStats>& stats) {
  if (!stats) emit message(tr("Capture failed: %1").arg(QString::fromStdString(stats.error().detail)));
  if (run == capture_run_ && state_ == State::StartingCapture) startSession(c, {});  // never got ready: go on without it
  else if (stats) emit captureReady(path);
}

bool SessionPanel::startSession(SessionConfig c, const QString& capture_path) {
  LiveSessionEvents events;
  events.on_text = [this, inbox = inbox_](std::uint32_t, std::string_view text) {
    inbox->post([this, t = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()))] { onText(t); });
  };
  events.on_request_done = [this, inbox = inbox_](const RequestResult& r) { inbox->post([this, r] { onRequestDone(r); }); };
  events.on_finished = [this, inbox = inbox_](const SessionResult& r) { inbox->post([this, r] { onFinished(r); }); };
  auto started = LiveSession::start(std::move(c), std::move(events));
  if (!started) {
    emit message(QString::fromStdString(started.error().detail));
    showSessionError(tr("Session failed: %1").arg(QString::fromStdString(started.error().detail)));
    state_ = State::Idle;
    stopCapture();
    updateButtons();
    emit sessionFinished(false);
    return false;
  }
  // The previous session has finished; its thread is joined off this one all the same.
  reap([previous = std::shared_ptr<LiveSession>(std::move(session_))] {});
  session_ = std::move(*started);
  session_capture_ = capture_path;
  state_ = State::Running;
  updateButtons();
  return true;
}

void SessionPanel::cancel() {
  if (state_ == State::StartingCapture) {  // nothing was sent yet
    state_ = State::Idle;
    stopCapture();
    updateButtons();
    emit sessionFinished(false);
    return;
  }
  if (session_) session_->cancel();
}

void SessionPanel::onText(const QString& text) {
  answer_->moveCursor(QTextCursor::End);
  answer_->insertPlainText(text);
}

void SessionPanel::onRequestDone(const RequestResult& r) {
  results_.push_back(r);
  if (series_start_ < 0) series_start_ = r.timeline.request_written;
  // Session requests are numbered from 0 on the charts, load requests below 0.
  plotted_.push_back({session_capture_, r.stream_id});
  charts_->addPoints(0, {request_point(r, r.timeline.request_written - series_start_, static_cast<int>(plotted_.size() - 1))});
  QString stop = r.stop_reason ? QString::fromLatin1(to_string(*r.stop_reason))
                               : QString::fromStdString(r.error.value_or("no RESPONSE"));
  figures_->setText(tr("stream %1: TTFT %2, E2E %3, %4 tokens, mean ITL %5, stop %6")
                        .arg(r.stream_id)
                        .arg(ms(r.figures.ttft_ms), ms(r.figures.e2e_ms))
                        .arg(r.figures.tokens)
                        .arg(ms(r.figures.mean_itl_ms), stop));
  if (results_.size() > 1) answer_->appendPlainText(QString());
}

void SessionPanel::onFinished(const SessionResult& result) {
  if (result.error) {
    emit message(tr("Session: %1").arg(QString::fromStdString(*result.error)));
    showSessionError(tr("Session failed: %1").arg(QString::fromStdString(*result.error)));
  }
  last_session_ = result;
  last_run_ = LastRun::Session;
  export_button_->show();
  state_ = State::Idle;
  stopCapture();
  updateButtons();
  emit sessionFinished(!result.error);
}

QString SessionPanel::sessionError() const { return session_error_->text(); }

void SessionPanel::showSessionError(const QString& text) {
  session_error_->setText(text);
  session_error_->setVisible(!text.isEmpty());
}

void SessionPanel::stopCapture() {
  if (capture_worker_) capture_worker_->stop();  // it writes the file and reports captureReady
}

void SessionPanel::updateButtons() {
  bool busy = running();
  send_->setEnabled(!busy);
  cancel_->setEnabled(busy);
}

void SessionPanel::setLoadSeries(int series) { series_->setCurrentIndex(series); }

void SessionPanel::setLoad(int requests, int concurrency) {
  requests_->setValue(requests);
  concurrency_->setValue(concurrency);
}

void SessionPanel::stopLoad() {
  if (!loadRunning()) return;
  load_->stop();  // requests in flight finish, then the results are plotted as usual
  load_button_->setEnabled(false);
  load_status_->setText(tr("Stopping: waiting for the requests in flight…"));
}

void SessionPanel::runLoad() {
  if (loadRunning()) {
    emit message(tr("A load is already running."));
    return;
  }
  BenchConfig b;
  b.session = config();
  b.concurrency = static_cast<unsigned>(concurrency_->value());
  b.rate = rate_->value();
  if (b.concurrency == 0 && b.rate <= 0) {
    emit message(tr("Set a concurrency, or a rate for an open loop."));
    return;
  }
  b.requests = static_cast<std::uint64_t>(requests_->value());
  faults_->applyTo(b);
  const int series = series_->currentIndex();
  rememberTarget(target());
  load_button_->setText(tr("Stop load"));
  load_status_->setText(tr("Running…"));
  load_ = std::make_unique<Worker>([this, inbox = inbox_, b, series](const std::atomic<bool>& stop) mutable {
    b.stop = &stop;
    b.on_progress = [this, inbox](const std::string& line) {
      inbox->post([this, l = QString::fromStdString(line)] { load_status_->setText(l); });
    };
    auto result = run_bench(b);
    inbox->post([this, result, series] { onLoadDone(result, series); });
  });
}

void SessionPanel::onLoadDone(const Result<BenchResult>& result, int series) {
  load_.reset();
  load_button_->setEnabled(true);
  load_button_->setText(tr("Run load"));
  if (!result) {
    last_load_.reset();
    last_run_ = last_session_ ? LastRun::Session : LastRun::None;
    export_button_->setVisible(last_session_.has_value());
    load_status_->setText(QString::fromStdString(result.error().detail));
    emit message(load_status_->text());
    emit loadFinished(false);
    return;
  }
  last_load_ = std::make_unique<BenchResult>(*result);
  last_run_ = LastRun::Load;
  export_button_->show();
  std::vector<RequestPoint> points;
  for (const auto& rec : result->records)
    points.push_back(request_point(rec.result, rec.start_s, -1 - static_cast<int>(rec.index)));
  charts_->addPoints(series, points);
  diagnose_button_->show();
  load_status_->setText(tr("%1 requests, %2 tokens/s, TTFT p50 %3 ms, p99 %4 ms")
                            .arg(result->requests)
                            .arg(result->tokens_per_s, 0, 'f', 0)
                            .arg(result->ttft_ms.p50, 0, 'f', 1)
                            .arg(result->ttft_ms.p99, 0, 'f', 1));
  emit loadFinished(true);
}

}  // namespace anthro::widgets
