// anthro-wb's figures out to Prometheus as a CI job sends them: bench, diagnose and rollout
// write node_exporter's textfile collector format (--metrics-file) and push to Debian's real
// Pushgateway (--pushgateway); both read back by Prometheus's own Python parser, never by ours.
#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "prometheus_parse.h"
#include "vectors.h"

using json = nlohmann::json;
using anthro::test::Endpoint;
using anthro::test::free_port;
using anthro::test::Run;
using anthro::test::run;

namespace {

QString vector_file(const char* name) { return QString::fromStdString(anthro::test::vectors_path(name)); }

// Debian's Prometheus Pushgateway on a port of its own, in memory; stopped with the object.
struct Pushgateway {
  QProcess process;
  QString url;
  bool start() {
    const QString address = QString("127.0.0.1:%1").arg(free_port());
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start("/usr/bin/prometheus-pushgateway", {"--web.listen-address=" + address});
    QByteArray log;
    while (!log.contains("Listening on") && process.waitForReadyRead(10000)) log += process.readAll();
    url = "http://" + address;
    return log.contains("Listening on");
  }
  std::string metrics() {
    QProcess curl;
    curl.start("curl", {"-sf", url + "/metrics"});
    curl.waitForFinished(10000);
    return curl.readAllStandardOutput().toStdString();
  }
  ~Pushgateway() {
    process.terminate();
    process.waitForFinished(5000);
  }
};

}  // namespace

