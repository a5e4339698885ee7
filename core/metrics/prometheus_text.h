// Prometheus text exposition (format 0.0.4): the endpoint's /metrics and the figures that
// bench, diagnose and rollout write for node_exporter's textfile collector or push to a
// Pushgateway. One writer, so names, label values and numbers are escaped one way.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace anthro {

using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { Counter, Gauge, Summary, Histogram };

class PrometheusText {
 public:
  // Starts a family: its # HELP and # TYPE lines. Every sample of it follows before the next.
  void family(std::string_view name, MetricType type, std::string_view help);
  // `name` is the family's or, for a summary or histogram, its _sum, _count or _bucket.
  void sample(std::string_view name, const PrometheusLabels& labels, double value);
  void sample(std::string_view name, double value) { sample(name, {}, value); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A metric or label name as the format allows ([a-zA-Z_:][a-zA-Z0-9_:]*; no ':' in labels).
bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);
// A number as the format writes it: shortest round-trip, NaN, +Inf, -Inf.
std::string prometheus_number(double v);

struct Summary;
// A latency summary kept in milliseconds, as a Prometheus summary in seconds: quantiles 0.5,
// 0.9, 0.95 and 0.99 (NaN with no samples), _sum and _count.
void write_seconds_summary(PrometheusText& out, std::string_view name, std::string_view help,
                           const PrometheusLabels& labels, const Summary& ms);
// The samples alone, for a family with several label sets (its family() written once before).
void seconds_summary_samples(PrometheusText& out, std::string_view name, const PrometheusLabels& labels,
                             const Summary& ms);

// The bucket bounds (seconds) of every latency histogram: TTFT, ITL, TPOT and E2E of LLM
// streams, 1 ms to 2 min, about 1.5× apart (a bucket's width is at most half its lower bound
// from 5 ms up), so a quantile read from the buckets is within one bucket of the exact one.
// +Inf follows them. docs/guide.md lists them.
extern const std::vector<double> kLatencyBucketsSeconds;
// Latency samples kept in milliseconds, as a classic Prometheus histogram in seconds:
// cumulative _bucket{le=...} over kLatencyBucketsSeconds and +Inf, _sum and _count. Unlike a
// summary's quantiles, the buckets of several workers add up: histogram_quantile(0.99,
// sum by (le) (...)) is the fleet's p99.
void write_seconds_histogram(PrometheusText& out, std::string_view name, std::string_view help,
                             const PrometheusLabels& labels, const std::vector<double>& samples_ms);

// For node_exporter's textfile collector: written to a temporary file and renamed, so the
// collector never reads half a file. Its name must end in ".prom", which is all it reads.
Result<bool> write_metrics_file(const std::string& path, std::string_view text);

}  // namespace anthro
