// `anthro-wb bench`: load against a target, closed or open loop, with a summary.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/metrics_out.h"
#include "cli/session_options.h"
#include "session/bench.h"

namespace anthro::cli {

void print_bench_summary(const BenchResult& r) {
  std::printf("%s: %llu requests in %.2f s over %llu connections, %.1f tokens/s, goodput %.2f/s\n", r.target.c_str(),
              static_cast<unsigned long long>(r.requests), r.duration_s, static_cast<unsigned long long>(r.connections),
              r.tokens_per_s, r.goodput_per_s);
  for (const auto& [code, n] : r.errors) std::printf("  errors %s: %llu\n", code.c_str(), static_cast<unsigned long long>(n));
  std::printf("  %-8s %6s %9s %9s %9s %9s %9s %9s\n", "ms", "n", "p50", "p90", "p95", "p99", "mean", "stddev");
  for (auto [name, s] : {std::pair{"TTFT", &r.ttft_ms}, std::pair{"TPOT", &r.tpot_ms}, std::pair{"ITL", &r.itl_ms},
                         std::pair{"E2E", &r.e2e_ms}})
    std::printf("  %-8s %6zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, s->n, s->p50, s->p90, s->p95, s->p99,
                s->mean, s->stddev);
}

int run_bench_command(const std::vector<std::string>& argv) {
  Args args("bench", argv);
  BenchConfig b;
  read_session_options(args, b.session);
  read_keylog_output(args, b.session);
  if (auto n = args.count("--concurrency", 1, 100000)) b.concurrency = static_cast<unsigned>(*n);
  if (auto r = args.number("--rate", NumberRange::Positive)) b.rate = *r;
  std::string arrivals = args.value_or("--arrivals", "constant");
  if (arrivals == "poisson") b.arrivals = Arrivals::Poisson;
  else if (arrivals != "constant") args.fail("--arrivals \"" + arrivals + "\": expected constant or poisson");
  if (b.concurrency && b.rate > 0) args.fail("--concurrency and --rate exclude each other");
  if (!b.concurrency && b.rate <= 0) args.fail("give --concurrency N (closed loop) or --rate R (open loop)");
  b.requests = args.count("--requests", 1, UINT64_MAX);
  b.duration_s = args.number("--duration", NumberRange::Positive);
  if (auto slo = args.value("--slo")) {
    auto parsed = parse_slo(*slo);
    if (!parsed) args.fail("--slo: " + parsed.error().detail);
    else b.slo = *parsed;
  }
  LoadOptions load = read_load_options(args);
  b.cancel_rate = load.cancel_rate;
  b.retry_naive = load.retry_naive;
  b.hold_connections_s = load.hold_connections_s;
  b.seed = load.seed;
  MetricsOut metrics = read_metrics_out(args);
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (!args.ok()) return usage_error("bench", args.error());

  b.on_progress = [](const BenchProgress& p) { std::cerr << progress_line(p) << "\n"; };
  auto result = run_bench(b);
  if (!result) return error_exit("bench", result.error());
  if (auto path = args.value("--records")) {
    if (auto ok = write_bench_records(*result, *path); !ok) {
      std::cerr << "anthro-wb bench: " << ok.error().detail << "\n";
      return 2;
    }
  }
  if (format == "json") std::cout << bench_json(*result) << "\n";
  else print_bench_summary(*result);
  bool all_failed = result->requests > 0 && result->errors.count("connection") &&
                    result->errors.at("connection") == result->requests;
  bool warned = print_warnings("bench", result->warnings);
  if (metrics.wanted() && !send_metrics(metrics, "bench", {{"target", result->target}}, bench_prometheus(*result)))
    warned = true;
  return all_failed ? 3 : warned ? 2 : 0;
}

}  // namespace anthro::cli
