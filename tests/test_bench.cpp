// The bench against the local endpoint: closed and open loop, retries, records, and its results
// read back and merged (cli.md `merge`).
#include <QFloat16>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <set>

#include <nlohmann/json.hpp>

#include "endpoint_fixture.h"
#include "metrics/request_json.h"
#include "session/bench.h"
#include "session/merge.h"
#include "util/files.h"

using namespace anthro;
using namespace anthro::test;
using nlohmann::json;

namespace {

// One half of a bench result, cut by this test's own rule: the records of the connections `keep`
// says, with their counts recounted here (a record's error by its code, else "connection").
json half_of(const json& whole, bool (*keep)(unsigned connection)) {
  json half = whole;
  half["records"] = json::array();
  half["errors"] = json::object();
  std::set<unsigned> connections;
  for (const auto& rec : whole["records"]) {
    if (!keep(rec["connection"].get<unsigned>())) continue;
    half["records"].push_back(rec);
    connections.insert(rec["connection"].get<unsigned>());
    if (rec["error"].is_null()) continue;
    std::string cause = rec["error_code"].is_null() ? "connection" : std::to_string(rec["error_code"].get<int>());
    half["errors"][cause] = half["errors"].value(cause, 0) + 1;
  }
  half["requests"] = half["records"].size();
  half["connections"] = connections.size();
  return half;
}

}  // namespace

class TestBench : public QObject {
  Q_OBJECT
 private slots:
  void closedLoopUsesOneConnectionPerWorker() {
    EndpointFixture f;
    f.start();
    BenchConfig b;
    b.session = f.session("anthro");
    b.concurrency = 4;
    b.requests = 40;
    b.slo = *parse_slo("ttft:1000");
    auto r = run_bench(b);
    QVERIFY(r.ok());
    QCOMPARE(r->requests, std::uint64_t{40});
    QCOMPARE(r->connections, std::uint64_t{4});
    QCOMPARE(f.endpoint().counters().connections, std::uint64_t{4});
    QCOMPARE(r->ttft_ms.n, std::size_t{40});
    QCOMPARE(r->itl_ms.n, std::size_t{40 * 19});
    QVERIFY(r->errors.empty());
    QVERIFY(std::abs(r->goodput_per_s * r->duration_s - 40) < 1e-6);
    QVERIFY(r->tokens_per_s > 0);
  }

  void aStopFlagEndsTheLoadEarly() {
    EndpointFixture f;
    f.start();
    BenchConfig b;
    b.session = f.session("anthro");
    b.concurrency = 2;
    b.requests = 100000;
    std::atomic<bool> stop{false};
    b.stop = &stop;
    std::uint64_t seen = 0;
    b.on_progress = [&](const BenchProgress&) {
      if (++seen == 2) stop = true;  // after about two seconds
    };
    auto r = run_bench(b);
    QVERIFY(r.ok());
    QVERIFY(r->requests > 0);
    QVERIFY(r->requests < 100000);
    QCOMPARE(r->records.size(), std::size_t(r->requests));  // those in flight finished and count
    QVERIFY(r->errors.empty());
  }

  void openLoopDoesNotWaitForSlowRequests() {
    EndpointFixture f({}, 300, 5, 20);  // each request takes ~400 ms
    f.start();
    BenchConfig b;
    b.session = f.session("http", "/v1/messages");
    b.rate = 40;
    b.requests = 20;
    auto r = run_bench(b);
    QVERIFY(r.ok());
    QCOMPARE(r->requests, std::uint64_t{20});
    // Arrivals every 25 ms while each request lasts ~400 ms: many connections at once.
    QVERIFY2(r->connections >= 8, std::to_string(r->connections).c_str());
    double last_start = 0;
    for (const auto& rec : r->records) last_start = std::max(last_start, rec.start_s);
    QVERIFY2(last_start < 1.0, std::to_string(last_start).c_str());
  }

  void retriesHonourRetryAfterUnlessNaive() {
    EndpointFixture f({"overload=0.5"});
    f.start();
    for (bool naive : {false, true}) {
      BenchConfig b;
      b.session = f.session("anthro");
      b.concurrency = 1;
      b.requests = 30;
      b.retry_naive = naive;
      auto r = run_bench(b);
      QVERIFY(r.ok());
      int checked = 0;
      for (std::size_t i = 1; i < r->records.size(); ++i) {
        const auto& prev = r->records[i - 1];
        if (!r->records[i].retry || prev.result.error_code != 429) continue;
        double gap_ms = (r->records[i].start_s - prev.start_s) * 1000 - *prev.result.figures.e2e_ms;
        if (naive) QVERIFY2(gap_ms < *prev.result.retry_after_ms, std::to_string(gap_ms).c_str());
        else QVERIFY2(gap_ms >= *prev.result.retry_after_ms - 1, std::to_string(gap_ms).c_str());
        ++checked;
      }
      QVERIFY(checked > 0);
      QVERIFY(r->errors.at("429") > 0);
    }
  }

