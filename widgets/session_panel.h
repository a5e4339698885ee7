// The live session page: a target, a request composer, the answer as it streams, Cancel (a
// real CANCEL frame on anthro-v1), a load panel driving core's bench, the latency charts, and
// optionally a capture of the session's own traffic for the inspector. Sessions, loads and
// captures run on threads of their own; their results come back through an Inbox, each
// request as it ends, so the charts fill while a session or a load runs. One time base for
// the page: a point's "request start" is seconds since the page's first request (or since the
// charts were last cleared), for sends and every load alike.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "session/bench.h"
#include "session/session.h"
#include "request_point.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;
class QTimer;

namespace anthro {
class LiveSession;
}

namespace anthro::widgets {

class CaptureController;
class ClientFaultsBox;
class JobService;
class LatencyCharts;
class LoadController;
class SessionController;

class SessionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SessionPanel(QWidget* parent = nullptr);
  ~SessionPanel() override;

  // The embedded endpoint's URLs, offered first in the target list, in this order.
  void setEmbeddedTargets(QStringList urls);
  void setTarget(const QString& url);
  QString target() const;
  void setPrompt(const QString& text);
  void setRepeat(int requests);
  // Token ids instead of text (a format riding on the Messages API); offered for such targets only.
  void setTokenIds(bool on);
  bool tokenIdsOffered() const;
  void setHttp2(bool on);
  bool http2Offered() const;
  // The Headers field: an HTTP target's request headers, one "NAME: VALUE" a line; offered for
  // such targets only.
  void setHeaders(const QString& lines);
  void setCaFile(const QString& path);
  void setInsecure(bool on);
  bool headersOffered() const;
  // Capture the session's own traffic on lo (libpcap; needs the capture permission).
  void setCaptureTraffic(bool on);

  // Starts a session with the composer's request; false (and a message) when one is running
  // or the target is malformed.
  bool send();
  void cancel();
  bool running() const;
  bool runLoad();
  void setLoadSeries(int series);  // 0 baseline, 1 candidate
  // A closed loop of `concurrency` connections, or with 0 an open loop at the rate set.
  void setLoad(int requests, int concurrency);
  // An open loop: `rate` requests a second, constant or Poisson arrivals.
  void setOpenLoad(double rate, Arrivals arrivals);
  // 0 for no limit on either (one of them is needed).
  void setLoadLimits(int requests, double duration_s);
  void setSlo(const QString& text);  // as `bench --slo`: "ttft:300,tpot:40"
  // What Run load would run: the controls as core's BenchConfig, or why they cannot be run
  // (an SLO that does not parse, no limit on requests or duration).
  Result<BenchConfig> loadConfig() const;
  ClientFaultsBox* clientFaults() const { return faults_; }
  void stopLoad();                 // no new request starts; what finished is plotted
  bool loadRunning() const;
  // The last load's per-request records as JSONL, or CSV when the path ends in .csv (core's
  // write_bench_records); false and a message naming the path when it cannot.
  bool exportRecords(const QString& path);
  // Empties the charts and starts the page's time base again at the next request.
  void clearCharts();

  // The line under the answer: the last request's figures, or the clicked point's.
  QString statsLine() const;
  QString loadStatus() const;

  QString answer() const;
  // The last load that ended, or null.
  const BenchResult* lastLoad() const;
  // The last session that ended (its requests, or the error that ended it), or null.
  const SessionResult* lastSession() const;
  // Which of the two ended last: what "Export report…" reports.
  enum class LastRun { None, Session, Load };
  LastRun lastRun() const { return last_run_; }
  LatencyCharts* charts() const { return charts_; }
  // The requests of the last session, as measured.
  const std::vector<RequestResult>& results() const;
  // Targets used before, newest first; the embedded endpoint's are never among them (its
  // ports change with every start, and it is always offered first).
  QStringList recentTargets() const;
  // Why the last session failed (it stays until the next Send), or empty.
  QString sessionError() const;

  // For "never lose work": a job (send, load, capture) under way; the captures of sends not yet
  // saved by the user; a session or load result not yet exported; cancel every job and wait.
  bool busy() const;
  QStringList unsavedFiles() const;
  bool hasUnsavedResult() const;
  void cancelAll();
  bool waitForJobs(int timeout_ms);  // true when none is left
  void markCaptureSaved(const QString& path);
  void markResultSaved();
  SessionController* sessionController() const { return session_; }
  LoadController* loadController() const { return load_; }
  CaptureController* captureController() const { return captures_; }

