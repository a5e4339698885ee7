#include "session_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetrics>
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
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <chrono>

#include "file_dialog.h"
#include "client_faults_box.h"
#include "error_text.h"
#include "gui_thread.h"
#include "latency_charts.h"
#include "loopback_capture.h"
#include "request_point.h"
#include "retranslator.h"
#include "metrics/slo.h"
#include "session/live_session.h"
#include "session/target.h"
#include "tokenstream/format.h"
#include "session_controller.h"

namespace anthro::widgets {
namespace {

constexpr int kMaxRecentTargets = 10;

QString ms(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 1) + " ms" : QStringLiteral("–"); }

// The server's stop reason, else why the request ended otherwise; nothing for a reply read to
// its end that names none (a token stream's, a non-streamed one). Core's own account of the end
// is English: another language shows the end's name, and an error's text only where it is the
// server's words.
QString stopText(const std::optional<StopReason>& stop_reason, RequestEnd end, const std::optional<std::string>& error) {
  if (stop_reason) return QString::fromLatin1(to_string(*stop_reason));
  const QString detail = error ? QString::fromStdString(*error) : QString();
  if (error && message_language() == "en") return detail;
  switch (end) {
    case RequestEnd::Response: return {};
    case RequestEnd::Open: return SessionPanel::tr("no end seen");
    case RequestEnd::Error: return detail.isEmpty() ? SessionPanel::tr("error") : SessionPanel::tr("error %1").arg(detail);
    case RequestEnd::ConnectionError:
      return detail.isEmpty() ? SessionPanel::tr("connection error") : SessionPanel::tr("connection error %1").arg(detail);
    case RequestEnd::ProtocolError: return SessionPanel::tr("unreadable reply");
    case RequestEnd::ConnectionClosed: return SessionPanel::tr("connection closed");
    case RequestEnd::Timeout: return SessionPanel::tr("timed out");
    case RequestEnd::SendFailed: return SessionPanel::tr("send failed");
    case RequestEnd::ClientClosed: return SessionPanel::tr("closed by the client");
    case RequestEnd::CancelClosed: return SessionPanel::tr("closed to cancel");
  }
  return {};
}

}  // namespace

SessionPanel::SessionPanel(QWidget* parent)
    : QWidget(parent),
      target_(new QComboBox(this)),
      key_source_(new QComboBox(this)),
      api_key_(new QLineEdit(this)),
      headers_(new QPlainTextEdit(this)),
      model_(new QLineEdit(QStringLiteral("claude-3-haiku-20240307"), this)),
      max_tokens_(new QSpinBox(this)),
      system_(new QLineEdit(this)),
      prompt_(new QPlainTextEdit(this)),
      stream_(new QCheckBox(this)),
      token_ids_(new QCheckBox(this)),
      http2_(new QCheckBox(this)),
      repeat_(new QSpinBox(this)),
      capture_(new QCheckBox(this)),
      send_(new QPushButton(this)),
      cancel_(new QPushButton(this)),
      answer_(new QPlainTextEdit(this)),
      figures_(new QLabel(this)),
      session_error_(new QLabel(this)),
      load_mode_(new QComboBox(this)),
      concurrency_(new QSpinBox(this)),
      rate_(new QDoubleSpinBox(this)),
      requests_(new QSpinBox(this)),
      duration_(new QDoubleSpinBox(this)),
      slo_(new QLineEdit(this)),
      series_(new QComboBox(this)),
      load_button_(new QPushButton(this)),
      load_status_(new QLabel(this)),
      records_button_(new QPushButton(this)),
      clear_button_(new QPushButton(this)),
      diagnose_button_(new QPushButton(this)),
      export_button_(new QPushButton(this)),
      faults_(new ClientFaultsBox(this)),
      charts_(new LatencyCharts(this)),
      jobs_(new JobService(this)),
      captures_(new CaptureController(jobs_, QStringLiteral("anthro-session"), this)),
      session_(new SessionController(jobs_, captures_, this)),
      load_(new LoadController(jobs_, this)),
      progress_timer_(new QTimer(this)) {
  setupFields();
  layOut(buildRequestBox(), buildAnswerBox(), buildLoadBox());
  (new Retranslator(this))->add([this] { retranslate(); });
  bindCharts();
  bindControllers();
  bindButtons();
  for (const QString& url : recentTargets()) target_->addItem(url);
}

