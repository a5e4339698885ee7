// The live session page: a target, a request composer, the answer as it streams, Cancel (a
// real CANCEL frame on anthro-v1), a load panel driving core's bench, the latency charts, and
// optionally a capture of the session's own traffic for the inspector. Sessions, loads and
// captures run on threads of their own; their results come back through an Inbox.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "capture/live_capture.h"
#include "session/session.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;

namespace anthro {
class LiveSession;
struct BenchResult;
}

namespace anthro::widgets {

class ClientFaultsBox;
class Inbox;
class LatencyCharts;
class Worker;

class SessionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SessionPanel(QWidget* parent = nullptr);
  ~SessionPanel() override;

  // The embedded endpoint's URLs, offered first in the target list.
  void setEmbeddedTargets(const QString& anthro, const QString& lab, const QString& https_messages,
                          const QString& http_messages);
  void setTarget(const QString& url);
  QString target() const;
  void setPrompt(const QString& text);
  void setRepeat(int requests);
  // Capture the session's own traffic on lo (libpcap; needs the capture permission).
  void setCaptureTraffic(bool on);

  // Starts a session with the composer's request; false (and a message) when one is running
  // or the target is malformed.
  bool send();
  void cancel();
  bool running() const;
  void runLoad();
  void setLoadSeries(int series);  // 0 baseline, 1 candidate
  void setLoad(int requests, int concurrency);
  ClientFaultsBox* clientFaults() const { return faults_; }
  void stopLoad();                 // no new request starts; what finished is plotted
  bool loadRunning() const { return load_ != nullptr; }

  QString answer() const;
  // The last load that ended, or null.
  const BenchResult* lastLoad() const { return last_load_.get(); }
  // The last session that ended (its requests, or the error that ended it), or null.
  const SessionResult* lastSession() const { return last_session_ ? &*last_session_ : nullptr; }
  // Which of the two ended last: what "Export report…" reports.
  enum class LastRun { None, Session, Load };
  LastRun lastRun() const { return last_run_; }
  LatencyCharts* charts() const { return charts_; }
  // The requests of the last session, as measured.
  const std::vector<RequestResult>& results() const { return results_; }
  // Targets used before, newest first; the embedded endpoint's are never among them (its
  // ports change with every start, and it is always offered first).
  QStringList recentTargets() const;
  // Why the last session failed (it stays until the next Send), or empty.
  QString sessionError() const;

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
  enum class State { Idle, StartingCapture, Running };

  SessionConfig config() const;
  void startCapture(SessionConfig c, std::uint16_t port);
  void onCaptureListening(int run, const SessionConfig& c, const QString& path);
  void onCaptureEnded(int run, const SessionConfig& c, const QString& path, const Result<LiveCaptureStats>& stats);
  bool startSession(SessionConfig c, const QString& capture_path);
  void onText(const QString& text);
  void onRequestDone(const RequestResult& r);
  void onFinished(const SessionResult& result);
  void onLoadDone(const Result<BenchResult>& result, int series);
  void updateButtons();
  void rememberTarget(const QString& url);
  void showSessionError(const QString& text);
  void stopCapture();

  QComboBox* target_;
  QComboBox* key_source_;
  QLineEdit* api_key_;
  QLineEdit* model_;
  QSpinBox* max_tokens_;
  QLineEdit* system_;
  QPlainTextEdit* prompt_;
  QCheckBox* stream_;
  QSpinBox* repeat_;
  QCheckBox* capture_;
  QPushButton* send_;
  QPushButton* cancel_;
  QPlainTextEdit* answer_;
  QLabel* figures_;
  QLabel* session_error_;
  QStringList embedded_targets_;
  QSpinBox* concurrency_;
  QDoubleSpinBox* rate_;
  QSpinBox* requests_;
  QComboBox* series_;
  QPushButton* load_button_;
  QLabel* load_status_;
  QPushButton* diagnose_button_;
  QPushButton* export_button_;
  ClientFaultsBox* faults_;
  LatencyCharts* charts_;

  std::shared_ptr<Inbox> inbox_;
  State state_ = State::Idle;
  std::unique_ptr<LiveSession> session_;
  QString session_capture_;  // the file capturing the session under way, or empty
  std::vector<RequestResult> results_;
  double series_start_ = -1;  // monotonic seconds of the first request plotted
  std::vector<std::pair<QString, std::uint32_t>> plotted_;  // chart request id -> (capture, stream)
  std::unique_ptr<Worker> load_;
  std::unique_ptr<BenchResult> last_load_;
  std::optional<SessionResult> last_session_;
  LastRun last_run_ = LastRun::None;
  // The last capture started; it may still be writing its file when the next one starts.
  std::unique_ptr<Worker> capture_worker_;
  int capture_run_ = 0;  // numbers the captures, to tell the current one's reports from older ones'
};

}  // namespace anthro::widgets
