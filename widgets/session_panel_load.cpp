// The session page's load panel: its controls, the bench run, its live status and records.
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
#include <QTimer>
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
#include "session_controller.h"
#include "metrics/request_result.h"

namespace anthro::widgets {

void SessionPanel::setLoadSeries(int series) { series_->setCurrentIndex(series); }

void SessionPanel::setLoad(int requests, int concurrency) {
  requests_->setValue(requests);
  if (concurrency > 0) {
    concurrency_->setValue(concurrency);
    load_mode_->setCurrentIndex(int(LoadMode::Closed));
  } else if (load_mode_->currentIndex() == int(LoadMode::Closed)) {
    load_mode_->setCurrentIndex(int(LoadMode::OpenConstant));
  }
}

void SessionPanel::setOpenLoad(double rate, Arrivals arrivals) {
  rate_->setValue(rate);
  load_mode_->setCurrentIndex(int(arrivals == Arrivals::Poisson ? LoadMode::OpenPoisson : LoadMode::OpenConstant));
}

void SessionPanel::setLoadLimits(int requests, double duration_s) {
  requests_->setValue(requests);
  duration_->setValue(duration_s);
}

void SessionPanel::setSlo(const QString& text) { slo_->setText(text); }

// Only the control that applies to the mode is enabled: a rate means nothing to a closed loop.
void SessionPanel::updateLoadControls() {
  const bool closed = load_mode_->currentIndex() == int(LoadMode::Closed);
  concurrency_->setEnabled(closed);
  rate_->setEnabled(!closed);
}

Result<BenchConfig> SessionPanel::loadConfig() const {
  BenchConfig b;
  b.session = config();
  if (auto t = parse_session_target(b.session.target); t && t->own_client()) {
    const std::string_view name = profile(t->profile).display_name;
    return make_error(ErrorClass::Usage, tr("A load runs anthro-v1 and HTTP targets; a %1 target runs one session at a time "
                                            "(Send), or many from the Diagnosis page.")
                                             .arg(QString::fromUtf8(name.data(), static_cast<int>(name.size())))
                                             .toStdString());
  }
  const auto mode = LoadMode(load_mode_->currentIndex());
  if (mode == LoadMode::Closed) {
    b.concurrency = static_cast<unsigned>(concurrency_->value());
  } else {
    b.rate = rate_->value();
    b.arrivals = mode == LoadMode::OpenPoisson ? Arrivals::Poisson : Arrivals::Constant;
  }
  if (requests_->value() > 0) b.requests = static_cast<std::uint64_t>(requests_->value());
  if (duration_->value() > 0) b.duration_s = duration_->value();
  if (!b.requests && !b.duration_s)
    return make_error(ErrorClass::Usage, tr("Set a number of requests or a duration for the load.").toStdString());
  if (const QString slo = slo_->text().trimmed(); !slo.isEmpty()) {
    auto parsed = parse_slo(slo.toStdString());
    if (!parsed) {  // said on the field, in the page's words: the SLO field and what is wrong in it
      const QString why = tr("SLO: %1").arg(QString::fromStdString(parsed.error().detail));
      mark_field(slo_, why);
      return make_error(ErrorClass::Usage, why.toStdString());
    }
    b.slo = *parsed;
  }
  faults_->applyTo(b);
  return b;
}

void SessionPanel::stopLoad() {
  if (!loadRunning()) return;
  load_->cancel();  // requests in flight finish, then the results are plotted as usual
  load_button_->setEnabled(false);
}

bool SessionPanel::runLoad() {
  if (loadRunning()) {
    emit message(tr("A load is already running."));
    return false;
  }
  auto config = loadConfig();
  if (!config) {
    emit message(QString::fromStdString(config.error().detail));
    load_status_->setText(QString::fromStdString(config.error().detail));
    show_as_error(load_status_);
    return false;
  }
  show_as_error(load_status_, false);
  rememberTarget(target());
  const int series = series_->currentIndex();
  const ChartRun last = send_run_.key > load_run_.key ? send_run_ : load_run_;  // a copy: load_run_ changes
  ChartRun run = chart_run(config->session, RunStart::now(), tr("load"), series == 1 ? tr("candidate") : QString());
  if (series == 1 && last.key > 0) run = overlaid(run, last);
  if (!load_->start(std::move(*config), series)) return false;
  load_run_ = std::move(run);
  progress_timer_->start();
  return true;
}

void SessionPanel::onLoadRecord(const BenchRecord& rec, double bench_start_s) {
  const RequestResult& r = rec.result;
  Plotted what;
  what.stream = r.stream_id;
  what.load_index = rec.index;
  const double started = r.timeline.request_written > 0 ? r.timeline.request_written : bench_start_s + rec.start_s;
  plot(r, started, std::move(what));
}

QString SessionPanel::loopHelp() const {
  return tr("Closed loop: each connection sends its next request when the last one ends. "
            "Open loop: requests arrive at the rate set whatever the answers' pace, "
            "evenly spaced or as a Poisson process.");
}

QString SessionPanel::loadSummary(const BenchResult& r) const {
  QString line = tr("%1 tokens/s, TTFT p50 %2 ms, p99 %3 ms")
                     .arg(r.tokens_per_s, 0, 'f', 0)
                     .arg(r.ttft_ms.p50, 0, 'f', 1)
                     .arg(r.ttft_ms.p99, 0, 'f', 1);
  std::uint64_t errors = 0;
  for (const auto& [_, n] : r.errors) errors += n;
  if (errors > 0) line += tr(", %1 errors").arg(errors);
  if (load_->progress().slo) line += tr(", goodput %1 req/s within the SLO").arg(r.goodput_per_s, 0, 'f', 2);
  return line;
}

void SessionPanel::updateLoadStatus() {
  using State = LoadController::State;
  const State state = load_->state();
  const LoadController::Progress& progress = load_->progress();
  load_button_->setText(load_->busy() ? tr("Stop load") : tr("Run load"));
  switch (state) {
    case State::Idle:
      load_status_->setText(loopHelp());
      break;
    case State::Running:
    case State::Stopping: {
      const double elapsed = std::max(steady_now_s() - progress.started_s, 1e-3);
      const QString done = progress.total ? tr("%1 of %2 requests done").arg(progress.done).arg(*progress.total)
                                          : tr("%1 requests done").arg(progress.done);
      QString line = tr("%1, %2 errors, %3 tokens/s, %4 s")
                         .arg(done)
                         .arg(progress.errors)
                         .arg(double(progress.tokens) / elapsed, 0, 'f', 0)
                         .arg(elapsed, 0, 'f', 0);
      if (state == State::Stopping) line = tr("Stopping: waiting for the requests in flight… (%1)").arg(line);
      load_status_->setText(line);
      break;
    }
    case State::Done: {
      const BenchResult& r = *load_->result();
      load_status_->setText(tr("%1 requests in %2 s, %3").arg(r.requests).arg(r.duration_s, 0, 'f', 1).arg(loadSummary(r)));
      break;
    }
    case State::Cancelled: {  // how many of how many were done before the stop
      const BenchResult& r = *load_->result();
      const QString done = progress.total ? tr("%1 of %2 requests done").arg(r.requests).arg(*progress.total)
                                          : tr("%1 requests done").arg(r.requests);
      load_status_->setText(tr("Cancelled after %1 s: %2, %3").arg(r.duration_s, 0, 'f', 1).arg(done, loadSummary(r)));
      break;
    }
    case State::Failed:
      load_status_->setText(tr("Load failed: %1").arg(load_->error()));
      break;
  }
}

// The load's requests reached the charts one by one (onLoadRecord); this ends it.
void SessionPanel::onLoadEnded() {
  progress_timer_->stop();
  load_button_->setEnabled(true);
  updateLoadStatus();
  const BenchResult* result = load_->result();
  if (!result) {
    last_run_ = lastSession() ? LastRun::Session : LastRun::None;
    export_button_->setVisible(lastSession() != nullptr);
    records_button_->setEnabled(false);
    emit message(load_status_->text());
    emit loadFinished(false);
    return;
  }
  for (const auto& warning : result->warnings) emit message(tr("Session: %1").arg(QString::fromStdString(warning)));
  last_run_ = LastRun::Load;
  export_button_->show();
  records_button_->setEnabled(true);
  diagnose_button_->show();
  if (load_->state() == LoadController::State::Cancelled) emit message(load_status_->text());
  emit loadFinished(true);
}

bool SessionPanel::exportRecords(const QString& path) {
  const BenchResult* last = load_->result();
  if (!last) {
    emit message(tr("No load has ended yet: nothing to export."));
    return false;
  }
  auto written = write_bench_records(*last, path.toStdString());
  if (!written) {
    emit message(tr("Records not written to %1: %2").arg(path, QString::fromStdString(written.error().detail)));
    return false;
  }
  emit message(tr("%n request record(s) written to %1", nullptr, int(last->records.size())).arg(path));
  load_->markSaved();
  return true;
}

void SessionPanel::exportRecordsWithDialog() {
  const QString path = save_file_name(this, tr("Export records"), QStringLiteral("records.jsonl"),
                                                    tr("JSON Lines (*.jsonl);;CSV (*.csv)"));
  if (!path.isEmpty()) exportRecords(path);
}

}  // namespace anthro::widgets