void SessionPanel::setupFields() {
  target_->setEditable(true);
  target_->setInsertPolicy(QComboBox::NoInsert);
  // Long URLs scroll in the field: they never size the page.
  target_->setMinimumContentsLength(20);
  target_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  key_source_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // follows the language's longest text
  key_source_->addItems({QString(), QString(), QString(), QString(), QString()});  // KeySource's order
  api_key_->setEchoMode(QLineEdit::Password);
  api_key_->setEnabled(false);
  connect(key_source_, &QComboBox::currentIndexChanged, this,
          [this](int i) { api_key_->setEnabled(static_cast<KeySource>(i) == KeySource::Typed); });
  headers_->setMaximumHeight(QFontMetrics(headers_->font()).lineSpacing() * 3);
  headers_->setTabChangesFocus(true);
  // The model's name from its start: a QLineEdit made with a text has its cursor at the end,
  // and a field narrower than the name then shows "-haiku-20240307".
  model_->setCursorPosition(0);
  max_tokens_->setRange(1, 1 << 20);
  max_tokens_->setValue(256);
  prompt_->setPlainText(tr("Explain tail latency in one paragraph."));
  prompt_->setMaximumHeight(90);
  stream_->setChecked(true);
  // The token stream is a Messages API feature: offered for such targets only. A format's own
  // client sends its prompt under its own terms: no system prompt, max_tokens or non-streaming
  // answer.
  auto fit_to_target = [this](const QString& url) {
    auto parsed = parse_session_target(url.trimmed().toStdString());
    token_ids_->setEnabled(parsed && parsed->api == HttpApi::Messages);
    http2_->setEnabled(parsed && parsed->tls && parsed->http());
    headers_->setEnabled(parsed && parsed->http());
    const bool own_client = parsed && parsed->own_client();  // a format's own client takes none of these
    for (QWidget* w : std::initializer_list<QWidget*>{max_tokens_, system_, stream_}) w->setEnabled(!own_client);
  };
  connect(target_, &QComboBox::currentTextChanged, this, fit_to_target);
  fit_to_target(target_->currentText());
  repeat_->setRange(1, 1000);
  cancel_->setEnabled(false);
  answer_->setReadOnly(true);
  figures_->setObjectName(QStringLiteral("stats-line"));
  figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Wrapped, and never what sizes the pane: a longer line must not widen the request panel.
  figures_->setWordWrap(true);
  figures_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  load_mode_->addItems({QString(), QString(), QString()});
  concurrency_->setRange(1, 4096);
  concurrency_->setValue(4);
  rate_->setRange(0.1, 100000);
  rate_->setDecimals(1);
  rate_->setValue(10);
  requests_->setRange(0, 1000000);
  requests_->setValue(50);
  duration_->setRange(0, 86400);
  duration_->setDecimals(0);
  slo_->setClearButtonEnabled(true);
  slo_->setObjectName(QStringLiteral("slo"));
  series_->addItems({QString(), QString()});
  load_status_->setObjectName(QStringLiteral("load-status"));
  load_status_->setWordWrap(true);
  load_status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  load_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_timer_->setInterval(500);
  connect(progress_timer_, &QTimer::timeout, this, &SessionPanel::updateLoadStatus);
}

