// anthro-wb's figures out to Prometheus as a CI job sends them: bench, diagnose and rollout
// write node_exporter's textfile collector format (--metrics-file) and push to Debian's real
// Pushgateway (--pushgateway); both read back by Prometheus's own Python parser, never by ours.
// And a fleet's figures: bench workers pushing to one gateway, their results merged (`merge`).
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

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/metrics_out.h"
#include "cli_run.h"
#include "prometheus_parse.h"
#include "vectors.h"

using json = nlohmann::json;
using anthro::test::EndpointProcess;
using anthro::test::free_port;
using anthro::test::Run;
using anthro::test::run;

namespace {

QString vector_file(const char* name) { return QString::fromStdString(anthro::test::vectors_path(name)); }

json read_json(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? json::parse(f.readAll().toStdString(), nullptr, false) : json();
}

// Debian's Prometheus Pushgateway on a port of its own, in memory; stopped with the object.
struct Pushgateway {
  QProcess process;
  QString url;
  bool start() {
    const QString address = QString("127.0.0.1:%1").arg(free_port());
    process.setProcessChannelMode(QProcess::MergedChannels);
    // Debian's default persists to /var/lib/prometheus/pushgateway.data, which every gateway
    // started would load: groups left by other runs (summaries of older builds) would refuse
    // this run's histograms.
    process.start("/usr/bin/prometheus-pushgateway", {"--web.listen-address=" + address, "--persistence.file="});
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

// Prometheus's histogram_quantile, as its documentation defines it: the buckets (upper bound,
// cumulative count; +Inf last) sorted by bound; rank = q × the +Inf bucket's count; the first
// bucket whose count reaches the rank; linear interpolation inside it, from the bucket below's
// bound (0 for the first bucket when its bound is positive); a rank in the +Inf bucket gives the
// highest finite bound. NaN with no observations.
double histogram_quantile(double q, std::vector<std::pair<double, double>> buckets) {
  std::sort(buckets.begin(), buckets.end());
  if (buckets.size() < 2 || !std::isinf(buckets.back().first)) return std::nan("");
  const double total = buckets.back().second;
  if (total == 0) return std::nan("");
  const double rank = q * total;
  std::size_t b = 0;
  while (b + 1 < buckets.size() && buckets[b].second < rank) ++b;
  if (b == buckets.size() - 1) return buckets[b - 1].first;
  if (b == 0 && buckets[0].first <= 0) return buckets[0].first;
  const double start = b == 0 ? 0 : buckets[b - 1].first, below = b == 0 ? 0 : buckets[b - 1].second;
  return start + (buckets[b].first - start) * (rank - below) / (buckets[b].second - below);
}

// numpy's default percentile ("linear"), this test's own: the merged result's must agree.
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = p / 100 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

// Which bucket a value falls in: the index of the first bound ≥ it.
std::size_t bucket_of(const std::vector<double>& bounds, double v) {
  return static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
}

}  // namespace

class TestCliMetricsOut : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    endpoint_ = std::make_unique<EndpointProcess>(dir_.path(), QStringList{});
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
    // Histograms: each bucket counts the records' own figures at or under its bound.
    auto ttft = std::find_if(written.begin(), written.end(), [](const json& f) { return f["name"] == "anthro_wb_bench_ttft_seconds"; });
    QVERIFY(ttft != written.end());
    QCOMPARE((*ttft)["type"], "histogram");
    std::size_t buckets = 0;
    for (const auto& sample : (*ttft)["samples"]) {
      if (sample["name"] != "anthro_wb_bench_ttft_seconds_bucket") continue;
      const std::string le = sample["labels"]["le"];
      const double bound = le == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(le);
      double under = 0;
      for (const auto& rec : bench["records"]) under += rec["error"].is_null() && rec["ttft_ms"].get<double>() / 1000 <= bound;
      QVERIFY2(sample["value"] == under, le.c_str());
      ++buckets;
    }
    QVERIFY(buckets > 20);

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

