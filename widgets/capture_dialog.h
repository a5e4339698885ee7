// Session → Start Capture…: a live capture of any interface (core's run_live_capture, as
// `anthro-wb capture`), with a BPF filter, a duration or until Stop, packets and bytes as they
// come, and the file handed on when it is written. The interface is opened by the anthro-capture
// helper; when it lacks its capabilities the dialog says so with the setcap command that grants them.
#pragma once

#include <QDialog>
#include <memory>

#include "capture/live_capture.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace anthro::widgets {

class JobService;

class CaptureDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CaptureDialog(QWidget* parent = nullptr);
  ~CaptureDialog() override;

  enum class State { Idle, Starting, Capturing, Stopping };
  State state() const { return state_; }

  void setInterface(const QString& name);
  QString interfaceName() const;
  void setFilter(const QString& bpf);
  void setDuration(int seconds);  // 0: until Stop
  void setOutput(const QString& path);
  QString output() const;
  // The `anthro-wb capture` line doing what the fields say.
  QString commandLine() const;
  QString status() const;
  const LiveCaptureStats& progress() const { return progress_; }

  bool start();  // false (and the reason shown) when a field is wrong or a capture runs
  void stop();   // the file is written, then captured() is emitted

 signals:
  void captured(const QString& path);  // written; progress() holds its counts
  void message(const QString& text);

 protected:
  void reject() override;  // Close stops a running capture; its file is still handed on

 private:
  void retranslate();
  void loadInterfaces();
  void onProgress(std::uint64_t job, const LiveCaptureStats& stats);
  void onEnded(std::uint64_t job, const QString& path, const Result<LiveCaptureStats>& stats);
  void setState(State s);
  void showStatus(const QString& text, bool error);
  void browse();

  QComboBox* interface_;
  QLineEdit* filter_;
  QSpinBox* duration_;
  QLineEdit* output_;
  QPushButton* browse_;
  QLabel* counts_;
  QLabel* status_;
  QLabel* command_;
  QPushButton* start_;
  QPushButton* stop_;
  QPushButton* close_;
  QLabel* interface_label_;
  QLabel* filter_label_;
  QLabel* duration_label_;
  QLabel* output_label_;

  JobService* jobs_;
  State state_ = State::Idle;
  std::uint64_t job_ = 0;  // the current capture's job: an older one's reports are not shown
  LiveCaptureStats progress_;
  QString interfaces_error_;
};

}  // namespace anthro::widgets