QWidget* SessionPanel::buildRequestBox() {
  auto* request_box = new QGroupBox(this);
  // Never squeezed below its rows' heights: on a short screen the page scrolls instead.
  request_box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  auto* target_label = new QLabel(this);
  auto* key_label = new QLabel(this);
  auto* model_label = new QLabel(this);
  auto* max_tokens_label = new QLabel(this);
  auto* system_label = new QLabel(this);
  auto* message_label = new QLabel(this);
  auto* form = new QFormLayout(request_box);
  // One thing a row, so the pane stays narrow enough to leave the charts their room at 1024 px.
  form->addRow(target_label, target_);
  // The key's source, and under it the field a typed key goes in, as wide as the column.
  form->addRow(key_label, key_source_);
  form->addRow(QString(), api_key_);
  // What a certificate error points to: a CA file, or no check at all.
  ca_file_ = new QLineEdit(this);
  ca_file_->setObjectName(QStringLiteral("caFile"));
  ca_file_->setClearButtonEnabled(true);
  auto* browse_ca = new QToolButton(this);  // "…": a tool button, as narrow as its text
  browse_ca->setText(QStringLiteral("…"));
  insecure_ = new QCheckBox(this);
  insecure_->setObjectName(QStringLiteral("insecure"));
  auto* trust_row = new QHBoxLayout;
  trust_row->addWidget(ca_file_, 1);
  trust_row->addWidget(browse_ca);
  trust_row->addWidget(insecure_);
  auto* trust_label = new QLabel(this);
  form->addRow(trust_label, trust_row);
  connect(browse_ca, &QToolButton::clicked, this, [this] {
    const QString path = open_file_name(this, tr("CA certificate"), tr("PEM certificates (*.pem *.crt);;All files (*)"));
    if (!path.isEmpty()) ca_file_->setText(path);
  });
  auto* headers_label = new QLabel(this);
  form->addRow(headers_label, headers_);
  auto* model_row = new QHBoxLayout;
  model_row->addWidget(model_, 1);
  model_row->addWidget(max_tokens_label);
  model_row->addWidget(max_tokens_);
  form->addRow(model_label, model_row);
  form->addRow(system_label, system_);
  form->addRow(message_label, prompt_);
  form->addRow(capture_);
  auto* protocol_row = new QHBoxLayout;
  protocol_row->addWidget(token_ids_);
  protocol_row->addWidget(http2_);
  protocol_row->addStretch(1);
  form->addRow(protocol_row);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(stream_);
  buttons->addStretch(1);
  buttons->addWidget(repeat_);
  buttons->addWidget(send_);
  buttons->addWidget(cancel_);
  form->addRow(buttons);
  (new Retranslator(this))->add([=] {
    request_box->setTitle(tr("Request"));
    target_label->setText(tr("Target"));
    key_label->setText(tr("API key"));
    trust_label->setText(tr("CA file"));
    ca_file_->setPlaceholderText(tr("System store"));
    ca_file_->setToolTip(tr("The CA certificate (PEM) a TLS server's certificate must be signed by; empty: the system's "
                            "store and the embedded endpoint's certificate"));
    browse_ca->setToolTip(tr("Pick a CA certificate file"));
    insecure_->setText(tr("Insecure"));
    insecure_->setToolTip(tr("Accept any certificate: no check of who the server is"));
    headers_label->setText(tr("Headers"));
    model_label->setText(tr("Model"));
    max_tokens_label->setText(tr("max_tokens"));
    system_label->setText(tr("System"));
    message_label->setText(tr("Message"));
  });
  return request_box;
}

QWidget* SessionPanel::buildAnswerBox() {
  auto* answer_box = new QGroupBox(this);
  auto* answer_layout = new QVBoxLayout(answer_box);
  answer_layout->addWidget(answer_, 1);
  answer_layout->addWidget(figures_);
  show_as_error(session_error_);
  session_error_->hide();
  answer_layout->addWidget(session_error_);
  (new Retranslator(this))->add([=] {
    answer_box->setTitle(tr("Answer"));
  });
  return answer_box;
}