class TestCliMetricsOut : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    endpoint_ = std::make_unique<Endpoint>(dir_.path(), QStringList{});
    QVERIFY(endpoint_->ready());
  }
  void cleanupTestCase() { endpoint_.reset(); }

  // One bench run's figures: its JSON, the textfile collector's file and a real Pushgateway's
  // /metrics (parsed by Prometheus's Python client) say the same; a second target is a group
  // of its own, so it does not replace the first.
  void benchWritesAndPushesPrometheusMetrics() {
    Pushgateway gateway;
    QVERIFY2(gateway.start(), "prometheus-pushgateway did not start (installer/deps.sh installs it)");
    const QString file = dir_.filePath("bench.prom");
    Run r = run({"bench", "--target", endpoint_->url("anthro"), "--concurrency", "2", "--requests", "6", "--format", "json",
                 "--metrics-file", file, "--pushgateway", gateway.url}, dir_.path());
    QVERIFY2(r.code == 0, r.err.constData());
    const json bench = json::parse(r.out.toStdString());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const json written = parse_prometheus(f.readAll().toStdString());
    QVERIFY2(written.is_array(), written.dump().c_str());
    const auto samples = prometheus_samples(written);
    auto value = [&](const std::string& name, std::map<std::string, std::string> labels = {}) {
      labels["path"] = "anthro-v1";
      labels["target"] = endpoint_->url("anthro").toStdString();
      auto it = samples.find(prometheus_key(name, labels));
      return it == samples.end() ? -1.0 : it->second.get<double>();
    };
    QCOMPARE(value("anthro_wb_bench_requests_total"), bench["requests"].get<double>());
    QCOMPARE(value("anthro_wb_bench_requests_total"), 6.0);
    QCOMPARE(value("anthro_wb_bench_connections_total"), bench["connections"].get<double>());
    QCOMPARE(value("anthro_wb_bench_tokens_per_second"), bench["tokens_per_s"].get<double>());
    QCOMPARE(value("anthro_wb_bench_ttft_seconds_count"), bench["summary"]["ttft_ms"]["n"].get<double>());
    QCOMPARE(value("anthro_wb_bench_ttft_seconds", {{"quantile", "0.99"}}), bench["summary"]["ttft_ms"]["p99"].get<double>() / 1000);
    QCOMPARE(value("anthro_wb_bench_e2e_seconds", {{"quantile", "0.5"}}), bench["summary"]["e2e_ms"]["p50"].get<double>() / 1000);

    Run http = run({"bench", "--target", endpoint_->url("http") + "/v1/messages", "--concurrency", "1", "--requests", "2",
                    "--pushgateway", gateway.url}, dir_.path());
    QVERIFY2(http.code == 0, http.err.constData());
    const json scraped = parse_prometheus(gateway.metrics());
    QVERIFY2(scraped.is_array(), scraped.dump().c_str());
    const auto pushed = prometheus_samples(scraped, {"instance"});
    for (const auto& family : written)  // every sample of the file, with the job's label
      for (const auto& sample : family["samples"]) {
        auto labels = sample["labels"].get<std::map<std::string, std::string>>();
        labels["job"] = "anthro_wb_bench";
        const std::string key = prometheus_key(sample["name"], labels);
        QVERIFY2(pushed.count(key) && pushed.at(key) == sample["value"], key.c_str());
      }
    const std::string http_requests = prometheus_key(
        "anthro_wb_bench_requests_total",
        {{"job", "anthro_wb_bench"}, {"path", "http"}, {"target", (endpoint_->url("http") + "/v1/messages").toStdString()}});
    QVERIFY2(pushed.count(http_requests) && pushed.at(http_requests) == 2, http_requests.c_str());
  }

  // diagnose's verdicts as state sets: exactly the verdict its JSON gives, for every item.
  void diagnoseWritesVerdictsAsPrometheus() {
    const QString file = dir_.filePath("diagnose.prom");
    const QString pcap = vector_file("lab-conversation.pcap");
    Run r = run({"diagnose", pcap, "--keylog", vector_file("lab-conversation.keylog"),
                 "--format", "json", "--quiet", "--metrics-file", file}, dir_.path());
    QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
    const json diagnosis = json::parse(r.out.toStdString());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto samples = prometheus_samples(parse_prometheus(f.readAll().toStdString()));
    QVERIFY(diagnosis["checklist"].size() >= 10);
    for (const auto& item : diagnosis["checklist"]) {
      for (const char* verdict : {"pass", "warn", "fail", "inconclusive", "manual"}) {
        const std::string key = prometheus_key("anthro_wb_diagnose_item_verdict",
                                               {{"checklist", diagnosis["checklist_id"]}, {"item", item["id"]},
                                                {"target", pcap.toStdString()}, {"verdict", verdict}});
        QVERIFY2(samples.count(key), key.c_str());
        QCOMPARE(samples.at(key).get<double>(), item["verdict"] == verdict ? 1.0 : 0.0);
      }
    }
  }

  // A push or a file that fails is said, and the run's own output stands.
  void metricsOutFailuresAreSaid() {
    Run bad_url = run({"bench", "--target", endpoint_->url("anthro"), "--requests", "1", "--concurrency", "1",
                       "--pushgateway", "ftp://gateway"}, dir_.path());
    QCOMPARE(bad_url.code, 2);
    QVERIFY2(bad_url.err.contains("--pushgateway \"ftp://gateway\""), bad_url.err.constData());
    Run closed = run({"bench", "--target", endpoint_->url("anthro"), "--requests", "1", "--concurrency", "1", "--format", "json",
                      "--pushgateway", QString("http://127.0.0.1:%1").arg(free_port()),
                      "--metrics-file", dir_.filePath("out.txt")}, dir_.path());
    QCOMPARE(closed.code, 2);
    QCOMPARE(json::parse(closed.out.toStdString())["requests"], 1);
    QVERIFY2(closed.err.contains("--pushgateway: Pushgateway http://127.0.0.1:"), closed.err.constData());
    QVERIFY2(closed.err.contains("--metrics-file:") && closed.err.contains(".prom"), closed.err.constData());
    QVERIFY(!QFile::exists(dir_.filePath("out.txt")));
  }

  // A rollout's outcome, in the file and at the gateway, as its JSON gives it: the state set,
  // each stage's verdict and requests, each gate's verdict, the TTFT summaries by arm.
  void rolloutWritesItsOutcomeAsPrometheus() {
    Pushgateway gateway;
    QVERIFY2(gateway.start(), "prometheus-pushgateway did not start (installer/deps.sh installs it)");
    const QString file = dir_.filePath("rollout.prom");
    Run r = run({"rollout", "--stage", "1", "--requests-per-stage", "20", "--format", "json", "--quiet",
                 "--metrics-file", file, "--pushgateway", gateway.url}, dir_.path());
    QVERIFY2(r.code == 4, r.err.constData());  // paused: 20 requests cannot decide the shadow stage
    const json rollout = json::parse(r.out.toStdString());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const json written = parse_prometheus(f.readAll().toStdString());
    QVERIFY2(written.is_array(), written.dump().c_str());
    const auto samples = prometheus_samples(written);
    const std::map<std::string, std::string> base = {
        {"baseline", rollout["baseline"]}, {"candidate", rollout["candidate"]}, {"plan", rollout["plan"]["id"]}};
    auto value = [&](const std::string& name, const std::map<std::string, std::string>& more) {
      auto labels = base;
      labels.insert(more.begin(), more.end());
      auto it = samples.find(prometheus_key(name, labels));
      return it == samples.end() ? -1.0 : it->second.get<double>();
    };
    for (const char* state : {"passed", "failed", "paused", "rolled_back"})
      QCOMPARE(value("anthro_wb_rollout_state", {{"state", state}}), rollout["state"] == state ? 1.0 : 0.0);
    QCOMPARE(rollout["stages"].size(), std::size_t{1});
    for (const auto& stage : rollout["stages"]) {
      const std::string name = stage["name"];
      QCOMPARE(value("anthro_wb_rollout_stage_requests_total", {{"stage", name}}), stage["samples"]["requests"].get<double>());
      for (const char* verdict : {"pass", "warn", "fail", "inconclusive", "manual"}) {
        QCOMPARE(value("anthro_wb_rollout_stage_verdict", {{"stage", name}, {"verdict", verdict}}),
                 stage["verdict"] == verdict ? 1.0 : 0.0);
        QVERIFY(!stage["gates"].empty());
        for (const auto& gate : stage["gates"])
          QCOMPARE(value("anthro_wb_rollout_gate_verdict", {{"stage", name}, {"gate", gate["id"]}, {"verdict", verdict}}),
                   gate["verdict"] == verdict ? 1.0 : 0.0);
      }
      for (const char* arm : {"baseline", "candidate"}) {
        const json& ttft = stage["ttft_ms"][arm];
        QCOMPARE(value("anthro_wb_rollout_stage_ttft_seconds_count", {{"stage", name}, {"arm", arm}}), ttft["n"].get<double>());
        QCOMPARE(value("anthro_wb_rollout_stage_ttft_seconds", {{"stage", name}, {"arm", arm}, {"quantile", "0.99"}}),
                 ttft["p99"].get<double>() / 1000);
      }
    }
    const auto pushed = prometheus_samples(parse_prometheus(gateway.metrics()), {"instance"});
    std::size_t compared = 0;
    for (const auto& family : written)
      for (const auto& sample : family["samples"]) {
        auto labels = sample["labels"].get<std::map<std::string, std::string>>();
        labels["job"] = "anthro_wb_rollout";
        const std::string key = prometheus_key(sample["name"], labels);
        QVERIFY2(pushed.count(key) && pushed.at(key) == sample["value"], key.c_str());
        ++compared;
      }
    QVERIFY(compared > 20);
  }

 private:
  QTemporaryDir dir_;
  std::unique_ptr<Endpoint> endpoint_;
};

QTEST_GUILESS_MAIN(TestCliMetricsOut)
#include "test_cli_metrics_out.moc"
