// The bench against the local endpoint: closed and open loop, retries, records.
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

#include "endpoint_fixture.h"
#include "session/bench.h"
#include "util/files.h"

using namespace anthro;
using namespace anthro::test;

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
    b.on_progress = [&](const std::string&) {
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