QWidget* SessionPanel::buildLoadBox() {
  // The load panel: how requests arrive and how many, on one row; what to do with them on
  // the next; the progress or summary below, wrapped, so no text widens the window.
  auto* load_box = new QGroupBox(this);
  load_box->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  auto* concurrency_label = new QLabel(this);
  auto* rate_label = new QLabel(this);
  auto* requests_label = new QLabel(this);
  auto* duration_label = new QLabel(this);
  auto* slo_label = new QLabel(this);
  auto* how = new QHBoxLayout;
  how->addWidget(load_mode_);
  how->addWidget(concurrency_label);
  how->addWidget(concurrency_);
  how->addWidget(rate_label);
  how->addWidget(rate_);
  how->addWidget(requests_label);
  how->addWidget(requests_);
  how->addWidget(duration_label);
  how->addWidget(duration_);
  how->addStretch(1);
  auto* what = new QHBoxLayout;
  what->addWidget(slo_label);
  what->addWidget(slo_, 1);
  what->addWidget(series_);
  what->addWidget(load_button_);
  what->addWidget(records_button_);
  what->addWidget(clear_button_);
  what->addWidget(diagnose_button_);
  what->addWidget(export_button_);
  auto* load_box_layout = new QVBoxLayout(load_box);
  load_box_layout->addLayout(how);
  load_box_layout->addLayout(what);
  load_box_layout->addWidget(load_status_);
  load_box_layout->addWidget(faults_);
  records_button_->setEnabled(false);  // until a load has ended
  diagnose_button_->hide();  // shown when a load has ended: its target is worth diagnosing
  export_button_->hide();    // shown when a session or a load has ended
  (new Retranslator(this))->add([=] {
    load_box->setTitle(tr("Load"));
    concurrency_label->setText(tr("Connections"));
    rate_label->setText(tr("Rate"));
    requests_label->setText(tr("Requests"));
    duration_label->setText(tr("Duration"));
    slo_label->setText(tr("SLO"));
  });
  return load_box;
}

void SessionPanel::layOut(QWidget* request_box, QWidget* answer_box, QWidget* load_box) {
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
}

void SessionPanel::retranslate() {
    stream_->setText(tr("Stream"));
    token_ids_->setText(tr("Token ids"));
    http2_->setText(tr("HTTP/2"));
    http2_->setToolTip(tr("Offer ALPN h2 first on an https:// target: each request a stream of one connection when "
                          "the server selects it, HTTP/1.1 otherwise"));
    token_ids_->setToolTip(tr("Ask a Messages API target for the token stream: u32 token ids named through "
                                 "GET /v1/vocab; TTFT is the first id, the token rate ids per second"));
    capture_->setText(tr("Capture this session's traffic into the inspector"));
    send_->setText(tr("Send"));
    cancel_->setText(tr("Cancel"));
    diagnose_button_->setText(tr("Diagnose this target…"));
    export_button_->setText(tr("Export report…"));
    export_button_->setToolTip(tr("The last session or load (whichever ended last) as HTML, PDF, Markdown or JSON"));
    QString targets = tr("anthro://host:port, anthro+lab://host:port, https://host/v1/messages, https://host/v1/chat/completions");
    for (const Profile* p : own_client_profiles()) {  // "x://host:port or x+lab://host:port (Name)"
      QString schemes;
      for (const ProfileScheme& s : p->schemes) {
        const QString one = tr("%1://host:port").arg(QString::fromUtf8(s.name.data(), static_cast<int>(s.name.size())));
        schemes = schemes.isEmpty() ? one : tr("%1 or %2").arg(schemes, one);
      }
      targets += tr(", ") + tr("%1 (%2)").arg(schemes, QString::fromUtf8(p->display_name.data(), static_cast<int>(p->display_name.size())));
    }
    target_->setToolTip(targets);
    const QString sources[] = {tr("Environment, by target"), tr("No API key"),
                               tr("From $ANTHROPIC_API_KEY"), tr("From $OPENAI_API_KEY"), tr("Typed here")};
    for (int i = 0; i < 5; ++i) key_source_->setItemText(i, sources[i]);
    key_source_->setItemData(0, tr("ANTHROPIC_API_KEY for anthro-v1 and Messages API targets, OPENAI_API_KEY for "
                                   "chat completions, when set"), Qt::ToolTipRole);
    api_key_->setPlaceholderText(tr("API key, never saved"));
    api_key_->setToolTip(tr("API key (kept in memory only, never saved)"));
    system_->setPlaceholderText(tr("System prompt (optional)"));
    repeat_->setPrefix(tr("× "));
    repeat_->setToolTip(tr("Requests on the same connection, one after another"));
    answer_->setPlaceholderText(tr("The answer streams here."));
    load_mode_->setItemText(0, tr("Closed loop"));
    load_mode_->setItemText(1, tr("Open loop, constant arrivals"));
    load_mode_->setItemText(2, tr("Open loop, Poisson arrivals"));
    load_mode_->setToolTip(loopHelp());
    concurrency_->setToolTip(tr("Connections, each with one request at a time (closed loop)"));
    rate_->setSuffix(tr(" req/s"));
    rate_->setToolTip(tr("Requests started per second (open loop)"));
    requests_->setSpecialValueText(tr("no limit"));
    requests_->setToolTip(tr("Stop after this many requests (retries not counted)"));
    duration_->setSuffix(tr(" s"));
    duration_->setSpecialValueText(tr("no limit"));
    duration_->setToolTip(tr("Stop starting requests after this many seconds"));
    slo_->setPlaceholderText(tr("ttft:300,tpot:40,e2e:2000 (ms)"));
    slo_->setToolTip(tr("Service-level objectives in milliseconds: requests meeting all of them count towards goodput"));
    series_->setItemText(0, tr("as baseline"));
    series_->setItemText(1, tr("as candidate"));
    records_button_->setText(tr("Export records…"));
    records_button_->setToolTip(tr("The last load's per-request records as JSONL, or CSV"));
    clear_button_->setText(tr("Clear charts"));
    charts_->setSeriesName(0, tr("baseline"));
    charts_->setSeriesName(1, tr("candidate"));
    headers_->setPlaceholderText(tr("HTTP targets: one NAME: VALUE a line (optional)"));
    headers_->setToolTip(tr("Request headers of HTTP targets, one NAME: VALUE a line: anthropic-beta, a gateway's "
                            "routing or tenant header; one the client sends itself (anthropic-version) is replaced. "
                            "A secret: NAME: $VARIABLE takes its value from the environment. "
                            "Keys go in the API key field."));
    updateLoadControls();
    updateStatsLine();
    updateLoadStatus();
}

