// The checklist as data, thresholds, verdict rules on hand-made observations, the system
// probes on fake /sys and /proc trees, and `anthro-wb diagnose` with bad input.
#include <QByteArray>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "capture/analysis.h"
#include "diagnosis/diagnose.h"
#include "diagnosis/probe_kit.h"
#include "endpoint_fixture.h"
#include "english_text.h"
#include "test_paths.h"
#include "util/files.h"
#include "util/message.h"
#include "util/message_json.h"

using namespace anthro;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

// A /sys with two CPUs and one NIC, and a /proc with socket buffer limits.
void fake_tree(const std::filesystem::path& root, const std::string& governor, std::uint64_t drops) {
  for (const char* cpu : {"cpu0", "cpu1"}) {
    write(root / "sys/devices/system/cpu" / cpu / "cpufreq/scaling_governor", governor);
    write(root / "sys/devices/system/cpu" / cpu / "cpufreq/scaling_cur_freq", "2400000");
  }
  write(root / "sys/class/net/eth0/statistics/rx_missed_errors", std::to_string(drops));
  write(root / "sys/class/net/eth0/statistics/rx_dropped", "0");
  write(root / "sys/class/net/eth0/statistics/rx_fifo_errors", "0");
  write(root / "proc/sys/net/core/rmem_max", "212992");
  write(root / "proc/sys/net/core/wmem_max", "212992");
}

SystemProbeConfig probe_config(const std::filesystem::path& root) {
  return {(root / "sys").string(), (root / "proc").string(), false};
}

ObservedRequest request(double ttft_ms, std::optional<std::string> probe = std::nullopt) {
  ObservedRequest q;
  q.edit().timeline.request_written = 1;
  q.edit().figures.ttft_ms = ttft_ms;
  q.edit().probe = probe;
  q.edit().end = RequestEnd::Response;
  return q;
}

// A client with one connection at a time, each carrying `per_connection` requests and closed by
// the server; `cut`: during its last stream (a reset), else after its last RESPONSE.
Observations server_closed_connections(std::size_t connections, std::size_t per_connection, bool cut) {
  Observations o;
  o.live = true;
  for (std::size_t c = 0; c < connections; ++c) {
    ObservedConnection conn;
    conn.name = "live#" + std::to_string(c + 1);
    conn.opened = 10.0 * c + 1;
    conn.closed = 10.0 * c + 9;
    conn.server_closed_first = true;
    o.connections.push_back(conn);
    for (std::size_t k = 0; k < per_connection; ++k) {
      ObservedRequest q = request(100);
      q.connection = c;
      q.edit().timeline.request_written = conn.opened.value() + k + 1;
      q.edit().figures.tokens = 5;
      if (cut && k + 1 == per_connection) q.edit().end = RequestEnd::ConnectionClosed;
      o.requests.push_back(q);
    }
  }
  return o;
}

struct Run {
  int code;
  QString out, err;
};