  void recordsAreWrittenAsJsonlOrCsv() {
    EndpointFixture f;
    f.start();
    BenchConfig b;
    b.session = f.session("anthro+lab");
    b.concurrency = 2;
    b.requests = 6;
    b.cancel_rate = 1;
    auto r = run_bench(b);
    QVERIFY(r.ok());
    for (const auto& rec : r->records) {
      QVERIFY(rec.cancel_requested);
      QCOMPARE(*rec.result.stop_reason, StopReason::Cancelled);
    }
    QTemporaryDir dir;
    std::string jsonl = dir.filePath("r.jsonl").toStdString(), csv = dir.filePath("r.csv").toStdString();
    QVERIFY(write_bench_records(*r, jsonl).ok());
    QVERIFY(write_bench_records(*r, csv).ok());
    auto lines = QString::fromStdString(*read_file(jsonl, file_limit::kResult)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 6);
    QVERIFY(QJsonDocument::fromJson(lines[0].toUtf8()).object().contains("ttft_ms"));
    auto rows = QString::fromStdString(*read_file(csv, file_limit::kResult)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 7);
    QVERIFY(rows[0].contains("ttft_ms"));
    QVERIFY(!write_bench_records(*r, dir.filePath("no/such/dir/r.csv").toStdString()).ok());
  }

  // A result read back writes the same document again: every record member, the formats'
  // parts the reader does not know kept as read.
  void resultsReadBackAsWritten() {
    EndpointFixture f({"overload=0.2"});
    f.start();
    BenchConfig b;
    b.session = f.session("anthro+lab");
    b.concurrency = 2;
    b.requests = 12;
    b.slo = *parse_slo("ttft:15,e2e:100");
    auto r = run_bench(b);
    QVERIFY(r.ok());
    const json written = json::parse(bench_json(*r));
    auto read = bench_from_json(written, "w.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().detail.c_str());
    QVERIFY2(json::parse(bench_json(*read)) == written, bench_json(*read).c_str());
    json record = written["records"][0];
    record["token_stream"] = {{"ids", {1, 2, 3}}};  // a format's part, as a format would write it
    auto back = request_from_json(record, {.text = false, .itl_samples = true});
    QVERIFY(back.ok());
    QCOMPARE(request_json(*back, {.text = false, .itl_samples = true}), record);
    record["ttft_ms"] = "fast";
    auto refused = request_from_json(record, {.text = false, .itl_samples = true});
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().detail.find("ttft_ms") != std::string::npos, refused.error().detail.c_str());
  }

  // One run's records cut in two files by connection (this test's own cut) and merged: the
  // same counts, the same duration, throughput and goodput, the same quantiles (the same
  // samples); each record names its file.
  void mergedHalvesEqualTheWhole() {
    EndpointFixture f({"overload=0.15"});
    f.config().model.ttft = {20, 8};
    f.config().model.itl = {2, 1};
    f.start();
    BenchConfig b;
    b.session = f.session("anthro+lab");
    b.concurrency = 4;
    b.requests = 60;
    b.slo = *parse_slo("ttft:25");
    auto r = run_bench(b);
    QVERIFY(r.ok());
    const json whole = json::parse(bench_json(*r));
    QVERIFY(whole["errors"].contains("429"));
    QTemporaryDir dir;
    const std::string a = dir.filePath("even.json").toStdString(), c = dir.filePath("odd.json").toStdString();
    QVERIFY(write_file_atomic(a, half_of(whole, [](unsigned k) { return k % 2 == 0; }).dump()).ok());
    QVERIFY(write_file_atomic(c, half_of(whole, [](unsigned k) { return k % 2 == 1; }).dump()).ok());
    auto merged = merge_result_files({a, c});
    QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().detail.c_str());
    const json m = json::parse(merged->text());
    for (const char* key : {"requests", "connections", "errors", "duration_s", "tokens_per_s", "goodput_per_s", "target", "workload"})
      QVERIFY2(m[key] == whole[key], (std::string(key) + ": " + m[key].dump() + " vs " + whole[key].dump()).c_str());
    for (const char* figure : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
      const json &x = m["summary"][figure], &y = whole["summary"][figure];
      for (const char* q : {"n", "p50", "p90", "p95", "p99"}) QVERIFY2(x[q] == y[q], (std::string(figure) + " " + q).c_str());
      QVERIFY(std::abs(x["mean"].get<double>() - y["mean"].get<double>()) <= 1e-9 * y["mean"].get<double>());
    }
    std::map<std::string, std::size_t> per_worker;
    for (const auto& rec : m["records"]) ++per_worker[rec["worker"].get<std::string>()];
    QCOMPARE(per_worker[a] + per_worker[c], whole["records"].size());
    QVERIFY(per_worker[a] > 0 && per_worker[c] > 0);
    QCOMPARE(m["workers"].size(), std::size_t{2});
  }

  void badTargetsAreRefused() {
    BenchConfig b;
    b.session.target = "ftp://x";
    b.concurrency = 1;
    QVERIFY(!run_bench(b).ok());
    b.session.target = "anthro://127.0.0.1:1";
    b.concurrency = 0;
    QVERIFY(!run_bench(b).ok());  // neither closed nor open loop
    b.concurrency = 1;
    b.requests = 3;
    auto r = run_bench(b);  // nothing listens on port 1
    QVERIFY(r.ok());
    QCOMPARE(r->errors.at("connection"), std::uint64_t{3});
  }
};

QTEST_GUILESS_MAIN(TestBench)
#include "test_bench.moc"
