// Prometheus metrics in text exposition format, for the endpoint's /metrics (spec §8).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "metrics/prometheus_text.h"

namespace anthro {

// The value of an unlabelled sample `name` in a text exposition; nullopt when it is absent or
// not a number. (Reads a candidate's /metrics for a rollout plan's gate.)
std::optional<double> prometheus_sample(std::string_view text, std::string_view name);

class Histogram {
 public:
  Histogram(std::string name, std::string help, std::vector<double> bounds);
  void observe(double value);
  void write(PrometheusText& out) const;

 private:
  std::string name_, help_;
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

// Every metric of spec §8; observe from the loop thread, render from any thread.
class EndpointMetrics {
 public:
  EndpointMetrics();
  void connection_closed(double seconds);
  void frame_decoded(double seconds);
  void context_wait(double seconds);
  void ttft(double seconds);
  void inter_token(double seconds);
  void frame_dropped();
  void request();
  void cancel();
  std::string text() const;

 private:
  mutable std::mutex mutex_;
  Histogram connection_duration_, frame_decode_, context_wait_, ttft_, inter_token_;
  std::uint64_t frame_drops_ = 0;
  // Per-minute windows of (requests, cancels), for the cancel-rate gauge.
  std::map<long, std::pair<std::uint64_t, std::uint64_t>> minutes_;
};

}  // namespace anthro