Run wb(const QStringList& args) {
  QProcess p;
  p.start(ANTHRO_WB, args);
  p.waitForFinished(60000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TestDiagnosis : public QObject {
  Q_OBJECT

 private slots:
  void builtInChecklistHasEveryItemOfTheSpec() {
    const Checklist& c = builtin_latency_checklist();
    // The ids of checklists.md's latency table, in its order.
    const std::vector<std::string> spec = {
        "alpn", "http-fallback", "connection-reuse", "frame-decode-time", "gpu-context-wait", "nic-drops",
        "ring-buffer-stall", "server-stall", "connection-reset", "cancel-not-sent", "cancel-latency",
        "retry-after-ignored", "frame-drops", "ttft-tail", "max-tokens-truncation", "utf8-mismatch",
        "connection-duration", "cancel-rate"};
    QCOMPARE(c.items.size(), spec.size());
    for (std::size_t i = 0; i < spec.size(); ++i) {
      QCOMPARE(c.items[i].id, spec[i]);
      QVERIFY2(!c.items[i].title.zh_CN.empty() && !c.items[i].remedy.zh_CN.empty(), spec[i].c_str());
    }
    // Thresholds and minimum counts as checklists.md states them.
    QCOMPARE(c.item("ttft-tail")->thresholds.front().value, 800.0);
    QCOMPARE(c.item("ttft-tail")->min_n, std::size_t{100});
    QCOMPARE(c.item("gpu-context-wait")->threshold("p95")->value, 15.0);
    QCOMPARE(c.item("gpu-context-wait")->threshold("rebalance")->value, 12.0);
    QCOMPARE(c.item("frame-drops")->thresholds.front().value, 0.00001);
    QCOMPARE(c.item("cancel-rate")->thresholds.front().value, 0.005);
    QCOMPARE(c.item("connection-reuse")->thresholds.front().compare, Compare::Below);
    QCOMPARE(c.item("nic-drops")->min_n, std::size_t{2});
  }

  // An independent validator (Python's jsonschema) holds the shipped files to the schema.
  void checklistFileMatchesItsSchema_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("latency") << "latency.json";
    QTest::newRow("session-affinity") << "session-affinity.json";
    QTest::newRow("token-stream") << "token-stream.json";
  }
  void checklistFileMatchesItsSchema() {
    QFETCH(QString, file);
    QProcess p;
    const QString dir = QString(ANTHRO_SOURCE_DIR) + "/resources/checklists/";
    p.start("/usr/bin/python3", {"-c",  // Debian's, with python3-jsonschema
                        "import json,sys,jsonschema\n"
                        "s=json.load(open(sys.argv[1]));d=json.load(open(sys.argv[2]))\n"
                        "jsonschema.Draft202012Validator.check_schema(s)\n"
                        "jsonschema.Draft202012Validator(s).validate(d)\nprint('valid')",
                        dir + "checklist.schema.json", dir + file});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QCOMPARE(p.readAllStandardOutput().trimmed(), QByteArray("valid"));
  }

  // The schema's probe names are the workbench's probes, each of them: a file the schema
  // accepts loads, and a probe the workbench has is allowed by the schema.
  void schemaNamesEveryProbe() {
    auto schema = nlohmann::json::parse(checklist_schema());
    const auto& names = schema["$defs"]["item"]["properties"]["probe"]["enum"];
    std::set<std::string> in_schema;
    for (const auto& n : names) in_schema.insert(n.get<std::string>());
    for (const auto& n : in_schema) QVERIFY2(n == "manual" || probe_kit::find_probe(n), n.c_str());
    for (const Checklist* c : builtin_checklists())
      for (const auto& item : c->items) QVERIFY2(in_schema.count(item.probe), item.probe.c_str());
  }

  void malformedChecklistsNameFileItemAndField() {
    std::string good = read_file(std::string(ANTHRO_SOURCE_DIR) + "/resources/checklists/latency.json", file_limit::kChecklist).value();
    auto doc = nlohmann::json::parse(good);
    doc["items"][13].erase("min_n");
    auto missing = parse_checklist(doc.dump(), "team.json");
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().detail, std::string("team.json: item 14 (\"ttft-tail\"): field min_n: expected a whole number ≥ 0"));
    doc = nlohmann::json::parse(good);
    doc["items"][2]["probe"] = "telepathy";
    auto probe = parse_checklist(doc.dump(), "team.json");
    QVERIFY(!probe.ok());
    QVERIFY2(probe.error().detail.find("item 3 (\"connection-reuse\"): field probe") != std::string::npos,
             probe.error().detail.c_str());
    doc = nlohmann::json::parse(good);
    doc["items"][0]["thresholds"] = nlohmann::json::array({{{"name", "x"}, {"value", "high"}, {"verdict", "fail"}}});
    auto value = parse_checklist(doc.dump(), "team.json");
    QVERIFY(!value.ok());
    QVERIFY2(value.error().detail.find("field thresholds[0].value") != std::string::npos, value.error().detail.c_str());
    QVERIFY(!parse_checklist("{", "broken.json").ok());
    QVERIFY2(parse_checklist("{", "broken.json").error().detail.rfind("broken.json: not valid JSON at byte 1: ", 0) == 0,
             parse_checklist("{", "broken.json").error().detail.c_str());
  }

  void thresholdsOverrideByIdOrName() {
    Checklist c = builtin_latency_checklist();
    QVERIFY(apply_threshold(c, "ttft-tail=300").ok());
    QCOMPARE(c.item("ttft-tail")->threshold("p99")->value, 300.0);
    QVERIFY(apply_threshold(c, "ttft-tail.jitter=0.9").ok());
    QCOMPARE(c.item("ttft-tail")->threshold("jitter")->value, 0.9);
    auto unknown = apply_threshold(c, "ttft-tale=3");
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.error().kind, ErrorClass::Usage);
    QVERIFY(unknown.error().detail.find("no item \"ttft-tale\"") != std::string::npos);
    QVERIFY(!apply_threshold(c, "ttft-tail=fast").ok());
    QVERIFY(!apply_threshold(c, "ttft-tail.p42=1").ok());
    QVERIFY(!apply_threshold(c, "alpn=1").ok());  // alpn has no threshold
  }

  void tooFewSamplesAreInconclusiveWithTheNumberStillNeeded() {
    Observations o;
    o.live = true;
    for (int i = 0; i < 50; ++i) o.requests.push_back(request(100 + i));
    ItemResult r = evaluate_item(*builtin_latency_checklist().item("ttft-tail"), o);
    QCOMPARE(r.verdict, Verdict::Inconclusive);
    QCOMPARE(r.need_more, std::size_t{50});
    QCOMPARE(r.reason, std::string("need 50 more requests (have 50)"));
  }

  void probeStreamsStayOutOfTheDistributions() {
    Observations o;
    o.live = true;
    for (int i = 0; i < 100; ++i) o.requests.push_back(request(100));
    for (int i = 0; i < 5; ++i) o.requests.push_back(request(5000, "cancel-latency"));
    ItemResult r = evaluate_item(*builtin_latency_checklist().item("ttft-tail"), o);
    QCOMPARE(r.verdict, Verdict::Pass);
    QCOMPARE(r.n, std::size_t{100});
    QCOMPARE(*r.statistic, 100.0);
  }

  void anItemNoSourceMeasuresNamesTheSourceThatWould() {
    Observations o;
    o.live = true;
    ItemResult r = evaluate_item(*builtin_latency_checklist().item("http-fallback"), o);
    QCOMPARE(r.verdict, Verdict::Inconclusive);
    QCOMPARE(r.reason, std::string("not measured: a capture source would measure it"));
    ItemResult nic = evaluate_item(*builtin_latency_checklist().item("nic-drops"), o);
    QCOMPARE(nic.reason, std::string("not measured: a system source would measure it"));
  }

  void tailAndJitterThresholds() {
    Observations o;
    o.live = true;
    for (int i = 0; i < 100; ++i) o.requests.push_back(request(i < 3 ? 3800 : 100));
    ItemResult r = evaluate_item(*builtin_latency_checklist().item("ttft-tail"), o);
    QCOMPARE(r.verdict, Verdict::Fail);  // p99 3800 ms > 800 ms
    Observations jitter;
    jitter.live = true;
    for (int i = 0; i < 100; ++i) jitter.requests.push_back(request(i % 2 ? 50 : 250));
    ItemResult j = evaluate_item(*builtin_latency_checklist().item("ttft-tail"), jitter);
    QCOMPARE(j.verdict, Verdict::Warn);  // stddev 100 / median 150 > 0.5, p99 250 < 800
  }

  // checklists.md: a connection opened to replace one the server cut mid-stream is
  // connection-reset's, not connection-reuse's, and the evidence says how many were left out.
  void connectionsReopenedAfterResetsAreNotTheClientsReuse() {
    Diagnosis d = evaluate(builtin_latency_checklist(), server_closed_connections(10, 3, true));
    const ItemResult* reuse = d.item("connection-reuse");
    QCOMPARE(reuse->verdict, Verdict::Pass);
    QCOMPARE(reuse->n, std::size_t{30});
    QCOMPARE(*reuse->statistic, 1.0 - 1.0 / 30);  // the first connection only
    QVERIFY2(reuse->reason.find("; 9 of 10 connections were reopened after a reset (connection-reset) and are not counted") !=
                 std::string::npos,
             reuse->reason.c_str());
    QCOMPARE(d.item("connection-reset")->verdict, Verdict::Fail);
    QCOMPARE(*d.item("connection-reset")->statistic, 10.0);
    // The same connections closed after a RESPONSE: a client that opens one per 3 requests.
    Diagnosis closed = evaluate(builtin_latency_checklist(), server_closed_connections(10, 3, false));
    reuse = closed.item("connection-reuse");
    QCOMPARE(reuse->verdict, Verdict::Warn);
    QCOMPARE(*reuse->statistic, 1.0 - 10.0 / 30);
    QVERIFY2(reuse->reason.find("reopened") == std::string::npos, reuse->reason.c_str());
    QCOMPARE(closed.item("connection-reset")->verdict, Verdict::Pass);
  }

  // A cancel probe whose reply ended on its own before a slow cancel could show: more probes of
  // the same kind cannot help, and the reason says what would.
  void cancelProbesWithRepliesTooShortSayLongerRepliesWouldHelp() {
    const ChecklistItem& item = *builtin_latency_checklist().item("cancel-latency");
    auto probes = [](double ran_on_ms) {
      Observations o;
      o.live = true;
      for (int i = 0; i < 5; ++i) {
        ObservedRequest q = request(100, "cancel-latency");
        q.edit().timeline.cancel_written = 2.0;
        q.edit().timeline.end = 2.0 + ran_on_ms / 1000;
        q.edit().figures.tokens = 7;
        q.edit().max_tokens = 4096;
        o.requests.push_back(q);
      }
      return o;
    };
    ItemResult short_replies = evaluate_item(item, probes(4));
    QCOMPARE(short_replies.verdict, Verdict::Inconclusive);
    QCOMPARE(short_replies.need_more, std::size_t{5});
    for (const char* says : {"5 probe replies ended on their own at most 4 ms after their CANCEL", "up to 4096 tokens",
                             "the replies had at most 7", "more probes will not help; longer replies would"})
      QVERIFY2(short_replies.reason.find(says) != std::string::npos, short_replies.reason.c_str());
    // Replies that ran on 38 ms past the CANCEL: the cancel took longer than the 10 ms threshold.
    ItemResult slow = evaluate_item(item, probes(38));
    QCOMPARE(slow.verdict, Verdict::Warn);
    QCOMPARE(slow.n, std::size_t{5});
    QVERIFY(std::abs(*slow.statistic - 38) < 1e-6);
    QVERIFY2(slow.reason.find("5 of the 5 CANCELs were not honoured before the reply ended") != std::string::npos,
             slow.reason.c_str());
    // The same replies read by a client whose ring was full: their end says when the client read
    // them, so they bound nothing (a slow reader must not make the server's cancel look slow).
    Observations full = probes(38);
    for (auto& q : full.requests) q.edit().ring_high_water = q.edit().ring_capacity = 65536;
    ItemResult behind = evaluate_item(item, full);
    QCOMPARE(behind.verdict, Verdict::Inconclusive);
    QVERIFY2(behind.reason.find("5 probe replies ended on their own while the client's receive ring was full") !=
                 std::string::npos,
             behind.reason.c_str());
  }

  // A live run against an HTTP target (OpenAI-compatible, as tests/npm/mock_llm_check.mjs runs
  // against a server from npm): the items that read only anthro-v1 cannot apply and say so, not
  // "need N more"; an HTTP client's close at its cancel point is HTTP's cancel; a max_tokens probe
  // whose reply ended within the 2 tokens 16 bits keep tells nothing.
  void anHttpRunSaysWhichItemsCannotApply() {
    Observations o;
    o.live = true;
    o.connections.push_back({});
    for (int i = 0; i < 300; ++i) {
      ObservedRequest q = request(50);
      q.anthro = false;
      q.edit().figures.tokens = 1;
      o.requests.push_back(q);
    }
    ObservedRequest closed = request(50);  // a cancel probe (its marker does not ride on chat completions)
    closed.anthro = false;
    closed.edit().figures.tokens = 5;
    closed.edit().timeline.cancel_written = 2.0;
    closed.edit().end = RequestEnd::ClientClosed;
    o.requests.push_back(closed);
    ObservedRequest probe = request(50);
    probe.anthro = false;
    probe.edit().figures.tokens = 1;
    probe.edit().max_tokens = 65538;
    probe.edit().stop_reason = StopReason::EndTurn;
    o.requests.push_back(probe);
    Diagnosis d = evaluate(builtin_latency_checklist(), o);
    for (const char* id : {"alpn", "connection-reuse", "frame-decode-time", "ring-buffer-stall", "server-stall",
                           "cancel-latency", "frame-drops", "utf8-mismatch", "connection-duration", "cancel-rate"}) {
      const ItemResult* r = d.item(id);
      QCOMPARE(r->verdict, Verdict::Inconclusive);
      QVERIFY2(r->reason.rfind("cannot apply: it measures ", 0) == 0 &&
                   r->reason.find("none of the 302 requests spoke anthro-v1") != std::string::npos,
               (std::string(id) + ": " + r->reason).c_str());
    }
    QVERIFY2(d.item("gpu-context-wait")->reason.rfind("cannot apply: none of the 301 answered requests carried the server's timing", 0) == 0,
             d.item("gpu-context-wait")->reason.c_str());
    QCOMPARE(d.item("cancel-not-sent")->verdict, Verdict::Pass);
    QCOMPARE(d.item("ttft-tail")->verdict, Verdict::Pass);
    const ItemResult* truncation = d.item("max-tokens-truncation");
    QCOMPARE(truncation->verdict, Verdict::Inconclusive);
    QVERIFY2(truncation->reason.find("ended on their own after at most 1 tokens, within the 2 a 16-bit max_tokens keeps") !=
                 std::string::npos,
             truncation->reason.c_str());
    // The same close on anthro-v1 is a client that gave up without CANCEL; a longer reply
    // measures the max_tokens probe.
    for (auto& q : o.requests) q.anthro = true;
    o.requests[301].edit().figures.tokens = 3;
    Diagnosis anthro = evaluate(builtin_latency_checklist(), o);
    QCOMPARE(anthro.item("cancel-not-sent")->verdict, Verdict::Warn);
    QCOMPARE(anthro.item("max-tokens-truncation")->verdict, Verdict::Pass);
    QCOMPARE(anthro.item("connection-reuse")->verdict, Verdict::Pass);
  }

  // A tail made of context wait is gpu-context-wait's doing; a tail of slow prefill beside a
  // slow context wait is not, though both items flag.
  void aTailMadeOfContextWaitLinksToItsCause() {
    auto run = [](double tail_wait_ms) {
      Observations o;
      o.live = true;
      for (int i = 0; i < 100; ++i) {
        ObservedRequest q = request(i < 3 ? 3800 : 100);
        q.edit().server_timing = Timing{};
        q.edit().server_timing->context_wait_us = static_cast<std::uint64_t>((i < 3 ? tail_wait_ms : 30) * 1000);
        o.requests.push_back(q);
      }
      return evaluate(builtin_latency_checklist(), o);
    };
    Diagnosis waits = run(3700);
    QCOMPARE(waits.item("ttft-tail")->verdict, Verdict::Fail);
    QCOMPARE(waits.item("gpu-context-wait")->verdict, Verdict::Fail);
    const auto& cause = waits.item("ttft-tail")->caused_by;
    QVERIFY(cause);
    QCOMPARE(cause->id, std::string("gpu-context-wait"));
    QVERIFY2(cause->why.find("context wait is 97.37 % of TTFT in the 3 slowest requests") != std::string::npos,
             cause->why.c_str());
    QVERIFY(!waits.item("gpu-context-wait")->caused_by);
    Diagnosis prefill = run(30);
    QCOMPARE(prefill.item("ttft-tail")->verdict, Verdict::Fail);
    QCOMPARE(prefill.item("gpu-context-wait")->verdict, Verdict::Fail);
    QVERIFY(!prefill.item("ttft-tail")->caused_by);
  }

  // The same link from a live run, in the JSON a script reads and the text a person does.
  void diagnoseNamesTheCauseOfALiveTail() {
    test::EndpointFixture endpoint({"context-wait=200"}, 5, 1, 6);
    endpoint.start();
    QStringList args = {"diagnose", "--target", QString::fromStdString(endpoint.endpoint().url("anthro+lab")),
                        "--requests", "100", "--threshold", "ttft-tail=150"};
    Run json_run = wb(args + QStringList{"--format", "json"});
    QCOMPARE(json_run.code, 1);
    auto d = nlohmann::json::parse(json_run.out.toStdString());
    bool linked = false;
    for (const auto& f : d["findings"])
      if (f["id"] == "ttft-tail") linked = f.value("caused_by", nlohmann::json()).value("id", "") == "gpu-context-wait";
    QVERIFY2(linked, d["findings"].dump().c_str());
    for (const auto& item : d["checklist"])
      if (item["id"] == "ttft-tail") QVERIFY(item["caused_by"]["evidence"].get<std::string>().find("context wait is") == 0);
    Run text = wb(args);
    QVERIFY2(text.out.contains("caused by gpu-context-wait: context wait is"), qPrintable(text.out));
  }

  // Issue 41: a diagnosis in 简体中文 — `diagnose --lang zh_CN`'s text and the zh_CN report of
  // its result — has no English sentence in any item's reason, cause or remedy; the JSON keeps
  // its English evidence and adds the messages it was rendered from.
  void aChineseDiagnosisHasNoEnglishReason() {
    test::EndpointFixture endpoint({"context-wait=200"}, 5, 1, 6);
    endpoint.start();
    QTemporaryDir dir;
    const QString saved = dir.filePath("d.json");
    Run text = wb({"diagnose", "--target", QString::fromStdString(endpoint.endpoint().url("anthro+lab")), "--requests", "100",
                   "--threshold", "ttft-tail=150", "--lang", "zh_CN", "--output", saved});
    QCOMPARE(text.code, 1);
    QVERIFY2(text.out.contains(QString::fromUtf8("原因 gpu-context-wait：")), qPrintable(text.out));
    int items = 0, warnings = 0;
    for (const QString& line : text.out.split('\n')) {
      // The run's own warnings too: no HTTP baseline was given for the UTF-8 pair.
      const bool warning = line.startsWith(QString::fromUtf8("警告："));
      warnings += warning;
      items += !warning && !line.startsWith(' ') && !line.isEmpty();
      const std::string english = test::english_run(line.toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + line));
    }
    QCOMPARE(items, 18);
    QVERIFY2(warnings >= 1, qPrintable(text.out));
    // Its stages on stderr too, the workload's progress among them.
    const QStringList stages = text.err.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(text.err.contains(QString::fromUtf8("diagnose: 实时：正在连接 ")), qPrintable(text.err));
    QVERIFY2(text.err.contains(QString::fromUtf8("diagnose: 正在评估 18 项")), qPrintable(text.err));
    for (const QString& line : stages) {
      const std::string english = test::english_run(line.toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + line));
    }

    auto doc = nlohmann::json::parse(read_file(saved.toStdString(), file_limit::kResult).value());
    for (const auto& item : doc["checklist"]) {
      QVERIFY(!item["evidence_messages"].empty());
      QCOMPARE(render(messages_from_json(item["evidence_messages"])), item["evidence"].get<std::string>());
    }
    QCOMPARE(doc["warning_messages"].size(), doc["warnings"].size());
    for (std::size_t i = 0; i < doc["warnings"].size(); ++i)
      QCOMPARE(render(messages_from_json(doc["warning_messages"][i])), doc["warnings"][i].get<std::string>());

    for (const char* format : {"md", "html"}) {
      const QString out = dir.filePath(QString("d.") + format);
      Run report = wb({"report", "--lang", "zh_CN", "--to", format, saved, "--output", out});
      QVERIFY2(report.code == 0, qPrintable(report.err));
      QString rendered = QString::fromStdString(read_file(out.toStdString(), file_limit::kResult).value());
      rendered.remove(QRegularExpression("<[^>]*>"));  // HTML: its text alone
      int evidence = 0;
      for (const QString& line : rendered.split('\n')) {
        // The summary's flagged items and each item's evidence, cause and statistic.
        bool item_text = line.contains(QString::fromUtf8("证据")) || line.contains(QString::fromUtf8(" — ")) ||
                         line.contains(QString::fromUtf8("统计量")) || line.contains(QString::fromUtf8("原因")) ||
                         line.contains("utf8-mismatch");  // the warning
        if (!item_text) continue;
        ++evidence;
        const std::string english = test::english_run(line.toStdString());
        QVERIFY2(english.empty(), qPrintable(QString(format) + ": " + QString::fromStdString(english) + " in: " + line));
      }
      QVERIFY2(evidence >= 18, qPrintable(rendered));
    }
  }

  // Every message of the catalogue (core's and the formats') has its English and its 简体中文,
  // with the same placeholders; "translated" alone takes each language's own argument.
  void everyMessageHasBothLanguages() {
    std::vector<MessageTemplate> all = message_catalogue();
    QVERIFY(all.size() > 150);
    for (const auto& t : all) {
      QVERIFY2(*t.en && *t.zh_CN, t.id);
      if (std::string(t.id) == "translated") continue;
      auto en = message_placeholders(t.en), zh = message_placeholders(t.zh_CN);
      std::sort(en.begin(), en.end());
      std::sort(zh.begin(), zh.end());
      QVERIFY2(en == zh, t.id);
      if (std::string(t.id).rfind("unit.", 0) == 0 || std::string(t.id) == "plain") continue;
      const std::string english = test::english_run(render(Message(t.id), "zh_CN"));
      QVERIFY2(english.empty(), (std::string(t.id) + ": " + english).c_str());
    }
  }

  void powersaveGovernorWarnsWithItsRemedy() {
    QTemporaryDir dir;
    fake_tree(dir.path().toStdString(), "powersave", 0);
    Observations o;
    o.system = read_system_state(probe_config(dir.path().toStdString()));
    QCOMPARE(o.system.governors, (std::vector<std::string>{"powersave", "powersave"}));
    QCOMPARE(*o.system.cpu_mhz, 2400.0);
    QCOMPARE(*o.system.rmem_max, std::uint64_t{212992});
    Diagnosis d = evaluate(builtin_latency_checklist(), o);
    QCOMPARE(d.item("frame-decode-time")->verdict, Verdict::Warn);
    QVERIFY(d.item("frame-decode-time")->reason.find("powersave on 2 of 2 CPUs") != std::string::npos);
    QVERIFY(diagnosis_text(d, builtin_latency_checklist()).find("remedy: Check the CPU frequency governor") != std::string::npos);
    fake_tree(dir.path().toStdString(), "performance", 0);
    Observations fast;
    fast.system = read_system_state(probe_config(dir.path().toStdString()));
    QCOMPARE(evaluate(builtin_latency_checklist(), fast).item("frame-decode-time")->verdict, Verdict::Pass);
  }

  void risingNicDropsFail() {
    QTemporaryDir dir;
    std::filesystem::path root = dir.path().toStdString();
    fake_tree(root, "performance", 1000);
    Observations o;
    o.system = read_system_state(probe_config(root));
    QCOMPARE(o.system.nic.size(), std::size_t{1});
    QCOMPARE(o.system.nic.front().drops, std::uint64_t{1000});
    QCOMPARE(evaluate_item(*builtin_latency_checklist().item("nic-drops"), o).verdict, Verdict::Inconclusive);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    fake_tree(root, "performance", 1000);  // flat: no drops in between
    add_nic_reading(o.system, probe_config(root));
    QCOMPARE(evaluate_item(*builtin_latency_checklist().item("nic-drops"), o).verdict, Verdict::Pass);
    fake_tree(root, "performance", 1000 + 1000000);  // a million more within seconds
    add_nic_reading(o.system, probe_config(root));
    ItemResult r = evaluate_item(*builtin_latency_checklist().item("nic-drops"), o);
    QCOMPARE(r.verdict, Verdict::Fail);
    QVERIFY(*r.statistic > 100);
  }

  // The whole command on a fake tree whose drop counter rises while it runs.
  void diagnoseSystemOnAFakeTree() {
    QTemporaryDir dir;
    std::filesystem::path root = dir.path().toStdString();
    fake_tree(root, "performance", 0);
    QProcess p;
    p.start(ANTHRO_WB, {"diagnose", "--system", "--sysfs-root", QString::fromStdString((root / "sys").string()),
                        "--procfs-root", QString::fromStdString((root / "proc").string()), "--format", "json"});
    QVERIFY(p.waitForStarted());
    // Between its two readings, a second apart: the first follows this progress line (not a
    // fixed time after the start, which a slow sanitized start-up overtakes).
    p.setReadChannel(QProcess::StandardError);
    QByteArray err;
    while (!err.contains("system: reading") && p.waitForReadyRead(30000)) err += p.readAllStandardError();
    QVERIFY2(err.contains("system: reading"), err.constData());
    QTest::qWait(500);
    write(root / "sys/class/net/eth0/statistics/rx_missed_errors", "50000");
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 1);
    auto doc = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
    QCOMPARE(doc["kind"], "diagnosis");
    for (const auto& item : doc["checklist"])
      if (item["id"] == "nic-drops") QCOMPARE(item["verdict"], "fail");
      else if (item["id"] == "alpn" || item["id"] == "frame-decode-time") QCOMPARE(item["verdict"], "pass");
      else QCOMPARE(item["verdict"], "inconclusive");
  }

  void badInputIsRefusedClearly() {
    Run threshold = wb({"diagnose", "--system", "--threshold", "no-such-item=3"});
    QCOMPARE(threshold.code, 2);
    QVERIFY2(threshold.err.contains("--threshold \"no-such-item=3\": no item \"no-such-item\""), qPrintable(threshold.err));
    QTemporaryDir dir;
    std::string team = dir.filePath("team.json").toStdString();
    auto doc = nlohmann::json::parse(read_file(std::string(ANTHRO_SOURCE_DIR) + "/resources/checklists/latency.json", file_limit::kChecklist).value());
    doc["items"][0].erase("title");
    QVERIFY(write_file_atomic(team, doc.dump()).ok());
    Run checklist = wb({"diagnose", "--system", "--checklist", QString::fromStdString(team)});
    QCOMPARE(checklist.code, 2);
    QVERIFY2(checklist.err.contains(QString::fromStdString(team) + ": item 1 (\"alpn\"): field title: missing"),
             qPrintable(checklist.err));
    Run stray = wb({"diagnose", "--system", "--cancel-rate", "0.5"});
    QCOMPARE(stray.code, 2);
    QVERIFY2(stray.err.contains("--cancel-rate shapes the live run: it needs --target URL"), qPrintable(stray.err));
    Run none = wb({"diagnose"});
    QCOMPARE(none.code, 2);
    QVERIFY(none.err.contains("give a --target URL, a capture file, or --system"));
    Run nokeys = wb({"diagnose", QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap"});
    QCOMPARE(nokeys.code, 2);
    QVERIFY2(nokeys.err.contains("no connection could be decrypted") && nokeys.err.contains("--keylog FILE"),
             qPrintable(nokeys.err));
    Run garbage = wb({"diagnose", dir.filePath("team.json")});
    QCOMPARE(garbage.code, 2);
  }

  // A stream's packets are numbered as Wireshark numbers frames: checked against tshark.
  void streamPacketsAreWiresharkFrameNumbers() {
    const std::string pcap = std::string(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap";
    auto a = analyze_capture(pcap, {{}, {std::string(ANTHRO_VECTORS_DIR) + "/server-static.pem"}});
    QVERIFY(a.ok());
    const RequestResult& stream = a->connections.at(0).streams.at(0);
    QVERIFY(stream.packets);
    QProcess tshark;
    tshark.start("tshark", {"-r", QString::fromStdString(pcap), "-T", "fields", "-e", "frame.number", "-e",
                            "tcp.dstport", "-e", "tcp.len"});
    QVERIFY(tshark.waitForFinished(30000));
    std::vector<std::uint64_t> client, server;  // packets with payload, by direction
    for (const QByteArray& line : tshark.readAllStandardOutput().split('\n')) {
      auto f = line.split('\t');
      if (f.size() < 3 || f[2].toInt() == 0) continue;
      (f[1] == "7080" ? client : server).push_back(f[0].toULongLong());
    }
    QCOMPARE(client.size(), std::size_t{2});  // the preface, then the REQUEST
    QCOMPARE(stream.packets->first, client[1]);
    QCOMPARE(stream.packets->second, server.back());  // the RESPONSE
  }

  void vectorCaptureDiagnosedWithItsServerKey() {
    Run r = wb({"diagnose", QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap", "--server-key",
                QString(ANTHRO_VECTORS_DIR) + "/server-static.pem", "--format", "json", "--quiet"});
    QVERIFY2(r.code == 0 || r.code == 1, qPrintable(r.err));
    auto doc = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(doc["sources"], nlohmann::json::array({"capture"}));
    QCOMPARE(doc["connections"].size(), std::size_t{1});
    for (const auto& item : doc["checklist"]) {
      QVERIFY(item.contains("remedy") && item.contains("n") && item.contains("threshold"));
      if (item["id"] == "frame-decode-time" || item["id"] == "nic-drops") QCOMPARE(item["verdict"], "inconclusive");
    }
  }
};

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "test_diagnosis.moc"