 signals:
  void message(const QString& text);
  void sessionFinished(bool ok);
  void loadFinished(bool ok);
  // A capture of a session's own traffic is ready (pcapng with its keys embedded).
  void captureReady(const QString& path);
  // A session request's point was clicked on a chart, and the session was captured.
  void streamClicked(const QString& capture, std::uint32_t stream_id);
  // "Diagnose this target", offered when a load has ended.
  void diagnoseRequested(const QString& target);
  void exportReportRequested();  // "Export report…" was clicked

 private:
  enum class LoadMode { Closed, OpenConstant, OpenPoisson };

  // What a chart point stands for: a session's request (and the capture it went to, if any)
  // or a load's, with what the stats line says about it.
  struct Plotted {
    QString capture;
    std::uint32_t stream = 0;
    std::optional<std::uint64_t> load_index;  // the load's request number
    std::optional<double> ttft_ms, e2e_ms, mean_itl_ms, cancel_latency_ms;
    std::uint64_t tokens = 0;
    // How it ended, shown in the interface's language when the line is made (stopText).
    std::optional<StopReason> stop_reason;
    RequestEnd end = RequestEnd::Open;
    std::optional<std::string> error;
  };

  void setupFields();
  QWidget* buildRequestBox();
  QWidget* buildAnswerBox();
  QWidget* buildLoadBox();
  void layOut(QWidget* request_box, QWidget* answer_box, QWidget* load_box);
  void retranslate();
  void bindCharts();
  void bindControllers();
  void bindButtons();
  SessionConfig config() const;
  // The Headers field's lines ("NAME: VALUE" each, blank ones skipped), or what is wrong with
  // the first bad one.
  Result<std::vector<RequestHeader>> headers() const;
  void onText(const QString& text);
  void onToken(const TokenArrival& arrival);
  void onRequestDone(const RequestResult& r, const QString& capture);
  void onFinished(const SessionResult& result);
  void onLoadRecord(const BenchRecord& rec, double bench_start_s);
  void onLoadEnded();
  int plot(const RequestResult& r, double monotonic_start_s, Plotted what);
  void updateStatsLine();
  void updateLoadStatus();
  QString loadSummary(const BenchResult& r) const;
  QString loopHelp() const;
  void updateLoadControls();
  void exportRecordsWithDialog();
  void updateButtons();
  void rememberTarget(const QString& url);
  void showSessionError(const QString& text);

  QComboBox* target_;
  // Where the API key comes from, in the combo's order; ByTarget is the CLI's default.
  enum class KeySource { ByTarget, None, Anthropic, OpenAi, Typed };
  QComboBox* key_source_;
  QLineEdit* api_key_;
  QLineEdit* ca_file_ = nullptr;   // whom TLS trusts: empty for the system store (and the local endpoint)
  QCheckBox* insecure_ = nullptr;  // no certificate check at all
  QPlainTextEdit* headers_;
  QLineEdit* model_;
  QSpinBox* max_tokens_;
  QLineEdit* system_;
  QPlainTextEdit* prompt_;
  QCheckBox* stream_;
  QCheckBox* token_ids_;  // u32 token ids instead of text, for a Messages API target
  QCheckBox* http2_;         // ALPN h2 first, for an https:// HTTP target
  QSpinBox* repeat_;
  QCheckBox* capture_;
  QPushButton* send_;
  QPushButton* cancel_;
  QPlainTextEdit* answer_;
  QLabel* figures_;
  QLabel* session_error_;
  QStringList embedded_targets_;
  QComboBox* load_mode_;
  QSpinBox* concurrency_;
  QDoubleSpinBox* rate_;
  QSpinBox* requests_;
  QDoubleSpinBox* duration_;
  QLineEdit* slo_;
  QComboBox* series_;
  QPushButton* load_button_;
  QLabel* load_status_;
  QPushButton* records_button_;
  QPushButton* clear_button_;
  QPushButton* diagnose_button_;
  QPushButton* export_button_;
  ClientFaultsBox* faults_;
  LatencyCharts* charts_;

  JobService* jobs_;
  CaptureController* captures_;
  SessionController* session_;
  LoadController* load_;
  ChartRun send_run_, load_run_;  // the charts' runs: the last send's, the last load's
  std::vector<Plotted> plotted_;  // by chart request id
  std::optional<std::size_t> shown_request_;  // the request the stats line is about
  double last_token_s_ = -1;  // the streaming request's last token frame, or -1
  QTimer* progress_timer_;
  LastRun last_run_ = LastRun::None;
};

}  // namespace anthro::widgets