void SessionPanel::bindCharts() {
  connect(charts_, &LatencyCharts::message, this, &SessionPanel::message);
  connect(charts_, &LatencyCharts::cleared, this, [this] {
    plotted_.clear();
    shown_request_.reset();
    updateStatsLine();
  });
  connect(charts_, &LatencyCharts::requestClicked, this, [this](int, int request) {
    if (request < 0 || static_cast<std::size_t>(request) >= plotted_.size()) return;
    shown_request_ = static_cast<std::size_t>(request);
    updateStatsLine();
    const Plotted& p = plotted_[*shown_request_];
    if (p.load_index) return;  // a load's traffic is never captured
    if (p.capture.isEmpty()) emit message(tr("Stream %1 was not captured: tick the capture option to see its frames.").arg(p.stream));
    else emit streamClicked(p.capture, p.stream);
  });
}

void SessionPanel::bindButtons() {
  connect(load_mode_, &QComboBox::currentIndexChanged, this, &SessionPanel::updateLoadControls);
  connect(send_, &QPushButton::clicked, this, &SessionPanel::send);
  connect(diagnose_button_, &QPushButton::clicked, this, [this] { emit diagnoseRequested(target()); });
  connect(export_button_, &QPushButton::clicked, this, &SessionPanel::exportReportRequested);
  connect(records_button_, &QPushButton::clicked, this, &SessionPanel::exportRecordsWithDialog);
  connect(clear_button_, &QPushButton::clicked, this, &SessionPanel::clearCharts);
  connect(cancel_, &QPushButton::clicked, this, &SessionPanel::cancel);
  connect(load_button_, &QPushButton::clicked, this, [this] {
    if (loadRunning()) stopLoad();
    else runLoad();
  });
}

// Jobs end with the JobService (a child): none is joined on this thread.
SessionPanel::~SessionPanel() = default;

