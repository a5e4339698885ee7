// anthro-wb as scripts use it: the listening lines, the JSON of cli.md, and exit codes.
#include <QProcess>
#include <QtTest>

#include <csignal>

using namespace std::chrono_literals;

namespace {

struct Run {
  int code;
  QByteArray out, err;
};

QProcessEnvironment env_for(const QString& data_dir) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("XDG_DATA_HOME", data_dir);
  return env;
}

Run run(const QStringList& args, const QString& data_dir, int timeout_ms = 60000) {
  QProcess p;
  p.setProcessEnvironment(env_for(data_dir));
  p.start(ANTHRO_WB, args);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeout_ms)) p.kill();
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    endpoint_.setProcessEnvironment(env_for(dir_.path()));
    endpoint_.start(ANTHRO_WB, {"endpoint", "--listen", "127.0.0.1:0", "--lab-listen", "127.0.0.1:0", "--http-listen",
                                "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--ttft-ms", "20:0", "--itl-ms",
                                "2:0", "--tokens", "12", "--fault", "context-wait=3"});
    QVERIFY(endpoint_.waitForStarted());
    QStringList schemes;
    while (urls_.size() < 5 && endpoint_.waitForReadyRead(10000))
      while (endpoint_.canReadLine()) {
        QString line = QString::fromUtf8(endpoint_.readLine()).trimmed();
        QVERIFY2(line.startsWith("listening "), qPrintable(line));
        QString url = line.mid(10);
        urls_[url.section("://", 0, 0)] = url;
      }
    QCOMPARE(urls_.keys(), (QStringList{"anthro", "anthro+lab", "http", "https", "metrics"}));
    QCOMPARE(urls_["anthro"].section(':', -1), urls_["https"].section(':', -1));  // one TLS port, two protocols
  }

  void cleanupTestCase() {
    ::kill(static_cast<pid_t>(endpoint_.processId()), SIGTERM);
    QVERIFY(endpoint_.waitForFinished(10000));
    QCOMPARE(endpoint_.exitCode(), 0);
  }

  void sessionJsonIsTheContract() {
    for (QString target : {urls_["anthro"], urls_["anthro+lab"], urls_["http"] + "/v1/messages",
                           urls_["https"] + "/v1/chat/completions"}) {
      Run r = run({"session", "--target", target, "--format", "json", "--repeat", "2"}, dir_.path());
      QVERIFY2(r.code == 0, r.err.constData());
      QJsonObject doc = QJsonDocument::fromJson(r.out).object();
      for (const char* key : {"target", "transport", "alpn", "suite", "tls_suite", "connect_ms", "handshake_ms", "requests"})
        QVERIFY2(doc.contains(key), key);
      QJsonArray requests = doc["requests"].toArray();
      QCOMPARE(requests.size(), 2);
      QJsonObject req = requests[0].toObject();
      for (const char* key : {"stream_id", "ttft_ms", "ttfot_ms", "e2e_ms", "tokens", "usage_output_tokens", "mean_itl_ms",
                              "p99_itl_ms", "max_gap_ms", "tokens_per_s", "stop_reason", "cancel_latency_ms", "error", "text"})
        QVERIFY2(req.contains(key), key);
      QCOMPARE(req["tokens"].toInt(), 12);
      QCOMPARE(req["stop_reason"].toString(), QString("end_turn"));
      QCOMPARE(doc["target"].toString(), target);
    }
  }

  void humanSessionStreamsTokens() {
    Run r = run({"session", "--target", urls_["anthro"]}, dir_.path());
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("TTFT"));
    QVERIFY(r.out.contains("ALPN anthro-v1"));
  }

  void benchJsonIsTheContract() {
    Run r = run({"bench", "--target", urls_["anthro"], "--concurrency", "3", "--requests", "9", "--format", "json",
                 "--slo", "ttft:500,tpot:50"}, dir_.path());
    QVERIFY2(r.code == 0, r.err.constData());
    QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    for (const char* key : {"target", "requests", "errors", "duration_s", "tokens_per_s", "goodput_per_s", "summary"})
      QVERIFY2(doc.contains(key), key);
    QCOMPARE(doc["requests"].toInt(), 9);
    for (const char* s : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
      QJsonObject summary = doc["summary"].toObject()[s].toObject();
      for (const char* k : {"n", "p50", "p90", "p95", "p99", "mean", "stddev"}) QVERIFY2(summary.contains(k), k);
    }
    QVERIFY(doc["goodput_per_s"].toDouble() > 0);
  }

  void usageErrorsExitTwoWithOneLine() {
    for (QStringList args : {QStringList{"session"}, QStringList{"session", "--target", "ftp://x"},
                             QStringList{"session", "--target", urls_["anthro"], "--bogus"},
                             QStringList{"bench", "--target", urls_["anthro"]},
                             QStringList{"endpoint", "--fault", "no-such-fault"},
                             QStringList{"endpoint", "--ttft-ms", "abc"},
                             QStringList{"session", "--target", urls_["anthro"], "--messages", "/no/such.json"}}) {
      Run r = run(args, dir_.path());
      QVERIFY2(r.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(r.code)));
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY(r.err.startsWith("anthro-wb "));
    }
  }

  void networkFailuresExitThree() {
    Run r = run({"session", "--target", "anthro+lab://127.0.0.1:1"}, dir_.path());
    QCOMPARE(r.code, 3);
    QVERIFY(r.err.contains("cannot connect"));
    Run busy = run({"endpoint", "--lab-listen", urls_["anthro+lab"].section("://", 1)}, dir_.path());
    QCOMPARE(busy.code, 3);
    QVERIFY(busy.err.contains("cannot listen"));
  }

  void keylogFileIsPrivate() {
    QString keylog = dir_.filePath("keys.log");
    QProcess p;
    QProcessEnvironment env = env_for(dir_.path());
    env.insert("SSLKEYLOGFILE", keylog);
    p.setProcessEnvironment(env);
    p.start(ANTHRO_WB, {"session", "--target", urls_["anthro"], "--format", "json"});
    QVERIFY(p.waitForFinished(30000));
    QFile f(keylog);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    QVERIFY(text.contains("ANTHRO_V1 "));
    QVERIFY(text.contains("CLIENT_TRAFFIC_SECRET_0 "));
    QCOMPARE(int(f.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther)), 0);
  }

 private:
  QTemporaryDir dir_;
  QProcess endpoint_;
  QMap<QString, QString> urls_;
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
