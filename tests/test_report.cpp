// The report model and the text renderers (core, no Qt drawing): every result kind builds,
// verdicts and remedies land where a reader looks, secrets are redacted by parsing wherever they
// hide, big results are capped, and bad result files are refused by name.
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <set>

#include "affinity/serve.h"
#include "diagnosis/diagnose.h"
#include "endpoint_fixture.h"
#include "crypto/hash.h"
#include "report/redact.h"
#include "report/report.h"
#include "rollout/rollout.h"
#include "session/bench.h"
#include "session/merge.h"

using namespace anthro;
using anthro::test::EndpointFixture;
using nlohmann::json;

namespace {

// Secrets as they would leak: an API key, a TLS key log line and an anthro-v1 one, a PEM key.
const std::string kApiKey = "sk-ant-api03-Zq7xW9vB2nL4kP8sR1tY6uH3jM5cF0dG";
const std::string kTlsSecret = "6f1c0a7e93b4d2c58e0f7a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b";
const std::string kAnthroSecret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const std::string kPemBody = "MC4CAQAwBQYDK2VuBCIEIJDSx1aXk2Lc9vQm3Pb5tQe7fWz1sR4nY8oA6uE0kH2j";

std::string pem() { return "-----BEGIN PRIVATE KEY-----\n" + kPemBody + "\n-----END PRIVATE KEY-----\n"; }

std::vector<std::string> secrets() { return {kApiKey, kTlsSecret, kAnthroSecret, kPemBody}; }

// Plants the secrets where hostile or careless input puts them.
void plant_secrets(json& d) {
  d["warnings"].push_back("SSLKEYLOGFILE said: CLIENT_TRAFFIC_SECRET_0 " + std::string(64, 'a') + " " + kTlsSecret);
  d["warnings"].push_back("ANTHRO_V1 0123456789abcdef " + kAnthroSecret);
  d["warnings"].push_back("proxy answered 401 to Authorization: Bearer " + kApiKey);
  d["warnings"].push_back("server key:\n" + pem());
  d["request"] = {{"model", "m"}, {"api_key", kApiKey}, {"headers", {{"x-api-key", kApiKey}}}};
}

std::string no_charts(const ReportChart&) { return "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"; }

Diagnosis live_diagnosis(EndpointFixture& e) {
  DiagnoseConfig c;
  LiveWorkloadConfig live;
  live.session = e.session("anthro");
  live.requests = 30;
  c.live = live;
  auto d = run_diagnosis(c);
  if (!d) qFatal("diagnose: %s", d.error().detail.c_str());
  return *d;
}

}  // namespace

