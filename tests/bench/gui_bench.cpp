// gui_bench: wall time of a synchronous replot of the TTFT-over-time chart (1200x800 widget,
// offscreen) holding 10^4, 10^5 and 10^6 requests of a random walk, median of several runs
// after a warm-up. The in-run reference is the same replot with adaptive sampling switched
// off on that graph; ratios are (without sampling) ÷ (with sampling) and replot ÷ a 16 ms
// frame. Goal (reported, never asserted): 10^6 points under 16 ms with adaptive sampling.
// Then a ~1 GiB capture (capture_bench's generator, bench_capture.h; 20 MB with --quick) opened
// in the capture inspector as the GUI opens it: the time until its first rows are in the list,
// and the longest the event loop went without running (the worst gap between the ticks of a
// 5 ms timer) from open() to the end of the load, with the whole load as the in-run reference.
// Goals (reported, never asserted): first rows within 1 s, no gap over 50 ms.
#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <vector>

#include "bench_args.h"
#include "bench_capture.h"
#include "capture_inspector.h"
#include "latency_charts.h"

using anthro::widgets::LatencyCharts;
using anthro::widgets::RequestPoint;

namespace {

constexpr double kFrameMs = 16.0;
constexpr double kLoadGapMs = 50.0;  // the longest the event loop may stall while a capture loads

// Requests started every 10 ms on average; TTFT a bounded random walk around 150 ms with
// lognormal noise, as a long load test looks.
std::vector<RequestPoint> randomWalk(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(0, 2.0);
  std::lognormal_distribution<double> noise(0, 0.25);
  std::exponential_distribution<double> gap(100.0);
  std::vector<RequestPoint> points(n);
  double t = 0, level = 150;
  for (std::size_t i = 0; i < n; ++i) {
    t += gap(rng);
    level = std::clamp(level + step(rng), 60.0, 400.0);
    points[i].t_s = t;
    points[i].ttft_ms = level * noise(rng);
    points[i].tokens_per_s = 60 * noise(rng);
    points[i].request = static_cast<int>(i);
  }
  return points;
}

double replotMs(QCustomPlot* plot) {
  auto start = std::chrono::steady_clock::now();
  plot->replot(QCustomPlot::rpImmediateRefresh);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double medianReplotMs(QCustomPlot* plot, int runs) {
  replotMs(plot);  // warm-up: label caches, paint buffers
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(replotMs(plot));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Result {
  double sampled_ms = 0, unsampled_ms = 0;
};

Result measure(LatencyCharts& charts, std::size_t n, bool quick) {
  charts.clear();
  charts.addPoints(0, randomWalk(n, 42));
  charts.flush();
  QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
  QCPGraph* graph = plot->graph(0);
  Result r;
  const int runs = quick ? 3 : 15;
  r.sampled_ms = medianReplotMs(plot, runs);
  graph->setAdaptiveSampling(false);
  r.unsampled_ms = medianReplotMs(plot, n >= 1'000'000 ? (quick ? 1 : 3) : (quick ? 2 : 7));
  graph->setAdaptiveSampling(true);
  return r;
}

struct LoadRun {
  double file_mb = 0, first_rows_s = -1, load_s = 0, worst_gap_ms = 0;
  double worst_gap_end_s = 0;  // when the worst gap ended, since open(): where to look for what stalled
  std::size_t frames = 0;
  bool ok = false;
};

// Opens `pcap` in an inspector and runs the event loop until it has loaded, watching the
// rows and the gaps between ticks.
LoadRun openInInspector(const std::string& pcap, const std::string& keylog) {
  anthro::widgets::CaptureInspector inspector;
  inspector.resize(1200, 800);
  inspector.show();
  LoadRun run;
  QEventLoop loop;
  QTimer::singleShot(300, &loop, &QEventLoop::quit);  // shown and painted once: the load is what is timed
  loop.exec();
  QElapsedTimer clock, since_tick;
  QTimer tick;
  tick.setInterval(5);
  tick.setTimerType(Qt::PreciseTimer);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const double gap_ms = static_cast<double>(since_tick.nsecsElapsed()) / 1e6;
    if (gap_ms > run.worst_gap_ms) {
      run.worst_gap_ms = gap_ms;
      run.worst_gap_end_s = clock.nsecsElapsed() / 1e9;
    }
    since_tick.restart();
    if (run.first_rows_s < 0 && inspector.frames()->rowCount() > 0) run.first_rows_s = clock.nsecsElapsed() / 1e9;
  });
  QObject::connect(&inspector, &anthro::widgets::CaptureInspector::loaded, [&](bool ok, const QString&) {
    run.ok = ok;
    run.load_s = clock.nsecsElapsed() / 1e9;
    QTimer::singleShot(20, &loop, &QEventLoop::quit);  // a few more ticks: what the end of the load does
  });
  clock.start();
  since_tick.start();
  tick.start();
  QTimer::singleShot(0, &inspector, [&] { inspector.open(QString::fromStdString(pcap), {{keylog}, {}}); });
  loop.exec();
  run.frames = inspector.index() ? inspector.index()->frame_count() : 0;
  return run;
}

// A generated capture of about `bytes`, opened in the inspector; the files removed after.
LoadRun measureLoad(std::uint64_t bytes) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/anthro-gui-bench-XXXXXX";
  if (!mkdtemp(dir.data())) {
    std::cerr << "gui_bench: cannot create a temporary directory\n";
    std::exit(1);
  }
  const std::string pcap = dir + "/tls.pcapng", keylog = dir + "/keylog.txt";
  anthro::bench::GeneratedCapture g = anthro::bench::generate_capture(pcap, keylog, bytes);
  LoadRun run = openInInspector(pcap, keylog);
  run.file_mb = static_cast<double>(g.file_bytes) / (1 << 20);
  std::filesystem::remove_all(dir);
  if (!run.ok || run.frames != g.frames) {
    std::cerr << "gui_bench: the inspector loaded " << run.frames << " frames, the generator sealed " << g.frames << "\n";
    std::exit(1);
  }
  return run;
}