void SessionPanel::setEmbeddedTargets(QStringList urls) {
  // The previous start's ports, remembered before this fix or by an older version, go.
  QSettings settings;
  QStringList stale = settings.value("session/embeddedTargets").toStringList();
  QStringList recent = recentTargets();
  for (const QString& url : stale) {
    recent.removeAll(url);
    if (int i = target_->findText(url); i >= 0) target_->removeItem(i);
  }
  settings.setValue("session/recentTargets", recent);
  urls.removeAll(QString());
  embedded_targets_ = urls;
  settings.setValue("session/embeddedTargets", embedded_targets_);
  int at = 0;
  for (const QString& url : urls)
    if (target_->findText(url) < 0) target_->insertItem(at++, url);
  target_->insertSeparator(at);
  if (target_->findText("https://api.anthropic.com/v1/messages") < 0) target_->addItem("https://api.anthropic.com/v1/messages");
  target_->setCurrentIndex(0);
}

void SessionPanel::setTarget(const QString& url) { target_->setCurrentText(url); }
void SessionPanel::setTokenIds(bool on) { token_ids_->setChecked(on); }
bool SessionPanel::tokenIdsOffered() const { return token_ids_->isEnabled(); }
void SessionPanel::setHttp2(bool on) { http2_->setChecked(on); }
bool SessionPanel::http2Offered() const { return http2_->isEnabled(); }
void SessionPanel::setHeaders(const QString& lines) { headers_->setPlainText(lines); }
bool SessionPanel::headersOffered() const { return headers_->isEnabled(); }
QString SessionPanel::target() const { return target_->currentText().trimmed(); }
void SessionPanel::setPrompt(const QString& text) { prompt_->setPlainText(text); }
void SessionPanel::setRepeat(int requests) { repeat_->setValue(requests); }
void SessionPanel::setCaptureTraffic(bool on) { capture_->setChecked(on); }
QString SessionPanel::answer() const { return answer_->toPlainText(); }
bool SessionPanel::running() const { return session_->busy(); }
bool SessionPanel::loadRunning() const { return load_->busy(); }
const BenchResult* SessionPanel::lastLoad() const { return load_->result(); }
const SessionResult* SessionPanel::lastSession() const {
  return session_->lastSession() ? &*session_->lastSession() : nullptr;
}
const std::vector<RequestResult>& SessionPanel::results() const { return session_->results(); }

bool SessionPanel::busy() const { return jobs_->busy(); }
QStringList SessionPanel::unsavedFiles() const { return captures_->unsavedFiles(); }
bool SessionPanel::hasUnsavedResult() const { return session_->hasUnsavedResult() || load_->hasUnsavedResult(); }
void SessionPanel::markCaptureSaved(const QString& path) { captures_->markSaved(path); }
void SessionPanel::markResultSaved() {
  session_->markSaved();
  load_->markSaved();
}

void SessionPanel::cancelAll() {
  cancel();
  stopLoad();
  captures_->stop();
}

bool SessionPanel::waitForJobs(int timeout_ms) { return jobs_->waitAll(timeout_ms); }

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

void SessionPanel::setCaFile(const QString& path) { ca_file_->setText(path); }
void SessionPanel::setInsecure(bool on) { insecure_->setChecked(on); }

SessionConfig SessionPanel::config() const {
  SessionConfig c;
  c.target = target().toStdString();
  c.model = model_->text().trimmed().toStdString();
  c.max_tokens = static_cast<std::uint32_t>(max_tokens_->value());
  if (!system_->text().trimmed().isEmpty()) c.system = system_->text().toStdString();
  c.messages = {{"user", prompt_->toPlainText().toStdString()}};
  c.stream = stream_->isChecked();
  if (token_ids_->isEnabled() && token_ids_->isChecked()) use_token_stream(c);
  c.http2 = http2_->isEnabled() && http2_->isChecked();
  c.repeat = static_cast<unsigned>(repeat_->value());
  c.ca_file = ca_file_->text().trimmed().toStdString();
  c.insecure = insecure_->isChecked();
  if (auto h = headers(); h && headers_->isEnabled()) c.headers = std::move(*h);
  switch (static_cast<KeySource>(key_source_->currentIndex())) {
    case KeySource::ByTarget: {  // as the CLI without --api-key-env (default_api_key_variable)
      auto parsed = parse_session_target(c.target);
      if (const char* variable = parsed ? default_api_key_variable(*parsed) : nullptr)
        c.api_key = qEnvironmentVariable(variable).toStdString();
      break;
    }
    case KeySource::Anthropic: c.api_key = qEnvironmentVariable("ANTHROPIC_API_KEY").toStdString(); break;
    case KeySource::OpenAi: c.api_key = qEnvironmentVariable("OPENAI_API_KEY").toStdString(); break;
    case KeySource::Typed: c.api_key = api_key_->text().toStdString(); break;
    case KeySource::None: break;
  }
  return c;
}

