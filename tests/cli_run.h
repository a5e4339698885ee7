// anthro-wb run as a process, the way the CLI suites drive it: the program's exit code and
// output, and a local `anthro-wb endpoint` whose URLs come from its `listening` lines.
#pragma once

#include <QMap>
#include <QProcess>
#include <QStringList>

#include <unistd.h>

#include <csignal>

#include "loopback_listener.h"
#include "test_paths.h"

namespace anthro::test {

struct Run {
  int code;  // -1 when the program crashed or was killed at the timeout
  QByteArray out, err;
};

// XDG_DATA_HOME is where anthro-wb keeps the endpoint's certificate and keys.
inline QProcessEnvironment env_for(const QString& data_dir) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("XDG_DATA_HOME", data_dir);
  return env;
}

inline Run run(const QStringList& args, const QString& data_dir, int timeout_ms = 120000) {
  QProcess p;
  p.setProcessEnvironment(env_for(data_dir));
  p.start(ANTHRO_WB, args);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished();  // else its exit status is still the last one's: a normal exit with code 0
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n(killed at the timeout)"};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

// True once `p` has ended, normally: already (Qt may have reaped it while another process was
// waited for, and a wait then returns false), or within `ms`.
inline bool ended_normally(QProcess& p, int ms) {
  if (p.state() != QProcess::NotRunning && !p.waitForFinished(ms)) return false;
  return p.exitStatus() == QProcess::NormalExit;
}

// An environment variable set for one scope, then unset.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const QByteArray& value) : name_(name) { qputenv(name, value); }
  ~ScopedVariable() { qunsetenv(name_); }

 private:
  const char* name_;
};

// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
inline int free_port() { return LoopbackListener(1).port(); }

// `anthro-wb endpoint` on free loopback ports (anthro, https and lz share the TLS one; metrics
// and lz+lab too with --metrics-listen or --lz-listen in `extra`), stopped with SIGTERM when the object goes. `model`: the
// model's pace and length.
class EndpointProcess {
 public:
  static inline const QStringList kModel{"--ttft-ms", "10:0", "--itl-ms", "1:0", "--tokens", "40"};
  EndpointProcess(const QString& data_dir, const QStringList& extra, const QStringList& model = kModel)
      : expected_(5 + (extra.contains("--metrics-listen") ? 1 : 0) + (extra.contains("--lz-listen") ? 1 : 0)) {
    process_.setProcessEnvironment(env_for(data_dir));
    process_.start(ANTHRO_WB, QStringList{"endpoint", "--listen", "127.0.0.1:0", "--lab-listen", "127.0.0.1:0",
                                          "--http-listen", "127.0.0.1:0"} + model + extra);
    process_.waitForStarted();
    while (urls_.size() < expected_ && process_.waitForReadyRead(10000))
      while (process_.canReadLine()) {
        QString line = QString::fromUtf8(process_.readLine()).trimmed();
        if (line.startsWith("listening ")) urls_[line.mid(10).section("://", 0, 0)] = line.mid(10);
        else other_lines_ << line;
      }
  }
  ~EndpointProcess() { stop(); }
  bool ready() const { return urls_.size() == expected_; }
  QString url(const QString& scheme) const { return urls_.value(scheme); }
  QStringList schemes() const { return urls_.keys(); }
  QStringList other_lines() const { return other_lines_; }  // stdout's lines before the URLs, not `listening`
  // SIGTERM, then its exit code (-1 when it did not exit cleanly in 10 s).
  int stop() {
    if (process_.state() == QProcess::NotRunning) return exit_code_;
    ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    if (process_.waitForFinished(10000)) {
      if (process_.exitStatus() == QProcess::NormalExit) exit_code_ = process_.exitCode();
      return exit_code_;
    }
    process_.kill();
    process_.waitForFinished();
    return exit_code_;
  }

 private:
  QProcess process_;
  int expected_;
  QMap<QString, QString> urls_;
  QStringList other_lines_;
  int exit_code_ = -1;
};

}  // namespace anthro::test
