// anthro-wb as scripts use it: the listening lines, the JSON of cli.md, and exit codes.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTemporaryDir>
#include <QtEndian>
#include <QTest>

#include <memory>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "cli_run.h"
#include "cli_vectors.h"
#include "diagnosis/checklist.h"
#include "test_paths.h"
#include "vectors.h"

using namespace std::chrono_literals;
using json = nlohmann::json;
using namespace anthro::test;  // run, Run, env_for, the vectors' layout (cli_vectors.h)

namespace {

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

QString vector_file(const char* name) { return QString::fromStdString(anthro::test::vectors_path(name)); }

QByteArray read_bytes(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return f.readAll();
}

void write_bytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
}

std::vector<json> parse_lines(const QByteArray& out) {
  std::vector<json> lines;
  for (const QByteArray& line : out.split('\n'))
    if (!line.isEmpty()) lines.push_back(json::parse(line.toStdString()));
  return lines;
}

std::vector<json> of_kind(const std::vector<json>& lines, const char* kind) {
  std::vector<json> out;
  for (const json& l : lines)
    if (l["kind"] == kind) out.push_back(l);
  return out;
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    endpoint_ = std::make_unique<EndpointProcess>(dir_.path(),
                                                  QStringList{"--metrics-listen", "127.0.0.1:0", "--fault", "context-wait=3"},
                                                  QStringList{"--ttft-ms", "20:0", "--itl-ms", "2:0", "--tokens", "12"});
    QVERIFY2(endpoint_->other_lines().isEmpty(), qPrintable(endpoint_->other_lines().join('\n')));
    for (const QString& scheme : endpoint_->schemes()) urls_[scheme] = endpoint_->url(scheme);
    QCOMPARE(urls_.keys(), (QStringList{"anthro", "anthro+lab", "http", "https", "lz", "metrics"}));
    QCOMPARE(urls_["anthro"].section(':', -1), urls_["https"].section(':', -1));  // one TLS port, three protocols
    QCOMPARE(urls_["anthro"].section(':', -1), urls_["lz"].section(':', -1));
  }

  void cleanupTestCase() { QCOMPARE(endpoint_->stop(), 0); }

  void sessionJsonIsTheContract() {
    for (QString target : {urls_["anthro"], urls_["anthro+lab"], urls_["http"] + "/v1/messages",
                           urls_["https"] + "/v1/chat/completions", urls_["lz"]}) {
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

  // A Layer Zero session refuses what only anthro-v1 and the HTTP APIs have, naming the
  // option; bench refuses the target and says what takes it.
  void layerZeroRefusesForeignOptions() {
    for (QStringList args : {QStringList{"session", "--target", urls_["lz"], "--max-tokens", "5"},
                             QStringList{"session", "--target", urls_["lz"], "--cancel-after-tokens", "2"},
                             QStringList{"bench", "--target", urls_["lz"], "--concurrency", "1", "--requests", "1"},
                             QStringList{"session", "--target", urls_["lz"], "--http2"}}) {
      Run r = run(args, dir_.path());
      QVERIFY2(r.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(r.code)));
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY2(r.err.contains(args[0] == "bench" ? "not for bench" : args[3].toUtf8().constData()), r.err.constData());
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
    QVERIFY(QFile::copy(QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap", g + "good.pcap"));
    const QString junk_f = g + "junk.bin", empty = g + "empty.bin", adir = g + "adir", none = g + "none.json",
                  good = g + "good.pcap", out = g + "out.json", other = g + "other.json",
                  target = "anthro+lab://127.0.0.1:1";
    struct Case {
      QStringList args;
      QStringList says;  // each in the line
    };
    QList<Case> cases = {
        {{"decode", none}, {none + ": cannot open"}},
        {{"decode", adir}, {adir + ": is a directory, not a regular file"}},
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
        {{"analyze", good, "--threads", "0"}, {"--threads \"0\": expected a whole number from 1 to 1024"}},
        {{"analyze", good, "--threads", "-2"}, {"--threads \"-2\""}},
        {{"analyze", good, "--threads", "two"}, {"--threads \"two\""}},
        {{"analyze", good, "--threads", "99999999999999999999999"}, {"--threads \"99999999999999999999999\""}},
        {{"diagnose", "--quiet", good, "--threads", "1025"}, {"--threads \"1025\": expected a whole number from 1 to 1024"}},
        {{"diagnose", "--quiet", good, "--threads", ""}, {"--threads \"\""}},
        {{"compare", good, good, "--threads", "0"}, {"--threads \"0\""}},
        {{"compare", good, good, "--threads", "1.5"}, {"--threads \"1.5\""}},
        {{"rollout", "--plan", junk_f}, {junk_f + ": not valid JSON at byte 0"}},
        {{"rollout", "--resume", empty}, {empty + ": not valid JSON at byte 0"}},
        {{"rollout", "--resume", adir}, {adir + ": is a directory"}},
        {{"rollout", "--resume", other}, {other + ": "}},
        {{"rollout", "--stage", "junk"}, {"--stage \"junk\""}},
        {{"rollout", "--requests-per-stage", "-1"}, {"--requests-per-stage \"-1\""}},
        {{"rollout", "--rollback-load-s", "nan"}, {"--rollback-load-s \"nan\""}},
        // core names the input ("baseline: …"), the CLI its option, as cli.md always said
        {{"rollout", "--baseline", "ftp://x", "--candidate", target},
         {"rollout: --baseline: \"ftp://x\": unknown scheme \"ftp\" (anthro, anthro+lab, http, https, lz, lz+lab)\n"}},
        {{"rollout", "--baseline", target, "--candidate", "http://"}, {"rollout: --candidate: \"http://\": no host\n"}},
        {{"rollout", "--baseline", target, "--candidate", target, "--region", "eu=gopher://x"},
         {"rollout: --region eu: \"gopher://x\": unknown scheme \"gopher\""}},
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

  // A live target nothing answers is an error before any verdict, whatever its scheme and
  // wherever its transport stops (name, TCP, TLS): exit 3, one line naming the address and the
  // OS's reason, and no checklist on stdout or in --output (cli.md has no JSON for a failure).
  void diagnoseOfAnUnreachableTargetIsANetworkError() {
    const QString refused = "127.0.0.1:" + QString::number(anthro::test::free_port());
    const QString cleartext = urls_["http"].section("://", 1);  // speaks HTTP, not TLS
    const QString says_refused = "cannot connect to " + refused + ": Connection refused";
    anthro::test::LoopbackListener listener;  // never accepts
    const QString silent = "127.0.0.1:" + QString::number(listener.port());
    const QList<QPair<QStringList, QString>> cases = {
        {{"--target", "anthro://" + refused}, says_refused},
        {{"--target", "anthro+lab://" + refused}, says_refused},
        {{"--target", "https://" + refused + "/v1/messages"}, says_refused},
        {{"--target", "http://" + refused + "/v1/chat/completions"}, says_refused},
        {{"--target", "lz://" + refused, "--checklist", "layer-zero"}, says_refused},
        {{"--target", "anthro://no-such-host.invalid:7443"}, "cannot resolve no-such-host.invalid: "},
        {{"--target", "anthro://" + cleartext}, "TLS handshake with " + cleartext + " failed: "},
        {{"--target", "https://" + cleartext + "/v1/messages"}, "TLS handshake with " + cleartext + " failed: "},
        // The kernel completes the TCP handshake for a listener that never accepts: no TLS answer.
        {{"--target", "anthro://" + silent}, "no answer from " + silent + " within 1 s (--timeout-s)"},
    };
    const QString output = dir_.filePath("unreachable.json");
    for (const auto& [target, says] : cases) {
      const QStringList args = QStringList{"diagnose", "--requests", "5", "--timeout-s", "1", "--format", "json", "--output", output} + target;
      Run r = run(args, dir_.path());
      const QString what = args.join(' ') + " -> " + QString::number(r.code) + ": " + QString::fromUtf8(r.err);
      QVERIFY2(r.code == 3, qPrintable(what));
      const QByteArray last_line = r.err.trimmed().split('\n').last();  // progress lines come first
      QVERIFY2(last_line.startsWith("anthro-wb diagnose: " + says.toUtf8()), qPrintable(what));
      QVERIFY2(r.out.isEmpty(), qPrintable(what + "\nstdout: " + QString::fromUtf8(r.out)));
      QVERIFY2(!QFile::exists(output), qPrintable(what));
    }
  }

  // Reached, the target's behaviour is the diagnosis, even when it refuses every request.
  void diagnoseOfAReachableTargetGivesVerdicts() {
    qputenv("CLI_TEST_REQUIRED_KEY", "only-the-endpoint-knows");
    EndpointProcess refusing(dir_.path(), {"--require-api-key-env", "CLI_TEST_REQUIRED_KEY"});
    qunsetenv("CLI_TEST_REQUIRED_KEY");
    QVERIFY(refusing.ready());
    const std::size_t items = anthro::builtin_latency_checklist().items.size();
    for (const QString& target : {urls_["anthro"], refusing.url("anthro")}) {
      Run r = run({"diagnose", "--quiet", "--target", target, "--requests", "10", "--format", "json"}, dir_.path());
      QVERIFY2(r.code == 0 || r.code == 1, qPrintable(target + ": " + QString::number(r.code) + ": " + r.err));
      const json doc = json::parse(r.out.toStdString());
      QCOMPARE(doc["checklist"].size(), items);
      QCOMPARE(doc["summary"]["requests"].get<int>(), 10);
      const bool answered = doc["summary"]["ttft_ms"]["n"].get<int>() > 0;
      QCOMPARE(answered, target == urls_["anthro"]);  // the other refused every request (no API key)
    }
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
        QVERIFY2(r.out.startsWith("Usage: anthro-wb " + QByteArray::fromStdString(spec.name)), qPrintable(what));
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
      if (!spec) continue;  // report: absent from builds without Qt
      int end = text.indexOf("\n## ", m.capturedEnd());
      QString section = text.mid(m.capturedEnd(), end < 0 ? -1 : end - m.capturedEnd());
      for (auto o = option.globalMatch(section); o.hasNext();) {
        std::string name = o.next().captured(1).toStdString();
        bool found = false;
        for (const auto& opt : spec->options) found |= opt.name == name;
        // cli.md runs ahead of the code for these: each must still be missing, since an arrival is
        // an XPASS, which fails, so the list shrinks as they land.
        static const std::map<std::string, std::string> not_yet_built{};
        if (auto gap = not_yet_built.find(command + " " + name); gap != not_yet_built.end())
          QEXPECT_FAIL("", gap->second.c_str(), Continue);
        QVERIFY2(found, (command + " lacks " + name + ", documented in cli.md").c_str());
        ++checked;
      }
    }
    QVERIFY(checked > 40);
  }

  // decode of the vector pcap: every frame where spec §4 puts it in the vector's own byte
  // streams (parsed here from anthro-v1-vectors.json), opened, with the conversation's text,
  // stop reason and timings; with the server's PEM key the same lines; without keys, none opened.
  void decodeMatchesTheVectors() {
    const auto& conv = anthro::test::vectors()["conversation"];
    const auto& expected = conv["expected"];
    std::vector<json> lines = decode_lines({"--keylog", vector_file("lab-conversation.keylog")});
    std::vector<json> frames = of_kind(lines, "frame");
    QVERIFY(layout_of(frames) == vector_layout());
    std::string text;
    std::uint64_t next_token = 0;
    std::map<std::string, double> ts;
    for (const json& f : frames) {
      QVERIFY2(f["decrypted"] == true, f.dump().c_str());
      QCOMPARE(f["token"].get<std::string>(), anthro::test::vectors()["keys"]["connection_token"].get<std::string>());
      QCOMPARE(f["stream_id"].get<int>(), 1);
      QVERIFY(f["conn"].get<std::string>().ends_with("-127.0.0.1:7080"));
      const std::string type = f["type"];
      if (!ts.count(type)) ts[type] = f["ts"];
      if (type == "STREAM_TOKEN") {
        QCOMPARE(f["token_index"].get<std::uint64_t>(), next_token);
        next_token += f["token_count"].get<std::uint64_t>();
        text += f["text"].get<std::string>();
      }
      if (type == "RESPONSE") QCOMPARE(f["json"]["stop_reason"], expected["stop_reason"]);
      if (type == "REQUEST") QVERIFY(f["json"].contains("messages"));
    }
    QCOMPARE(text, expected["text"].get<std::string>());
    QCOMPARE(next_token, expected["tokens"].get<std::uint64_t>());
    QVERIFY(std::abs((ts["STREAM_TOKEN"] - ts["REQUEST"]) * 1000 - expected["ttft_ms"].get<double>()) < 1e-3);
    QVERIFY(std::abs((ts["RESPONSE"] - ts["REQUEST"]) * 1000 - expected["e2e_ms"].get<double>()) < 1e-3);
    std::vector<json> negotiation = of_kind(lines, "negotiation");
    QCOMPARE(negotiation.size(), std::size_t{2});
    for (const json& n : negotiation) {
      QCOMPARE(n["transport"], "lab");
      const bool offer = n["dir"] == "c2s";
      QVERIFY2(n[offer ? "offer" : "answer"] == blob_fields(offer), n.dump().c_str());
    }
    QCOMPARE(negotiation[1]["suite"], "aes-256-gcm");  // the answer's aead bit 0

    QVERIFY(of_kind(decode_lines({"--server-key", vector_file("server-static.pem")}), "frame") == frames);
    std::vector<json> locked = of_kind(decode_lines({}), "frame");
    QVERIFY(layout_of(locked) == vector_layout());
    for (const json& f : locked) QVERIFY2(f["decrypted"] == false && f["error"] == "no key", f.dump().c_str());
  }

  // analyze of the vector pcap: the figures of the vector's `expected`, per cli.md's JSON.
  void analyzeMatchesTheVectors() {
    Run r = run({"analyze", vector_file("lab-conversation.pcap"), "--keylog", vector_file("lab-conversation.keylog"),
                 "--format", "json"}, dir_.path());
    QVERIFY2(r.code == 0, r.err.constData());
    const json doc = json::parse(r.out.toStdString());
    const json& expected = anthro::test::vectors()["conversation"]["expected"];
    QCOMPARE(doc["connections"].size(), std::size_t{1});
    const json& conn = doc["connections"][0];
    QCOMPARE(conn["conn"], "127.0.0.1:40000-127.0.0.1:7080");
    QCOMPARE(conn["transport"], "lab");
    QCOMPARE(conn["decryption"], "ok");
    for (const char* counter : {"retransmissions", "out_of_order", "zero_window_events", "gaps", "bad_checksums"})
      QVERIFY2(conn["tcp"][counter] == 0, counter);
    QCOMPARE(conn["streams"].size(), std::size_t{1});
    const json& s = conn["streams"][0];
    for (const char* key : {"ttft_ms", "e2e_ms", "mean_itl_ms"})
      QVERIFY2(std::abs(s[key].get<double>() - expected[key].get<double>()) < 1e-3, key);
    QVERIFY(std::abs(s["tokens_per_s"].get<double>() - 50.0) < 1e-3);  // vectors/README.md
    QCOMPARE(s["tokens"], expected["tokens"]);
    QCOMPARE(s["text"], expected["text"]);
    QCOMPARE(s["stop_reason"], expected["stop_reason"]);
    QCOMPARE(doc["summary"]["requests"], 1);
    QVERIFY(doc["findings"].is_array());
  }

  // A frame the decoder cannot take is reported with the reason of spec §4 and its byte offset
  // in the direction's stream; the frames around it are decoded as before.
  void frameErrorsNameTheirOffset_data() {
    QTest::addColumn<int>("at");     // byte within the frame to change
    QTest::addColumn<int>("value");  // XORed into it
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("after");  // frames opened after it: none once the direction is lost
    QTest::newRow("tag") << 40 << 0x01 << "authentication" << 3;
    QTest::newRow("version") << 0 << 0x03 << "version" << 3;
    QTest::newRow("length") << 4 << 0x01 << "length" << 0;  // no length to skip by: a desync
  }
  void frameErrorsNameTheirOffset() {
    QFETCH(int, at);
    QFETCH(int, value);
    QFETCH(QString, reason);
    QFETCH(int, after);
    const FrameAt target = vector_layout().at(2);  // the server's second STREAM_TOKEN
    QCOMPARE(target.type, std::string("STREAM_TOKEN"));
    QByteArray pcap = read_bytes(vector_file("lab-conversation.pcap"));
    const QByteArray s2c = QByteArray::fromHex(QByteArray::fromStdString(
        anthro::test::vectors()["conversation"]["server_to_client"].get<std::string>()));
    const qsizetype in_file = pcap.indexOf(s2c.mid(qsizetype(target.offset), 28));  // header and nonce
    QVERIFY2(in_file > 0 && pcap.indexOf(s2c.mid(qsizetype(target.offset), 28), in_file + 1) < 0, "frame not found once");
    pcap[in_file + at] = char(pcap[in_file + at] ^ value);
    const QString path = dir_.filePath("damaged-" + reason + ".pcap");
    write_bytes(path, pcap);
    Run r = run({"decode", path, "--keylog", vector_file("lab-conversation.keylog"), "--format", "jsonl"}, dir_.path());
    QVERIFY2(r.code == 0, r.err.constData());  // the work ran: what it found is in the lines
    std::vector<json> lines = parse_lines(r.out);
    bool reported = false;
    for (const json& l : lines) {
      const bool here = l.value("dir", "") == "s2c" && l.value("offset", std::uint64_t{0}) == target.offset;
      if (here && (l["kind"] == "frame" || l["kind"] == "desync")) {
        QCOMPARE(QString::fromStdString(l.value("error", l.value("reason", ""))), reason);
        reported = true;
      }
    }
    QVERIFY2(reported, qPrintable("no line at s2c offset " + QString::number(target.offset) + ":\n" + r.out));
    int before = 0, later = 0;
    for (const json& f : of_kind(lines, "frame")) {
      if (f["decrypted"] != true) continue;
      (f["offset"] < target.offset ? before : later) += 1;
    }
    QCOMPARE(before, 2);  // the REQUEST (c2s) and the first token
    QCOMPARE(later, after);
    QCOMPARE(of_kind(lines, "desync").size(), std::size_t(after == 0));
  }

  // A damaged capture file: the reason names the file and the byte where the damage is; the
  // packets before it are decoded.
  void damagedFilesNameTheByte() {
    const QByteArray pcap = read_bytes(vector_file("lab-conversation.pcap"));
    std::vector<qsizetype> records;  // classic pcap: a 24-byte header, then 16-byte record headers
    for (qsizetype at = 24; at + 16 <= pcap.size(); at += 16 + qFromLittleEndian<quint32>(pcap.constData() + at + 8))
      records.push_back(at);
    QVERIFY(records.size() > 8);
    const qsizetype last = records.back();
    const QString cut = dir_.filePath("cut.pcap");
    write_bytes(cut, pcap.left(pcap.size() - 5));
    Run r = run({"decode", cut, "--keylog", vector_file("lab-conversation.keylog"), "--format", "jsonl"}, dir_.path());
    QVERIFY2(r.err.contains(cut.toUtf8()) && r.err.contains("at byte " + QByteArray::number(last)), r.err.constData());
    // Whether a file readable up to its damage exits 0 or 2 is the bad-input table's to pin.
    QVERIFY2(r.code == 0 || r.code == 2, qPrintable(QString::number(r.code)));
    QCOMPARE(of_kind(parse_lines(r.out), "frame").size(), std::size_t{6});  // the last packet holds no frame

    QByteArray bad = pcap;
    qToLittleEndian<quint32>(0x7FFFFFFF, bad.data() + records[5] + 8);  // caplen
    const QString corrupt = dir_.filePath("corrupt.pcap");
    write_bytes(corrupt, bad);
    r = run({"decode", corrupt, "--format", "jsonl"}, dir_.path());
    QVERIFY2(r.err.contains(corrupt.toUtf8()) && r.err.contains("at byte " + QByteArray::number(records[5])), r.err.constData());
    QVERIFY2(r.code == 0 || r.code == 2, qPrintable(QString::number(r.code)));
  }

  // cli.md's exit codes, one real command each: 0 success, 1 a failed verdict, 2 unreadable
  // input (naming the file), 3 a network failure, 4 a rollout paused on an inconclusive stage.
  void exitCodesOfCliMd() {
    const QString pcap = vector_file("lab-conversation.pcap"), keylog = vector_file("lab-conversation.keylog");
    QCOMPARE(run({"analyze", pcap, "--keylog", keylog}, dir_.path()).code, 0);
    // The vector's longest token gap is 20 ms: above a 10 ms threshold, server-stall warns.
    const QStringList stall = {"diagnose", pcap, "--keylog", keylog, "--threshold", "server-stall=10", "--format", "json"};
    Run warned = run(stall, dir_.path());
    QVERIFY2(warned.code == 0, warned.err.constData());
    std::string verdict;
    const json doc = json::parse(warned.out.toStdString());
    for (const json& item : doc["checklist"])
      if (item["id"] == "server-stall") verdict = item["verdict"];
    QCOMPARE(verdict, std::string("warn"));
    Run failed = run(stall + QStringList{"--fail-on", "warn"}, dir_.path());
    QVERIFY2(failed.code == 1, failed.err.constData());
    Run missing = run({"decode", dir_.filePath("none.pcap")}, dir_.path());
    QCOMPARE(missing.code, 2);
    QVERIFY2(missing.err.contains(dir_.filePath("none.pcap").toUtf8()) && missing.err.count('\n') == 1, missing.err.constData());
    QCOMPARE(run({"session", "--target", "anthro+lab://127.0.0.1:1"}, dir_.path()).code, 3);
    Run paused = run({"rollout", "--stage", "1", "--requests-per-stage", "20", "--quiet"}, dir_.path(), 180000);
    QVERIFY2(paused.code == 4, paused.err.constData());
  }

  // demo, the headless main job, end to end (as root in CI it captures on lo): every file it
  // names exists and reads back — the capture decrypts with the keys embedded in it, the
  // diagnosis is cli.md's JSON, the reports are HTML and PDF.
  void demoRunsTheWholeJob() {
    QTemporaryDir data;
    Run r = run({"demo"}, data.path(), 600000);
    QVERIFY2(r.code == 0, r.err.constData());
    const QString dir = data.filePath("anthro-workbench");
    QVERIFY2(r.out.contains("captured on lo"), r.out.constData());
    QVERIFY(r.out.contains("decrypted with the keys embedded in the capture"));
    const QString pcapng = dir + "/demo-session.pcapng";
    QVERIFY(r.out.contains(pcapng.toUtf8()));
    Run analysis = run({"analyze", pcapng, "--format", "json"}, dir_.path());
    QVERIFY2(analysis.code == 0, analysis.err.constData());
    const json a = json::parse(analysis.out.toStdString());
    QCOMPARE(a["connections"][0]["decryption"], "ok");
    QCOMPARE(a["connections"][0]["alpn"], "anthro-v1");
    QVERIFY(!a["connections"][0]["streams"][0]["text"].get<std::string>().empty());
    QVERIFY(read_bytes(dir + "/demo-session.keylog").contains("ANTHRO_V1 "));
    const QString result = dir + "/demo-diagnosis.json";
    QVERIFY(r.out.contains(result.toUtf8()));
    const json diagnosis = json::parse(read_bytes(result).toStdString());
    QCOMPARE(diagnosis["kind"], "diagnosis");
    QVERIFY(diagnosis["checklist"].size() >= 10);
    // The run is long enough for every item's minimum: an item left inconclusive is one no
    // longer run could settle, and its evidence says why rather than how many more it needs.
    for (const json& item : diagnosis["checklist"]) {
      const std::string evidence = item["evidence"];
      if (item["verdict"] == "inconclusive")
        QVERIFY2(evidence.rfind("need ", 0) != 0, (item["id"].get<std::string>() + ": " + evidence).c_str());
    }
#ifdef ANTHRO_WITH_REPORT
    for (const char* name : {"/demo-report.html", "/demo-report.pdf"})
      QVERIFY2(r.out.contains((dir + name).toUtf8()), (name + (": " + r.err)).constData());
    QVERIFY(read_bytes(dir + "/demo-report.html").trimmed().startsWith("<!DOCTYPE html>"));
    QVERIFY(read_bytes(dir + "/demo-report.pdf").startsWith("%PDF-"));
#endif
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
  // decode's JSONL of the vector pcap with these key options; exit 0 and nothing on stderr.
  std::vector<json> decode_lines(const QStringList& keys) {
    Run r = run(QStringList{"decode", vector_file("lab-conversation.pcap"), "--format", "jsonl"} + keys, dir_.path());
    if (r.code != 0 || !r.err.isEmpty()) qFatal("decode %s: exit %d: %s", qPrintable(keys.join(' ')), r.code, r.err.constData());
    return parse_lines(r.out);
  }

  QTemporaryDir dir_;
  std::unique_ptr<EndpointProcess> endpoint_;
  QMap<QString, QString> urls_;
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