Result<std::vector<RequestHeader>> SessionPanel::headers() const {
  std::vector<RequestHeader> out;
  const QStringList lines = headers_->toPlainText().split('\n');
  for (int i = 0; i < lines.size(); ++i) {
    if (lines[i].trimmed().isEmpty()) continue;
    // "NAME: $ENV" takes the value from the environment, as --header-env does: a secret stays
    // out of the form.
    const std::string line = lines[i].toStdString();
    const auto colon = line.find(':');
    const auto variable = colon == std::string::npos ? std::nullopt : environment_reference(std::string_view(line).substr(colon + 1));
    auto h = variable ? environment_request_header(std::string_view(line).substr(0, colon), *variable)
                      : parse_request_header(line, false);
    if (!h || out.size() == kMaxRequestHeaders)
      return make_error(ErrorClass::Usage, tr("Headers, line %1: %2")
                                               .arg(i + 1)
                                               .arg(h ? tr("more than %1 headers").arg(kMaxRequestHeaders)
                                                      : QString::fromStdString(h.error().detail))
                                               .toStdString());
    out.push_back(std::move(*h));
  }
  return out;
}

bool SessionPanel::send() {
  if (running()) {
    emit message(tr("A session is already running; cancel it first."));
    return false;
  }
  SessionConfig c = config();
  if (auto parsed = parse_session_target(c.target); !parsed) {  // said on the page, as the page names the field
    const QString why = tr("Target: %1").arg(QString::fromStdString(parsed.error().detail));
    emit message(why);
    showSessionError(why);
    return false;
  }
  if (auto extra = headers_->isEnabled() ? headers() : Result<std::vector<RequestHeader>>(std::vector<RequestHeader>{});
      !extra) {
    emit message(QString::fromStdString(extra.error().detail));
    showSessionError(QString::fromStdString(extra.error().detail));
    return false;
  }
  if (static_cast<KeySource>(key_source_->currentIndex()) == KeySource::Anthropic && c.api_key.empty())
    emit message(tr("ANTHROPIC_API_KEY is not set in the environment; sending without a key."));
  answer_->clear();
  showSessionError({});
  last_token_s_ = -1;
  shown_request_.reset();
  updateStatsLine();
  ChartRun run = chart_run(c, RunStart::now(), tr("send"));
  if (!session_->send(std::move(c), capture_->isChecked())) return false;
  send_run_ = std::move(run);
  rememberTarget(target());
  return true;
}

void SessionPanel::cancel() { session_->cancel(); }

// The controllers' signals drawn on the page.
void SessionPanel::bindControllers() {
  connect(session_, &SessionController::stateChanged, this, &SessionPanel::updateButtons);
  connect(session_, &SessionController::text, this, &SessionPanel::onText);
  connect(session_, &SessionController::token, this, &SessionPanel::onToken);
  connect(session_, &SessionController::requestDone, this, &SessionPanel::onRequestDone);
  connect(session_, &SessionController::finished, this, &SessionPanel::onFinished);
  connect(session_, &SessionController::failed, this, [this](const QString& text) {
    emit message(text);
    showSessionError(text);
  });
  connect(session_, &SessionController::message, this, &SessionPanel::message);
  connect(session_, &SessionController::captureReady, this, &SessionPanel::captureReady);
  connect(load_, &LoadController::stateChanged, this, &SessionPanel::updateLoadStatus);
  connect(load_, &LoadController::record, this, &SessionPanel::onLoadRecord);
  connect(load_, &LoadController::finished, this, &SessionPanel::onLoadEnded);
  connect(load_, &LoadController::failed, this, &SessionPanel::onLoadEnded);
}