class TestReport : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    endpoint_ = std::make_unique<EndpointFixture>(std::vector<std::string>{"context-wait=30"});
    endpoint_->start();
    diagnosis_ = diagnosis_json(live_diagnosis(*endpoint_), "en", &builtin_latency_checklist());
  }

  // The diagnosis report: every item with its verdict, the failing one's remedy, a summary that
  // opens with the worst, and the app's four latency charts over the run.
  void diagnosisReport() {
    auto doc = build_report(diagnosis_, {.origin = "d.json"});
    QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().detail.c_str());
    QCOMPARE(doc->kind, ResultKind::Diagnosis);
    QCOMPARE(doc->verdict, std::optional<Verdict>(Verdict::Fail));
    QVERIFY2(doc->summary.at(1).rfind("fail — ", 0) == 0, doc->summary.at(1).c_str());  // after the tally, the worst
    QVERIFY(doc->summary.at(1).find("gpu-context-wait") != std::string::npos);
    const ReportSection& checklist = doc->sections.at(0);
    QCOMPARE(checklist.children.size(), builtin_latency_checklist().items.size());
    bool remedy = false;
    for (const auto& item : checklist.children)
      if (item.heading.find("(`gpu-context-wait`)") != std::string::npos) {
        QCOMPARE(item.verdict, std::optional<Verdict>(Verdict::Fail));
        for (const auto& [label, value] : item.facts)
          remedy |= label == "Remedy" && value == builtin_latency_checklist().item("gpu-context-wait")->remedy.en;
        QVERIFY(!item.charts.empty());  // its distribution with the threshold lines
      }
    QVERIFY(remedy);
    std::set<ChartKind> kinds;
    for (const auto& c : doc->charts) kinds.insert(c.kind);
    for (ChartKind k : {ChartKind::TtftOverTime, ChartKind::TtftCdf, ChartKind::TokenRate, ChartKind::ItlHistogram})
      QVERIFY2(kinds.count(k), to_string(k));
    for (const auto& c : doc->charts)
      if (c.kind == ChartKind::TtftOverTime) QCOMPARE(c.series.at(0).requests.size(), std::size_t{30});  // probes left out

    std::string html = report_html(*doc, no_charts);
    for (const char* v : {"pass", "fail", "inconclusive"}) QVERIFY(html.find(std::string("class=\"chip ") + v) != std::string::npos);
    std::size_t figures = 0;
    for (std::size_t at = 0; (at = html.find("<figure", at)) != std::string::npos; ++at) ++figures;
    QCOMPARE(figures, doc->charts.size());
    // Ids, paths and the remedies' commands are code: <code> in HTML (and so monospaced, without
    // ligatures, in the PDF), code spans in Markdown.
    for (const char* code : {"<code>gpu-context-wait</code>", "<code>d.json</code>"})
      QVERIFY2(html.find(code) != std::string::npos, code);
    std::string md = report_markdown(*doc, [](const ReportChart& c) { return "charts/" + c.id + ".png"; });
    QVERIFY(md.find("![") != std::string::npos && md.find("(charts/1-") != std::string::npos);
    QVERIFY(md.find("(`gpu-context-wait`)") != std::string::npos);
    auto j = json::parse(report_json(*doc));
    QCOMPARE(j["kind"], "report");
    QCOMPARE(j["result"]["kind"], "diagnosis");
    QCOMPARE(j["report"]["verdict"], "fail");
  }

  // A finding another explains says so, linked by id, in its section and its summary line.
  void causeOfAFinding() {
    json d = json::parse(diagnosis_);
    for (auto& item : d["checklist"])
      if (item["id"] == "ttft-tail") {
        item["verdict"] = "fail";
        item["caused_by"] = {{"id", "gpu-context-wait"}, {"evidence", "context wait is 97 % of TTFT in the 2 slowest requests"}};
      }
    auto doc = build_report(d.dump(), {.origin = "d.json"});
    QVERIFY(doc.ok());
    bool fact = false;
    for (const auto& item : doc->sections.at(0).children)
      for (const auto& [label, value] : item.facts)
        if (label == "Caused by") {
          QVERIFY2(item.heading.find("(`ttft-tail`)") != std::string::npos, item.heading.c_str());
          QCOMPARE(value, std::string("`gpu-context-wait`: context wait is 97 % of TTFT in the 2 slowest requests"));
          fact = true;
        }
    QVERIFY(fact);
    bool summary = false;
    for (const auto& line : doc->summary)
      summary |= line.find("(`ttft-tail`)") != std::string::npos && line.find("(caused by `gpu-context-wait`)") != std::string::npos;
    QVERIFY(summary);
    QVERIFY(report_html(*doc, no_charts).find("caused by <code>gpu-context-wait</code>") != std::string::npos);
  }

  // Code spans as the builders write them (report_code) and as the checklists' remedies do,
  // read back whole by both renderers: a backtick inside one fences it with two, a lone
  // backtick is text, and nothing in a span is escaped or joined to a ligature.
  void codeSpans() {
    QCOMPARE(report_code("ring-buffer-stall"), std::string("`ring-buffer-stall`"));
    QCOMPARE(report_code("a`b"), std::string("``a`b``"));
    QCOMPARE(report_code("`x"), std::string("`` `x ``"));
    QCOMPARE(report_code(""), std::string());
    ReportDocument doc;
    ReportSection s;
    s.heading = "Stall (" + report_code("ring-buffer-stall") + ")";
    s.paragraphs = {"Run " + report_code("a`b <&>") + " then `ethtool -G`; it's 5` long"};
    doc.sections.push_back(s);
    const std::string html = report_html(doc, no_charts);
    for (const char* want : {"Stall (<code>ring-buffer-stall</code>)", "<p>Run <code>a`b &lt;&amp;&gt;</code> then <code>ethtool -G</code>; it&#39;s 5` long</p>"})
      QVERIFY2(html.find(want) != std::string::npos, want);
    const std::string md = report_markdown(doc, {});
    for (const char* want : {"Stall (`ring-buffer-stall`)", "Run ``a`b <&>`` then `ethtool -G`; it's 5\\` long"})
      QVERIFY2(md.find(want) != std::string::npos, want);
  }

  // Secrets planted in a result never reach any output, and the report says what it removed.
  // A session-affinity diagnosis reports under its own checklist: its title, its items' titles
  // and remedies (in the report's language), not the latency checklist's.
  void affinityDiagnosisReport() {
    // The fixture points XDG_DATA_HOME at its own directory: the shared endpoint's credentials
    // must be found again afterwards.
    auto restore = qScopeGuard([saved = qgetenv("XDG_DATA_HOME")] { qputenv("XDG_DATA_HOME", saved); });
    EndpointFixture e({"token-count-estimate"});
    emulate_affinity(e.config()).slot_count = 256;
    e.start();
    DiagnoseConfig c;
    c.checklist = *builtin_checklist("session-affinity");
    LiveWorkloadConfig live;
    live.session = e.session("http", "/v1/messages");
    live.requests = 24;
    c.live = live;
    auto d = run_diagnosis(c);
    QVERIFY2(d.ok(), d.ok() ? "" : d.error().detail.c_str());
    const Checklist& affinity = *builtin_checklist("session-affinity");
    for (const char* lang : {"en", "zh_CN"}) {
      auto doc = build_report(diagnosis_json(*d, lang, &affinity), {.origin = "d.json", .lang = lang});
      QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().detail.c_str());
      QCOMPARE(doc->title, affinity.title.in(lang));
      const ReportSection& items = doc->sections.at(0);
      QCOMPARE(items.children.size(), affinity.items.size());
      const ChecklistItem& misparse = *affinity.item("sa-token-count-misparse");
      bool found = false;
      for (const auto& item : items.children)
        if (item.heading == misparse.title.in(lang) + " (`sa-token-count-misparse`)") {
          found = true;
          QCOMPARE(item.verdict, std::optional<Verdict>(Verdict::Warn));  // the item's threshold verdict
          bool remedy = false;
          for (const auto& [label, value] : item.facts) remedy |= label == "Remedy" && value == misparse.remedy.in(lang);
          QVERIFY(remedy);
        }
      QVERIFY2(found, lang);
    }
  }

  void secretsAreRedacted() {
    json d = json::parse(diagnosis_);
    plant_secrets(d);
    auto doc = build_report(d.dump(), {.origin = "d.json"});
    QVERIFY(doc.ok());
    for (const std::string& out : {report_html(*doc, no_charts), report_markdown(*doc, {}), report_json(*doc)})
      for (const auto& secret : secrets()) QVERIFY2(out.find(secret) == std::string::npos, secret.c_str());
    std::string log;
    for (const auto& r : doc->redactions) log += r + "\n";
    for (const char* what : {"/request/api_key: api_key", "/request/headers/x-api-key", "key log secret", "bearer token",
                             "private key"})
      QVERIFY2(log.find(what) != std::string::npos, qPrintable(QString("%1 not in:\n%2").arg(what, QString::fromStdString(log))));
    // Redaction keeps what is not secret: the key log's label and client random stay.
    QVERIFY(report_json(*doc).find("CLIENT_TRAFFIC_SECRET_0 " + std::string(64, 'a') + " [redacted]") != std::string::npos);
  }

  // API keys wherever they sit in a string, and secret members of JSON carried in a string;
  // ordinary words holding "sk-" untouched.
  void redactTextFindsKeysAnywhere() {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"key=" + kApiKey, "key=[redacted]"},
        {"export ANTHROPIC_API_KEY=\"" + kApiKey + "\"", "export ANTHROPIC_API_KEY=\"[redacted]\""},
        {"failed (" + kApiKey + ").", "failed ([redacted])."},
        {"'" + kApiKey + "'", "'[redacted]'"},
        {"token:" + kApiKey + ",next", "token:[redacted],next"},
        {"body {\"api_key\": \"plain-secret\", \"model\": \"m\"}", "body {\"api_key\": \"[redacted]\", \"model\": \"m\"}"},
        {"{\\\"x-api-key\\\":\\\"esc-secret\\\"}", "{\\\"x-api-key\\\":\\\"[redacted]\\\"}"},
        {"GET /v1?api_key=query-secret&x=1", "GET /v1?api_key=[redacted]&x=1"},
        {"sent Authorization: Bearer tok-secret-123 upstream", "sent Authorization: Bearer [redacted] upstream"},
    };
    for (const auto& [text, want] : cases) {
      std::vector<std::string> what;
      QCOMPARE(QString::fromStdString(redact_text(text, what)), QString::fromStdString(want));
      QVERIFY2(!what.empty(), text.c_str());
    }
    for (const std::string ordinary : {"the task-ant colony", "a risk-free plan", "desk-ant-files-2024-archive-folder",
                                       "max_tokens=64", "ratio a:b = 3", "api_key_env: REPORT_KEY"}) {
      std::vector<std::string> what;
      QCOMPARE(QString::fromStdString(redact_text(ordinary, what)), QString::fromStdString(ordinary));
      QVERIFY2(what.empty(), ordinary.c_str());
    }
  }

  // --redact-prompts: texts become their length and hash; timings stay.
  void promptsRedactedOnRequest() {
    auto doc = build_report(diagnosis_, {.origin = "d.json", .redact_prompts = true});
    QVERIFY(doc.ok());
    json result = json::parse(doc->result_json);
    const json& stream = result["connections"][0]["streams"][0];
    QVERIFY2(stream["text"].get<std::string>().rfind("[", 0) == 0, stream["text"].dump().c_str());
    QVERIFY(stream["text"].get<std::string>().find("bytes, sha256 ") != std::string::npos);
    QVERIFY(stream["ttft_ms"].is_number());
    QVERIFY(!doc->redactions.empty());
  }

  void rolloutReport() {
    RolloutConfig c;
    c.plan = *find_plan("anthro-v1-five-stages");
    c.session.insecure = true;
    c.baseline = endpoint_->endpoint().url("https") + "/v1/messages";
    c.candidate = endpoint_->endpoint().url("anthro");
    c.first_stage = c.last_stage = 3;
    c.requests_per_stage = 40;
    auto r = run_rollout(c);
    QVERIFY(r.ok());
    auto doc = build_report(rollout_json(*r), {.origin = "r.json"});
    QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().detail.c_str());
    QCOMPARE(doc->verdict, std::optional<Verdict>(Verdict::Fail));  // context-wait=30 fails gpu-context-wait
    const ReportSection& stage = doc->sections.at(0);
    QVERIFY(stage.heading.find("region") != std::string::npos);
    QCOMPARE(stage.tables.at(0).rows.size(), std::size_t{2});
    bool forest = false;
    for (std::size_t i : stage.charts) forest |= doc->charts[i].kind == ChartKind::GateForest;
    QVERIFY(forest);
  }

  void benchAndSessionReports() {
    BenchConfig b;
    b.session = endpoint_->session("anthro");
    b.concurrency = 2;
    b.requests = 10;
    auto bench = run_bench(b);
    QVERIFY(bench.ok());
    auto doc = build_report(bench_json(*bench), {.origin = "b.json"});
    QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().detail.c_str());
    QCOMPARE(doc->kind, ResultKind::Bench);
    QCOMPARE(doc->sections.at(0).tables.at(0).rows.at(0).at(0), std::string("ttft_ms"));
    auto session = run_session(endpoint_->session("anthro"));
    QVERIFY(session.ok());
    doc = build_report(session_json(*session), {.origin = "s.json"});
    QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().detail.c_str());
    QCOMPARE(doc->kind, ResultKind::Session);
    QVERIFY(!doc->charts.empty());

    // Two sessions merged, the later given first: time zero is the earliest request sent, so no
    // request is drawn before it.
    auto later = run_session(endpoint_->session("anthro"));
    QVERIFY(later.ok());
    SessionResult merged = merge_sessions({{"later.json", *later}, {"s.json", *session}});
    doc = build_report(session_json(merged), {.origin = "m.json"});
    QVERIFY(doc.ok());
    const ReportChart& over_time = doc->charts.at(0);
    QCOMPARE(over_time.kind, ChartKind::TtftOverTime);
    QCOMPARE(over_time.series.at(0).requests.size(), std::size_t{2});
    for (const auto& r : over_time.series[0].requests) QVERIFY2(r.t_s >= 0, std::to_string(r.t_s).c_str());
  }

  // A result with more connections than a table shows: the rest are counted, not dropped silently.
  void bigResultsAreCapped() {
    json d = json::parse(diagnosis_);
    json conn = d["connections"][0];
    d["connections"] = json::array();
    for (int i = 0; i < 450; ++i) d["connections"].push_back(conn);
    auto doc = build_report(d.dump(), {.origin = "d.json", .max_table_rows = 400});
    QVERIFY(doc.ok());
    const ReportSection* connections = nullptr;
    for (const auto& s : doc->sections)
      if (s.heading == "Connections") connections = &s;
    QVERIFY(connections);
    QCOMPARE(connections->children.size(), std::size_t{100});
    QCOMPARE(connections->paragraphs.at(0), std::string("350 more rows in the JSON"));
  }

  void badResultsAreNamed() {
    auto err = [](const std::string& text) {
      auto doc = build_report(text, {.origin = "x.json"});
      return doc.ok() ? std::string() : doc.error().detail;
    };
    QVERIFY2(err("{\"kind\": \"diagnosis\"").rfind("x.json: not valid JSON at byte 20: ", 0) == 0,
             err("{\"kind\": \"diagnosis\"").c_str());
    std::string deep(100000, '[');
    QCOMPARE(err(deep), std::string("x.json: nested deeper than 64 levels at byte 64"));
    QVERIFY(err("[1]").rfind("x.json: expected a JSON object", 0) == 0);
    QVERIFY(err("{\"kind\": \"pcap\", \"schema_version\": 1}").rfind("x.json: field kind: ", 0) == 0);
    QVERIFY(err("{\"kind\": \"diagnosis\", \"schema_version\": 7}").rfind("x.json: field schema_version: expected 1", 0) == 0);
    QVERIFY(err("{\"kind\": \"diagnosis\"}").find("schema_version") != std::string::npos);
    // Wrong types deep inside are refused or skipped, never a crash.
    QVERIFY(build_report("{\"kind\": \"diagnosis\", \"schema_version\": 1, \"checklist\": [{\"id\": 5, \"n\": \"x\"}], "
                         "\"connections\": [{\"streams\": 3}, 7]}",
                         {.origin = "x.json"})
                .ok());
    QVERIFY(build_report("{\"kind\": \"rollout\", \"schema_version\": 1, \"stages\": [{\"gates\": [{\"interval\": 4}]}]}",
                         {.origin = "x.json"})
                .ok());
  }

  // The environment names the capture a result came from with its SHA-256, read from the file.
  void environmentHashesTheCapture() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("c.pcap").toStdString();
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("abc");
    f.close();
    json d = {{"kind", "analysis"}, {"schema_version", 1}, {"file", path}, {"connections", json::array()}};
    auto doc = build_report(d.dump(), {.origin = "a.json"});
    QVERIFY(doc.ok());
    std::map<std::string, std::string> env(doc->environment.begin(), doc->environment.end());
    QCOMPARE(env["Capture file"], "`" + path + "`");  // code, as paths and hashes are
    QCOMPARE(env["Capture SHA-256"], std::string("`ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad`"));  // FIPS 180-2, B.1
    d["file"] = path + ".gone";
    auto gone = build_report(d.dump(), {.origin = "a.json"});
    QVERIFY(gone.ok());
    env = std::map<std::string, std::string>(gone->environment.begin(), gone->environment.end());
    QCOMPARE(env["Capture SHA-256"], std::string("not readable here"));
  }

  void redactTextKeepsTheRest() {
    std::vector<std::string> what;
    QCOMPARE(redact_text("plain words, no secret: 1234", what), std::string("plain words, no secret: 1234"));
    QVERIFY(what.empty());
    QCOMPARE(redact_text("Authorization: Bearer abc", what), std::string("Authorization: [redacted]"));
    QCOMPARE(sha256_hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));  // FIPS 180-2, B.1
  }

 private:
  std::unique_ptr<EndpointFixture> endpoint_;
  std::string diagnosis_;
};

QTEST_GUILESS_MAIN(TestReport)
#include "test_report.moc"