double rounded(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

}  // namespace

int main(int argc, char** argv) {
  auto [json_out, quick] = anthro::bench::parse_bench_args(argc, argv, "gui_bench");
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);

  LatencyCharts charts;
  charts.resize(1200, 800);
  charts.show();
  QApplication::processEvents();

  const std::vector<std::pair<const char*, std::size_t>> sizes = {
      {"1e4", 10'000}, {"1e5", 100'000}, {"1e6", 1'000'000}};
  nlohmann::json figures = nlohmann::json::object(), ratios = nlohmann::json::object();
  for (const auto& [name, n] : sizes) {
    Result r = measure(charts, n, quick);
    figures[std::string("replot_ms_") + name] = rounded(r.sampled_ms, 3);
    figures[std::string("replot_ms_") + name + "_no_sampling"] = rounded(r.unsampled_ms, 3);
    ratios[std::string("sampling_speedup_") + name] = rounded(r.unsampled_ms / r.sampled_ms, 3);
    ratios[std::string("frame_fraction_") + name] = rounded(r.sampled_ms / kFrameMs, 3);
    if (!json_out)
      std::printf("%-8s replot %9.3f ms   without adaptive sampling %9.3f ms   (x%.1f)\n", name,
                  r.sampled_ms, r.unsampled_ms, r.unsampled_ms / r.sampled_ms);
  }
  if (!json_out)
    std::printf("goal: 10^6 points under %.0f ms with adaptive sampling: %s\n", kFrameMs,
                figures["replot_ms_1e6"].get<double>() < kFrameMs ? "met" : "not met");

  const LoadRun load = measureLoad(quick ? std::uint64_t{20} << 20 : std::uint64_t{1} << 30);
  figures["load_file_mb"] = rounded(load.file_mb, 1);
  figures["load_frames"] = load.frames;
  figures["load_first_rows_s"] = rounded(load.first_rows_s, 3);
  figures["load_s"] = rounded(load.load_s, 3);
  figures["load_worst_gap_ms"] = rounded(load.worst_gap_ms, 1);
  figures["load_worst_gap_end_s"] = rounded(load.worst_gap_end_s, 3);
  ratios["load_first_rows_vs_load"] = rounded(load.first_rows_s / load.load_s, 4);
  ratios["load_worst_gap_vs_50ms"] = rounded(load.worst_gap_ms / kLoadGapMs, 3);
  if (json_out) {
    std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
    return 0;
  }
  std::printf("capture of %.0f MB in the inspector: first rows after %.3f s (goal 1 s: %s), loaded in %.2f s "
              "(%zu frames); worst event-loop gap %.1f ms, ending %.3f s after open() (goal %.0f ms: %s)\n",
              load.file_mb, load.first_rows_s, load.first_rows_s >= 0 && load.first_rows_s < 1.0 ? "met" : "not met",
              load.load_s, load.frames, load.worst_gap_ms, load.worst_gap_end_s, kLoadGapMs,
              load.worst_gap_ms <= kLoadGapMs ? "met" : "not met");
  return 0;
}
