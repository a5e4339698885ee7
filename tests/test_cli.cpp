// anthro-wb as scripts use it: the listening lines, the JSON of cli.md, and exit codes.
#include <QProcess>
#include <QtTest>

#include <csignal>
#include <set>

#include "cli/command_table.h"

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

// The commands of the table this build of anthro-wb runs (`report` needs Qt).
std::vector<anthro::cli::CommandSpec> built_commands() {
  std::vector<anthro::cli::CommandSpec> out;
  for (const auto& spec : anthro::cli::command_specs()) {
#ifndef ANTHRO_WITH_REPORT
    if (spec.name == "report") continue;
#endif
    out.push_back(spec);
  }
  return out;
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

  // Every command fed garbage where it reads a file or a number: exit 2 and one line that
  // names the file or option and, for a file's content, where in it.
  void badInputsExitTwoWithOneLine() {
    QDir dir(dir_.path());
    QVERIFY(dir.mkpath("garbage/adir"));
    const QString g = dir.filePath("garbage/");
    auto write = [](const QString& path, const QByteArray& bytes) {
      QFile f(path);
      return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    QByteArray junk("\x7f" "ELF", 4);
    junk.append('\0');  // a NUL at byte 4
    for (int i = 0; i < 2000; ++i) junk.append(char(i * 37 + 11));
    QVERIFY(write(g + "junk.bin", junk));
    QVERIFY(write(g + "empty.bin", {}));
    QVERIFY(write(g + "other.json", R"({"kind": "something else", "schema_version": 1})"));
    QVERIFY(QFile::copy(QStringLiteral(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap", g + "good.pcap"));
    const QString junk_f = g + "junk.bin", empty = g + "empty.bin", adir = g + "adir", none = g + "none.json",
                  good = g + "good.pcap", out = g + "out.json", other = g + "other.json",
                  target = "anthro+lab://127.0.0.1:1";
    struct Case {
      QStringList args;
      QStringList says;  // each in the line
    };
    QList<Case> cases = {
        {{"decode", none}, {none + ": cannot open"}},
        {{"decode", adir}, {adir + ": not a regular file"}},
        {{"decode", empty}, {empty + ": not a pcap or pcapng file (0 bytes long)"}},
        {{"analyze", junk_f, "--format", "json"}, {junk_f + ": not a pcap or pcapng file (magic 0x7f454c46)"}},
        {{"analyze", good, "--format", "xml"}, {"--format \"xml\""}},
        {{"decode", good, "--keylog", junk_f}, {junk_f + ": not a key log: binary data (a NUL byte) at byte 4"}},
        {{"decode", good, "--keylog", adir}, {adir + ": is a directory"}},
        {{"analyze", good, "--server-key", junk_f}, {junk_f + ": not a PEM private key"}},
        {{"analyze", good, "--server-key", empty}, {empty + ": not a PEM private key"}},
        {{"diagnose", "--quiet", junk_f}, {junk_f + ": not a pcap or pcapng file"}},
        {{"diagnose", "--quiet", "--system", "--checklist", junk_f}, {junk_f + ": not valid JSON at byte 0"}},
        {{"diagnose", "--quiet", "--system", "--checklist", empty}, {empty + ": not valid JSON at byte 0"}},
        {{"diagnose", "--quiet", "--system", "--checklist", adir}, {adir + ": is a directory"}},
        {{"diagnose", "--quiet", "--system", "--threshold", "junk"}, {"--threshold \"junk\""}},
        {{"diagnose", "--quiet", "--system", "--threshold", "ttft-tail=1e999"}, {"--threshold \"ttft-tail=1e999\""}},
        {{"diagnose", "--quiet", "--sysfs-root", none}, {"--sysfs-root " + none + ": not a directory"}},
        {{"rollout", "--plan", junk_f}, {junk_f + ": not valid JSON at byte 0"}},
        {{"rollout", "--resume", empty}, {empty + ": not valid JSON at byte 0"}},
        {{"rollout", "--resume", adir}, {adir + ": is a directory"}},
        {{"rollout", "--resume", other}, {other + ": "}},
        {{"rollout", "--stage", "junk"}, {"--stage \"junk\""}},
        {{"rollout", "--requests-per-stage", "-1"}, {"--requests-per-stage \"-1\""}},
        {{"rollout", "--rollback-load-s", "nan"}, {"--rollback-load-s \"nan\""}},
        {{"session", "--target", target, "--messages", junk_f}, {"--messages " + junk_f + ": not valid JSON at byte 0"}},
        {{"session", "--target", target, "--messages", none}, {"--messages " + none + ": cannot open"}},
        {{"session", "--target", target, "--timeout-s", "abc"}, {"--timeout-s \"abc\""}},
        {{"session", "--target", target, "--timeout-s", "-1"}, {"--timeout-s \"-1\": expected a number above 0"}},
        {{"session", "--target", target, "--read-delay-ms", "-5"}, {"--read-delay-ms \"-5\""}},
        {{"bench", "--target", target, "--concurrency", "-1"}, {"--concurrency \"-1\""}},
        {{"bench", "--target", target, "--rate", "abc"}, {"--rate \"abc\""}},
        {{"bench", "--target", target, "--rate", "-3"}, {"--rate \"-3\": expected a number above 0"}},
        {{"bench", "--target", target, "--concurrency", "2", "--duration", "1e999"}, {"--duration \"1e999\""}},
        {{"bench", "--target", target, "--concurrency", "2", "--requests", "99999999999999999999999"}, {"--requests \""}},
        {{"bench", "--target", target, "--concurrency", "2", "--cancel-rate", "nan"}, {"--cancel-rate \"nan\""}},
        {{"bench", "--target", target, "--concurrency", "2", "--hold-connections", "-1"}, {"--hold-connections \"-1\""}},
        {{"endpoint", "--lab-listen", "127.0.0.1:0", "--server-key", junk_f}, {junk_f + ": not a PEM private key"}},
        {{"endpoint", "--lab-listen", "127.0.0.1:0", "--server-key", adir}, {adir + ": is a directory"}},
        {{"endpoint", "--lab-listen", "127.0.0.1:0", "--cert", none, "--key", none}, {"--cert and --key"}},
        {{"endpoint", "--max-connections", "-1"}, {"--max-connections \"-1\""}},
        {{"endpoint", "--seed", "abc"}, {"--seed \"abc\""}},
        {{"capture", "--interface", "lo", "--output", g + "x.pcapng", "--duration", "abc"}, {"--duration \"abc\""}},
        {{"capture", "--interface", "lo", "--output", g + "x.pcapng", "--duration", "-1"}, {"--duration \"-1\""}},
        {{"capture", "--interface", "lo", "--output", g + "x.pcapng", "--duration", "1e999"}, {"--duration \"1e999\""}},
        {{"demo", junk_f}, {junk_f}},
    };
#ifdef ANTHRO_WITH_REPORT
    for (const QString& file : {junk_f, empty})
      cases.push_back({{"report", file, "--to", "json", "--output", out}, {file + ": not valid JSON at byte 0"}});
    cases.push_back({{"report", adir, "--to", "json", "--output", out}, {adir + ": is a directory"}});
    cases.push_back({{"report", other, "--to", "json", "--output", out}, {other + ": field kind"}});
#endif
    for (const Case& c : cases) {  // (diagnose --quiet: its progress lines are on stderr too)
      Run r = run(c.args, dir_.path());
      QString what = c.args.join(' ') + " -> " + QString::number(r.code) + ": " + QString::fromUtf8(r.err);
      QVERIFY2(r.code == 2, qPrintable(what));
      QVERIFY2(r.err.count('\n') == 1 && r.err.endsWith('\n'), qPrintable(what));
      QVERIFY2(r.err.startsWith("anthro-wb " + c.args[0].toUtf8() + ": "), qPrintable(what));
      for (const QString& part : c.says) QVERIFY2(r.err.contains(part.toUtf8()), qPrintable(what + " lacks " + part));
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

  // Every command's help comes from the table its parser reads: each option it accepts is
  // named, on stdout, exit 0, for --help and -h alike, wherever they stand.
  void everyCommandHasHelp() {
    for (const auto& spec : built_commands()) {
      std::set<std::string> names;
      for (const auto& o : spec.options) QVERIFY2(names.insert(o.name).second, (spec.name + " " + o.name).c_str());
      for (QStringList args : {QStringList{"--help"}, QStringList{"-h"}, QStringList{"--format", "json", "--help"}}) {
        if (args.size() > 1 && !names.count("--format")) continue;
        Run r = run(QStringList{QString::fromStdString(spec.name)} + args, dir_.path());
        QString what = QString::fromStdString(spec.name) + " " + args.join(' ');
        QVERIFY2(r.code == 0, qPrintable(what + ": " + r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(what + ": " + r.err));
        QVERIFY2(r.out.startsWith("usage: anthro-wb " + QByteArray::fromStdString(spec.name)), qPrintable(what));
        for (const auto& o : spec.options)
          QVERIFY2(r.out.contains(QByteArray::fromStdString("  " + o.name + (o.value.empty() ? "" : " " + o.value))),
                   qPrintable(what + " lacks " + QString::fromStdString(o.name)));
      }
    }
    // "--help" as the value of an option is that value, not a request for help.
    Run r = run({"session", "--target", "--help"}, dir_.path());
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--help"));
  }

  void topLevelHelpListsEveryCommand() {
    Run r = run({"--help"}, dir_.path());
    QCOMPARE(r.code, 0);
    for (const auto& spec : built_commands())
      QVERIFY2(r.out.contains(QByteArray::fromStdString("  " + spec.name + " ")), spec.name.c_str());
  }

  // The options cli.md documents for a command are in its table, so in its parser and help.
  // tcpdump's habits (-i lo -w f) are named as unknown options, exit 2, before any other check.
  void shortOptionsAreNamed() {
    Run r = run({"capture", "-i", "lo", "-w", "x.pcapng"}, dir_.path());
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("unknown option -i"), r.err.constData());
    QVERIFY2(r.err.contains("anthro-wb capture --help"), r.err.constData());
    r = run({"decode", "-", "--format", "jsonl"}, dir_.path());  // a lone "-" is no option
    QVERIFY2(!r.err.contains("unknown option"), r.err.constData());
  }

  void cliMdOptionsAreAccepted() {
    QFile md(ANTHRO_CLI_MD);
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    QRegularExpression heading("^## `([a-z-]+)`", QRegularExpression::MultilineOption);
    QRegularExpression option("`(--[a-z0-9-]+)");
    int checked = 0;
    for (auto it = heading.globalMatch(text); it.hasNext();) {
      auto m = it.next();
      std::string command = m.captured(1).toStdString();
      if (command == "analyze") command = "diagnose";  // "analyze and diagnose": the options are diagnose's
      const anthro::cli::CommandSpec* spec = nullptr;
      for (const auto& s : anthro::cli::command_specs())
        if (s.name == command) spec = &s;
      if (!spec) continue;  // hash, lint-schema: not in this build
      int end = text.indexOf("\n## ", m.capturedEnd());
      QString section = text.mid(m.capturedEnd(), end < 0 ? -1 : end - m.capturedEnd());
      for (auto o = option.globalMatch(section); o.hasNext();) {
        std::string name = o.next().captured(1).toStdString();
        bool found = false;
        for (const auto& opt : spec->options) found |= opt.name == name;
        QVERIFY2(found, (command + " lacks " + name + ", documented in cli.md").c_str());
        ++checked;
      }
    }
    QVERIFY(checked > 40);
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

  // cli.md: analyze has findings. The checklist is walked over the capture (every item in
  // `checklist`, the items that warn or fail in `findings`) and the text has a findings section.
  void analyzeWalksTheChecklist() {
    const QString vectors = ANTHRO_VECTORS_DIR;
    QStringList args{"analyze", vectors + "/lab-conversation.pcap", "--keylog", vectors + "/lab-conversation.keylog"};
    Run json = run(args + QStringList{"--format", "json"}, dir_.path());
    QVERIFY2(json.code == 0, json.err.constData());
    QJsonObject doc = QJsonDocument::fromJson(json.out).object();
    QJsonArray checklist = doc["checklist"].toArray();
    QVERIFY(checklist.size() >= 18);
    std::set<QString> ids;
    for (const auto& item : checklist) ids.insert(item.toObject()["id"].toString());
    for (const char* id : {"alpn", "server-stall", "utf8-mismatch", "ttft-tail"}) QVERIFY2(ids.count(id), id);
    QVERIFY(doc["findings"].isArray());
    Run text = run(args, dir_.path());
    QCOMPARE(text.code, 0);
    QVERIFY2(text.out.contains("\nfindings (latency):"), text.out.constData());
  }

  // A key log that cannot be written does not stop the run: its figures are printed, and the
  // error is said once (however many lines were lost), naming the file, on stderr and in the
  // JSON's warnings; exit 2, an output not written (as bench --records).
  void keylogWriteErrorsAreReported_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("keylog");
    QTest::newRow("session, TLS, /dev/full") << "session" << "anthro" << "/dev/full";
    QTest::newRow("session, lab, /dev/full") << "session" << "anthro+lab" << "/dev/full";
    QTest::newRow("session, TLS, a directory") << "session" << "anthro" << dir_.path();
    QTest::newRow("bench, TLS, /dev/full") << "bench" << "anthro" << "/dev/full";
  }
  void keylogWriteErrorsAreReported() {
    QFETCH(QString, command);
    QFETCH(QString, scheme);
    QFETCH(QString, keylog);
    QStringList args{command, "--target", urls_[scheme], "--keylog", keylog, "--format", "json"};
    if (command == "bench") args << "--concurrency" << "2" << "--requests" << "4";
    Run r = run(args, dir_.path());
    QVERIFY2(r.code == 2, r.err.constData());
    QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    if (command == "session") QCOMPARE(doc["requests"].toArray()[0].toObject()["tokens"].toInt(), 12);
    else QCOMPARE(doc["requests"].toInt(), 4);
    QJsonArray warnings = doc["warnings"].toArray();
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings[0].toString().startsWith(keylog + ": "), qPrintable(warnings[0].toString()));
    QList<QByteArray> said;
    for (const QByteArray& line : r.err.split('\n'))
      if (line.contains("warning")) said << line;
    QCOMPARE(said.size(), 1);
    QVERIFY2(said[0].contains(keylog.toUtf8()) && said[0].contains("key log"), said[0].constData());
  }

 private:
  QTemporaryDir dir_;
  QProcess endpoint_;
  QMap<QString, QString> urls_;
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