  // Two bench workers at once, pushing to one Pushgateway under instances of their own, their
  // results merged: the merged counts are the sums, its quantiles those of the pooled records
  // (computed here), and Prometheus's histogram_quantile over the scraped buckets summed by le
  // across both workers is the merged p99 within one bucket.
  void benchWorkersMergeAndTheirBucketsAddUp() {
    Pushgateway gateway;
    QVERIFY2(gateway.start(), "prometheus-pushgateway did not start (installer/deps.sh installs it)");
    QProcess workers[2];
    QStringList files;
    for (int i = 0; i < 2; ++i) {
      files << dir_.filePath(QString("worker-%1.json").arg(i));
      workers[i].setProcessEnvironment(anthro::test::env_for(dir_.path()));
      workers[i].setStandardOutputFile(files[i]);
      workers[i].start(ANTHRO_WB, {"bench", "--target", endpoint_->url("anthro"), "--concurrency", "3", "--requests",
                                   QString::number(30 + 10 * i), "--format", "json", "--pushgateway", gateway.url,
                                   "--pushgateway-instance", QString("w%1").arg(i)});
    }
    for (auto& w : workers) QVERIFY(anthro::test::ended_normally(w, 120000) && w.exitCode() == 0);
    const QString merged_file = dir_.filePath("merged.json");
    Run merged_run = run({"merge", files[0], files[1], "--output", merged_file}, dir_.path());
    QVERIFY2(merged_run.code == 0, merged_run.err.constData());
    QFile f(merged_file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const json merged = json::parse(f.readAll().toStdString());
    json parts[2];
    for (int i = 0; i < 2; ++i) {
      QFile part(files[i]);
      QVERIFY(part.open(QIODevice::ReadOnly));
      parts[i] = json::parse(part.readAll().toStdString());
    }

    // Counts add up; figures from the union of both files' records, by this test's own code.
    QCOMPARE(merged["requests"].get<int>(), 70);
    QCOMPARE(merged["connections"], parts[0]["connections"].get<int>() + parts[1]["connections"].get<int>());
    std::map<std::string, std::vector<double>> samples;
    double tokens = 0, start = 1e300, end = 0;
    std::map<std::string, int> per_worker;
    for (const auto& part : parts) {
      start = std::min(start, part["start_unix_s"].get<double>());
      end = std::max(end, part["start_unix_s"].get<double>() + part["duration_s"].get<double>());
      for (const auto& rec : part["records"]) {
        tokens += rec["tokens"].get<double>();
        if (!rec["error"].is_null()) continue;
        for (const char* figure : {"ttft_ms", "e2e_ms"}) samples[figure].push_back(rec[figure].get<double>());
        for (const auto& gap : rec["itl_ms"]) samples["itl_ms"].push_back(gap.get<double>());
      }
    }
    for (const auto& rec : merged["records"]) ++per_worker[rec["worker"].get<std::string>()];
    QCOMPARE(per_worker[files[0].toStdString()], 30);
    QCOMPARE(per_worker[files[1].toStdString()], 40);
    QVERIFY(std::abs(merged["duration_s"].get<double>() - (end - start)) < 1e-6);
    QVERIFY(std::abs(merged["tokens_per_s"].get<double>() - tokens / (end - start)) < 1e-6 * tokens / (end - start));
    for (const auto& [figure, values] : samples) {
      const json& summary = merged["summary"][figure];
      QCOMPARE(summary["n"].get<std::size_t>(), values.size());
      for (double p : {50.0, 99.0}) {
        const double mine = percentile(values, p), theirs = summary[p == 50 ? "p50" : "p99"].get<double>();
        QVERIFY2(std::abs(mine - theirs) <= 1e-12 * mine, (figure + " p" + std::to_string(p)).c_str());
      }
    }

    // The fleet's p99 from the gateway: buckets of both instances summed by le.
    const json scraped = parse_prometheus(gateway.metrics());
    QVERIFY2(scraped.is_array(), scraped.dump().c_str());
    for (const char* figure : {"ttft", "itl", "e2e"}) {
      const std::string family = std::string("anthro_wb_bench_") + figure + "_seconds";
      std::map<double, double> by_le;
      std::set<std::string> instances;
      for (const auto& fam : scraped)
        for (const auto& sample : fam["samples"]) {
          if (sample["name"] != family + "_bucket" || sample["labels"]["job"] != "anthro_wb_bench") continue;
          instances.insert(sample["labels"]["instance"].get<std::string>());
          const std::string le = sample["labels"]["le"];
          by_le[le == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(le)] += sample["value"].get<double>();
        }
      QVERIFY2((instances == std::set<std::string>{"w0", "w1"}), family.c_str());
      std::vector<double> bounds;
      for (const auto& [le, n] : by_le)
        if (!std::isinf(le)) bounds.push_back(le);
      const double fleet = histogram_quantile(0.99, {by_le.begin(), by_le.end()});
      const double exact = merged["summary"][std::string(figure) + "_ms"]["p99"].get<double>() / 1000;
      const std::size_t a = bucket_of(bounds, fleet), b = bucket_of(bounds, exact);
      QVERIFY2((a > b ? a - b : b - a) <= 1, (family + ": " + std::to_string(fleet) + " vs " + std::to_string(exact)).c_str());
      QCOMPARE(by_le.rbegin()->second, static_cast<double>(merged["summary"][std::string(figure) + "_ms"]["n"].get<std::size_t>()));
    }
  }

  // What merge refuses, exit 2 naming the files: two kinds, two workloads, a file that is not
  // JSON, one that is missing. Nothing is written.
  void mergeRefusesWhatIsNotOneWorkload() {
    const QString out = dir_.filePath("refused.json");
    auto save = [&](const QString& name, const QStringList& args) {
      Run r = run(args, dir_.path());
      QFile f(dir_.filePath(name));
      if (r.code != 0 || !f.open(QIODevice::WriteOnly)) return QString();
      f.write(r.out);
      return f.fileName();
    };
    const QString target = endpoint_->url("anthro");
    const QString a = save("a.json", {"bench", "--target", target, "--concurrency", "1", "--requests", "2", "--format", "json"});
    const QString b = save("b.json", {"bench", "--target", target, "--concurrency", "1", "--requests", "2", "--max-tokens",
                                      "5", "--format", "json"});
    const QString s = save("s.json", {"session", "--target", target, "--format", "json"});
    QVERIFY(!a.isEmpty() && !b.isEmpty() && !s.isEmpty());
    QFile bad(dir_.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"kind\": \"bench\", ");
    bad.close();
    const QString missing = dir_.filePath("missing.json");
    const std::vector<std::pair<QStringList, QStringList>> cases = {
        {{a, s}, {a, s, "different kinds"}},
        {{a, b}, {a, b, "different workloads", "max_tokens"}},
        {{a, bad.fileName()}, {bad.fileName(), "not valid JSON"}},
        {{a, missing}, {missing}},
        {{a, a}, {a, "twice"}}};
    for (const auto& [inputs, said] : cases) {
      Run r = run(QStringList{"merge"} + inputs + QStringList{"--output", out}, dir_.path());
      QCOMPARE(r.code, 2);
      for (const QString& word : said) QVERIFY2(r.err.contains(word.toUtf8()), r.err.constData());
      QVERIFY(!QFile::exists(out));
    }
  }

  // Two sessions of one workload (three requests, then two, each on a connection of its own),
  // the second as if run on a machine whose monotonic clock reads 5000 s less, merged given in
  // reverse run order: the second file's requests then the first's, each in its file's order,
  // as its file wrote it and naming that file, but sent on the earliest file's clock by this
  // test's arithmetic from the files' anchors; the connection's fields are the first file's,
  // as `workers` says. The report of the merged session reads those five, with their workers.
  // A session of another prompt is refused, naming both files, and nothing is written.
  void sessionsMergeInFileOrder() {
    const QString target = endpoint_->url("anthro");
    QStringList files;
    std::vector<json> parts;
    for (const QStringList& more : {QStringList{"--repeat", "3"}, QStringList{"--repeat", "2"},
                                    QStringList{"--repeat", "2", "--prompt", "Another question."}}) {
      Run r = run(QStringList{"session", "--target", target, "--format", "json"} + more, dir_.path());
      QVERIFY2(r.code == 0, r.err.constData());
      parts.push_back(json::parse(r.out.toStdString()));
      QVERIFY2(parts.back()["start_clock_s"].is_number() && parts.back()["start_unix_s"].is_number(), r.out.constData());
      if (parts.size() == 2) {  // another machine's clock: the file stays true to itself
        parts[1]["start_clock_s"] = parts[1]["start_clock_s"].get<double>() - 5000;
        for (auto& request : parts[1]["requests"]) request["sent_s"] = request["sent_s"].get<double>() - 5000;
      }
      files << dir_.filePath(QString("session-%1.json").arg(files.size()));
      QFile f(files.back());
      QVERIFY(f.open(QIODevice::WriteOnly) && f.write(QByteArray::fromStdString(parts.back().dump())) > 0);
    }
    const QString out = dir_.filePath("sessions.json");
    Run m = run({"merge", files[1], files[0], "--output", out}, dir_.path());
    QVERIFY2(m.code == 0, m.err.constData());
    const json merged = read_json(out);
    QCOMPARE(merged["kind"], "session");
    QCOMPARE(parts[0]["requests"].size(), std::size_t{3});
    QCOMPARE(parts[1]["requests"].size(), std::size_t{2});
    QCOMPARE(merged["requests"].size(), std::size_t{5});
    const int earliest = parts[0]["start_unix_s"] <= parts[1]["start_unix_s"] ? 0 : 1;  // by the wall clock
    const double unix0 = parts[earliest]["start_unix_s"], clock0 = parts[earliest]["start_clock_s"];
    QCOMPARE(merged["start_unix_s"].get<double>(), unix0);
    QCOMPARE(merged["start_clock_s"].get<double>(), clock0);
    std::size_t k = 0, tokens = 0;
    std::vector<std::pair<double, double>> by_run;  // (file's start, sent_s in the merged clock)
    for (int i : {1, 0}) {
      const double unix = parts[i]["start_unix_s"], shift = clock0 + (unix - unix0) - parts[i]["start_clock_s"].get<double>();
      for (json expected : parts[i]["requests"]) {
        QVERIFY(!expected.contains("worker"));  // a session's own requests name no file
        expected["worker"] = files[i].toStdString();
        const double sent = merged["requests"][k]["sent_s"];
        QVERIFY2(std::abs(sent - (expected["sent_s"].get<double>() + shift)) < 1e-6, std::to_string(sent).c_str());
        expected["sent_s"] = sent;
        QCOMPARE(merged["requests"][k++], expected);
        tokens += expected["tokens"].get<std::size_t>();
        by_run.emplace_back(unix, sent);
      }
    }
    QCOMPARE(tokens, std::size_t{5 * 40});  // the endpoint's --tokens 40 each
    std::stable_sort(by_run.begin(), by_run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < by_run.size(); ++i) {
      QVERIFY2(by_run[i].second >= clock0, std::to_string(by_run[i].second - clock0).c_str());
      if (i) QVERIFY2(by_run[i].second >= by_run[i - 1].second, std::to_string(i).c_str());
    }
    QCOMPARE(merged["workers"].size(), std::size_t{2});
    for (int w = 0; w < 2; ++w) {
      const json& part = parts[1 - w];
      QCOMPARE(merged["workers"][w]["file"], files[1 - w].toStdString());
      for (const char* key : {"start_unix_s", "transport", "alpn", "connect_ms", "handshake_ms"})
        QVERIFY2(merged["workers"][w][key] == part[key], key);
    }
    QCOMPARE(merged["connect_ms"], parts[1]["connect_ms"]);  // the first file's
#ifdef ANTHRO_WITH_REPORT
    const QString report_file = dir_.filePath("sessions.report.json");
    Run report = run({"report", out, "--to", "json", "--output", report_file}, dir_.path());
    QVERIFY2(report.code == 0, report.err.constData());
    const json doc = read_json(report_file)["report"];
    QVERIFY2(doc["summary"][0].get<std::string>().rfind("5 requests", 0) == 0, doc["summary"].dump().c_str());
    const json& connection = doc["sections"][0];
    QCOMPARE(connection["facts"][0], json({{"label", "Worker"}, {"value", files[1].toStdString()}}));  // whose connection
    const json& table = connection["tables"][0];  // the Connection's stream table
    QCOMPARE(table["columns"][0], "Worker");
    QCOMPARE(table["columns"][1], "Stream");
    const json& rows = table["rows"];
    QCOMPARE(rows.size(), std::size_t{5});
    k = 0;
    for (int i : {1, 0})
      for (const auto& request : parts[i]["requests"]) {
        QCOMPARE(rows[k][0].get<std::string>(), files[i].toStdString());
        QCOMPARE(rows[k][1].get<std::string>(), std::to_string(request["stream_id"].get<std::uint64_t>()));
        QCOMPARE(rows[k++][4].get<std::string>(), std::to_string(request["tokens"].get<std::size_t>()));
      }
    for (const auto& chart : doc["charts"]) QCOMPARE(chart["points"].get<int>(), 5);
#endif

    // A session written before its anchors: merged, said, every request left on its own clock.
    json old = parts[1];
    old.erase("start_unix_s");
    old.erase("start_clock_s");
    QFile old_file(dir_.filePath("session-old.json"));
    QVERIFY(old_file.open(QIODevice::WriteOnly) && old_file.write(QByteArray::fromStdString(old.dump())) > 0);
    old_file.close();
    Run unanchored = run({"merge", files[0], old_file.fileName(), "--output", out}, dir_.path());
    QVERIFY2(unanchored.code == 0, unanchored.err.constData());
    QVERIFY2(unanchored.err.contains(old_file.fileName().toUtf8() + " has no start_unix_s"), unanchored.err.constData());
    const json kept = read_json(out);
    QVERIFY(!kept.contains("start_clock_s") && kept["requests"].size() == 5);
    for (std::size_t i = 0; i < 5; ++i)
      QCOMPARE(kept["requests"][i]["sent_s"], (i < 3 ? parts[0]["requests"][i] : old["requests"][i - 3])["sent_s"]);

    QFile::remove(out);
    Run refused = run({"merge", files[0], files[2], "--output", out}, dir_.path());
    QCOMPARE(refused.code, 2);
    for (const QString& word : {files[0], files[2], QString("different workloads"), QString("prompt_sha256")})
      QVERIFY2(refused.err.contains(word.toUtf8()), refused.err.constData());
    QVERIFY(!QFile::exists(out));
  }

  // The push's instance label: the host name, with "-N" in an Indexed Job's pod
  // (JOB_COMPLETION_INDEX=N) unless the host name ends so already (the Job names its pods
  // JOB-N); --pushgateway-instance NAME wins. Read back from the gateway's groups.
  void pushInstanceNamesTheWorker() {
    using anthro::cli::push_instance_name;
    QCOMPARE(push_instance_name("vm", nullptr), "vm");
    QCOMPARE(push_instance_name("vm", ""), "vm");
    QCOMPARE(push_instance_name("vm", "0"), "vm-0");
    QCOMPARE(push_instance_name("anthro-bench-3", "3"), "anthro-bench-3");  // the pod's own name
    QCOMPARE(push_instance_name("vm-3", "4"), "vm-3-4");
    QCOMPARE(push_instance_name("vm-13", "3"), "vm-13-3");  // ends in 3, not in -3
    QCOMPARE(push_instance_name("vm-3", "13"), "vm-3-13");
    QCOMPARE(push_instance_name("vm3", "3"), "vm3-3");

    Pushgateway gateway;
    QVERIFY2(gateway.start(), "prometheus-pushgateway did not start (installer/deps.sh installs it)");
    char buffer[256] = {};
    QVERIFY(::gethostname(buffer, sizeof buffer - 1) == 0 && buffer[0]);
    const std::string host = buffer;
    // An index this host name does not end in, so the label must grow.
    const std::string index = host.size() >= 2 && host.compare(host.size() - 2, 2, "-7") == 0 ? "8" : "7";
    auto push = [&](const char* job_index, const QStringList& more) {
      QProcessEnvironment env = anthro::test::env_for(dir_.path());
      env.remove("JOB_COMPLETION_INDEX");
      if (job_index) env.insert("JOB_COMPLETION_INDEX", job_index);
      QProcess p;
      p.setProcessEnvironment(env);
      p.start(ANTHRO_WB, QStringList{"bench", "--target", endpoint_->url("anthro"), "--concurrency", "1", "--requests", "1",
                                     "--pushgateway", gateway.url} + more);
      return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    };
    QVERIFY(push(nullptr, {}));
    QVERIFY(push(index.c_str(), {}));
    QVERIFY(push(index.c_str(), {"--pushgateway-instance", "worker-a"}));
    std::set<std::string> instances;
    for (const auto& family : parse_prometheus(gateway.metrics()))
      for (const auto& sample : family["samples"])
        if (sample["name"] == "anthro_wb_bench_requests_total") instances.insert(sample["labels"]["instance"].get<std::string>());
    QCOMPARE(instances, (std::set<std::string>{host, host + "-" + index, "worker-a"}));
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
  std::unique_ptr<EndpointProcess> endpoint_;
};

QTEST_GUILESS_MAIN(TestCliMetricsOut)
#include "test_cli_metrics_out.moc"