void SessionPanel::onText(const QString& text) {
  answer_->moveCursor(QTextCursor::End);
  answer_->insertPlainText(text);
}

// The histogram follows the stream as it arrives: each frame's gap shared by its tokens, as
// compute_figures does; the request's own figures replace these samples when it ends.
void SessionPanel::onToken(const TokenArrival& arrival) {
  if (arrival.count == 0) return;
  if (last_token_s_ >= 0)
    charts_->addRunningItl(charts_->seriesIndex(chart_series(send_run_)), std::vector<double>(arrival.count, (arrival.t - last_token_s_) * 1000 / arrival.count));
  last_token_s_ = arrival.t;
}

void SessionPanel::onRequestDone(const RequestResult& r, const QString& capture) {
  last_token_s_ = -1;
  charts_->clearRunningItl(charts_->seriesIndex(chart_series(send_run_)));
  send_run_.profile = spoken_protocol(send_run_, &r);  // the next request streams in its series
  Plotted what;
  what.capture = capture;
  what.stream = r.stream_id;
  shown_request_ = static_cast<std::size_t>(plot(r, r.timeline.request_written, std::move(what)));
  updateStatsLine();
  if (session_->results().size() > 1) answer_->appendPlainText(QString());
}

// Puts the request on the charts (within ~50 ms: LatencyCharts coalesces its replots) and
// returns its chart id.
int SessionPanel::plot(const RequestResult& r, double monotonic_start_s, Plotted what) {
  const int id = static_cast<int>(plotted_.size());
  charts_->addPoints({request_point(r, what.load_index ? load_run_ : send_run_, monotonic_start_s, id)});
  what.ttft_ms = r.figures.ttft_ms;
  what.e2e_ms = r.figures.e2e_ms;
  what.mean_itl_ms = r.figures.mean_itl_ms;
  what.cancel_latency_ms = r.figures.cancel_latency_ms;
  what.tokens = r.figures.tokens;
  what.stop_reason = r.stop_reason;
  what.end = r.end;
  what.error = r.error;
  plotted_.push_back(std::move(what));
  return id;
}

QString SessionPanel::statsLine() const { return figures_->text(); }
QString SessionPanel::loadStatus() const { return load_status_->text(); }

void SessionPanel::updateStatsLine() {
  if (!shown_request_ || *shown_request_ >= plotted_.size()) {
    figures_->clear();
    return;
  }
  const Plotted& p = plotted_[*shown_request_];
  const QString who = p.load_index ? tr("load request %1").arg(*p.load_index) : tr("stream %1").arg(p.stream);
  QString line = tr("%1: TTFT %2, E2E %3, %4 tokens, mean ITL %5").arg(who, ms(p.ttft_ms), ms(p.e2e_ms)).arg(p.tokens).arg(ms(p.mean_itl_ms));
  if (const QString stop = stopText(p.stop_reason, p.end, p.error); !stop.isEmpty()) line += tr(", stop %1").arg(stop);
  if (p.cancel_latency_ms) line += tr(", cancel latency %1").arg(ms(p.cancel_latency_ms));
  figures_->setText(line);
}

void SessionPanel::onFinished(const SessionResult& result) {
  last_run_ = LastRun::Session;
  export_button_->show();
  emit sessionFinished(!result.error);
}

QString SessionPanel::sessionError() const { return session_error_->text(); }

void SessionPanel::showSessionError(const QString& text) {
  session_error_->setText(text);
  session_error_->setVisible(!text.isEmpty());
}

void SessionPanel::updateButtons() {
  bool busy = running();
  send_->setEnabled(!busy);
  cancel_->setEnabled(busy);
}

void SessionPanel::clearCharts() { charts_->clear(); }

}  // namespace anthro::widgets
