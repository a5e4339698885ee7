#include "endpoint/prometheus.h"

#include <algorithm>
#include <cstdlib>

#include "endpoint/server_state.h"

#include <chrono>
#include <cstdio>

namespace anthro {

std::optional<double> prometheus_sample(std::string_view text, std::string_view name) {
  while (!text.empty()) {
    std::size_t eol = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(std::min(eol + 1, text.size()));
    if (line.size() <= name.size() || line.substr(0, name.size()) != name || line[name.size()] != ' ') continue;
    std::string value(line.substr(name.size() + 1));
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str()) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

namespace {

long current_minute() {
  using namespace std::chrono;
  return static_cast<long>(duration_cast<minutes>(steady_clock::now().time_since_epoch()).count());
}

std::vector<double> seconds_buckets(std::initializer_list<double> b) { return b; }

}  // namespace

Histogram::Histogram(std::string name, std::string help, std::vector<double> bounds)
    : name_(std::move(name)), help_(std::move(help)), bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}

void Histogram::observe(double value) {
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::write(PrometheusText& out) const {
  out.family(name_, MetricType::Histogram, help_);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out.sample(name_ + "_bucket", {{"le", prometheus_number(bounds_[i])}}, static_cast<double>(cumulative));
  }
  out.sample(name_ + "_bucket", {{"le", "+Inf"}}, static_cast<double>(count_));
  out.sample(name_ + "_sum", sum_);
  out.sample(name_ + "_count", static_cast<double>(count_));
}

EndpointMetrics::EndpointMetrics()
    : connection_duration_("anthro_transport_connection_duration_seconds", "Lifetime of anthro-v1 connections.",
                           seconds_buckets({1, 10, 30, 60, 120, 300, 600, 1800, 3600})),
      frame_decode_("anthro_transport_frame_decode_time_seconds", "Time to decrypt and verify one frame.",
                    seconds_buckets({1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2})),
      context_wait_("anthro_transport_gpu_context_wait_seconds", "Wait for a GPU context (RESPONSE timing).",
                    seconds_buckets({0.001, 0.005, 0.01, 0.012, 0.015, 0.02, 0.05, 0.1, 0.5})),
      ttft_("anthro_transport_ttft_seconds", "Server-side time to first token.",
            seconds_buckets({0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1, 2, 5})),
      inter_token_("anthro_transport_inter_token_seconds", "Gap between tokens sent.",
                   seconds_buckets({0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1})) {}

void EndpointMetrics::connection_closed(double s) { std::lock_guard l(mutex_); connection_duration_.observe(s); }
void EndpointMetrics::frame_decoded(double s) { std::lock_guard l(mutex_); frame_decode_.observe(s); }
void EndpointMetrics::context_wait(double s) { std::lock_guard l(mutex_); context_wait_.observe(s); }
void EndpointMetrics::ttft(double s) { std::lock_guard l(mutex_); ttft_.observe(s); }
void EndpointMetrics::inter_token(double s) { std::lock_guard l(mutex_); inter_token_.observe(s); }
void EndpointMetrics::frame_dropped() { std::lock_guard l(mutex_); ++frame_drops_; }
void EndpointMetrics::request() {
  std::lock_guard l(mutex_);
  long now = current_minute();
  minutes_.erase(minutes_.begin(), minutes_.lower_bound(now - 1));  // keep two windows, no more
  ++minutes_[now].first;
}
void EndpointMetrics::cancel() { std::lock_guard l(mutex_); ++minutes_[current_minute()].second; }

std::string EndpointMetrics::text() const {
  std::lock_guard l(mutex_);
  PrometheusText out;
  for (const Histogram* h : {&connection_duration_, &frame_decode_, &context_wait_, &ttft_, &inter_token_})
    h->write(out);
  out.family("anthro_transport_frame_drop_total", MetricType::Counter, "Frames dropped for failed authentication.");
  out.sample("anthro_transport_frame_drop_total", static_cast<double>(frame_drops_));
  // The last complete minute if there is one, else the current one.
  double rate = 0;
  long now = current_minute();
  for (long m : {now - 1, now}) {
    auto it = minutes_.find(m);
    if (it != minutes_.end() && it->second.first > 0) {
      rate = static_cast<double>(it->second.second) / static_cast<double>(it->second.first);
      break;
    }
  }
  out.family("anthro_transport_cancel_rate", MetricType::Gauge, "CANCEL frames per REQUEST frame over a minute.");
  out.sample("anthro_transport_cancel_rate", rate);
  return out.text();
}

std::string metrics_text(const ServerState& state) {
  std::string out = state.metrics.text();
  for (const auto& [id, route] : http_routes().all())
    if (route.metrics) out += route.metrics(state);
  return out;
}

}  // namespace anthro
