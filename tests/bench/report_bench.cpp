// report_bench: a diagnosis result with 100,000 requests (100 connections × 1,000 streams, ten
// ITL samples each) rendered to HTML and to PDF, timed from the result text to the written file
// (parse, redact, build, charts, write), with the output sizes. The in-run reference renders the
// same report with every chart point drawn (no adaptive sampling). Goal (reported, never
// asserted): < 2 s and < 5 MB for each format with downsampling.
#include <QApplication>
#include <QFileInfo>
#include <QTemporaryDir>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "bench_args.h"
#include "report_renderer.h"

using namespace anthro;
using anthro::widgets::ChartStyle;
using anthro::widgets::ReportFormat;
using nlohmann::json;

namespace {

// Requests every ~2 ms over 200 s; TTFT lognormal around 150 ms with a 1 % tail.
std::string big_result(std::size_t connections, std::size_t streams) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> ttft(std::log(150.0), 0.3), itl(std::log(10.0), 0.2);
  std::bernoulli_distribution tail(0.01);
  json conns = json::array();
  double t = 1000;
  for (std::size_t c = 0; c < connections; ++c) {
    json list = json::array();
    for (std::size_t s = 0; s < streams; ++s) {
      t += 0.002;
      std::vector<double> gaps(10);
      for (double& g : gaps) g = itl(rng);
      double first = ttft(rng) * (tail(rng) ? 8 : 1);
      list.push_back({{"stream_id", 2 * s + 1}, {"end", "response"}, {"sent_s", t}, {"ttft_ms", first},
                      {"e2e_ms", first + 100}, {"tokens", 11}, {"tokens_per_s", 100.0}, {"mean_itl_ms", 10.0},
                      {"stop_reason", "end_turn"}, {"itl_ms", gaps}, {"text", "Hello from a long load test."}});
    }
    conns.push_back({{"conn", "127.0.0.1:" + std::to_string(40000 + c) + "-127.0.0.1:7443"},
                     {"alpn", "anthro-v1"},
                     {"anthro", true},
                     {"streams", std::move(list)}});
  }
  json items = json::array();
  for (const auto& item : builtin_latency_checklist().items)
    items.push_back({{"id", item.id}, {"verdict", "pass"}, {"evidence", "fine"}, {"n", 100000}, {"threshold", ""}});
  return json{{"kind", "diagnosis"}, {"schema_version", 1}, {"verdict", "pass"}, {"checklist", items},
              {"connections", conns}, {"warnings", json::array()}}
      .dump();
}

struct Measured {
  double seconds = 0;
  double megabytes = 0;
};

Measured render(const std::string& text, ReportFormat format, ChartStyle style, const QString& path) {
  auto start = std::chrono::steady_clock::now();
  ReportOptions options{.origin = "big.json"};
  if (!style.downsample) options.max_chart_points = 0;  // the reference: every request drawn
  auto doc = build_report(text, options);
  QString error;
  if (!doc || !widgets::writeReport(*doc, format, path, &error, style)) {
    std::fprintf(stderr, "report_bench: %s\n", doc ? qPrintable(error) : doc.error().detail.c_str());
    std::exit(1);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {s, static_cast<double>(QFileInfo(path).size()) / 1e6};
}

double rounded(double v) { return std::round(v * 1000) / 1000; }

}  // namespace

int main(int argc, char** argv) {
  auto [json_out, quick] = anthro::bench::parse_bench_args(argc, argv, "report_bench");
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QTemporaryDir dir;
  const std::size_t connections = 100, streams = quick ? 100 : 1000;
  const std::string text = big_result(connections, streams);
  json figures = {{"requests", connections * streams}, {"result_mb", rounded(text.size() / 1e6)}}, ratios = json::object();
  auto start = std::chrono::steady_clock::now();
  if (!build_report(text, {.origin = "big.json"})) return 1;
  figures["build_s"] = rounded(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!json_out) std::printf("the report model alone (parse, redact, build): %.2f s\n", figures["build_s"].get<double>());
  for (auto [format, name] : {std::pair{ReportFormat::Html, "html"}, std::pair{ReportFormat::Pdf, "pdf"}}) {
    Measured sampled = render(text, format, {true}, dir.filePath(QString("sampled.") + name));
    Measured full = render(text, format, {false}, dir.filePath(QString("full.") + name));
    figures[std::string(name) + "_s"] = rounded(sampled.seconds);
    figures[std::string(name) + "_mb"] = rounded(sampled.megabytes);
    figures[std::string(name) + "_s_every_point"] = rounded(full.seconds);
    figures[std::string(name) + "_mb_every_point"] = rounded(full.megabytes);
    ratios[std::string(name) + "_time_vs_every_point"] = rounded(sampled.seconds / full.seconds);
    ratios[std::string(name) + "_size_vs_every_point"] = rounded(sampled.megabytes / full.megabytes);
    if (!json_out)
      std::printf("%-4s %zu requests: %.2f s, %.2f MB   (every point drawn: %.2f s, %.2f MB)\n", name,
                  connections * streams, sampled.seconds, sampled.megabytes, full.seconds, full.megabytes);
  }
  if (json_out) std::cout << json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
  else std::printf("goal: < 2 s and < 5 MB each with downsampling\n");
  return 0;
}
