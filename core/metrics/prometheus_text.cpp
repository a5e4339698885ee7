#include "metrics/prometheus_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "metrics/stats.h"
#include "util/files.h"

namespace anthro {
namespace {

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Summary: return "summary";
    case MetricType::Histogram: return "histogram";
  }
  return "untyped";
}

bool name_char(char c, bool first, bool colon) {
  bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return letter || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, colon)) return false;
  return true;
}

// HELP text escapes backslash and newline; a label value also the double quote.
std::string escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quote && c == '"') out += "\\\"";
    else out += c;
  }
  return out;
}

void require(bool ok, std::string_view what, std::string_view name) {
  // A name is the program's own, never a user's: a bad one is a bug, not an input error.
  if (!ok) throw std::logic_error("invalid Prometheus " + std::string(what) + " \"" + std::string(name) + "\"");
}

}  // namespace

bool valid_metric_name(std::string_view name) { return valid_name(name, true); }
bool valid_label_name(std::string_view name) { return valid_name(name, false) && name.substr(0, 2) != "__"; }

std::string prometheus_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {  // a count: digits, never 2e+01
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {  // the shortest text that reads back as v
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

void PrometheusText::family(std::string_view name, MetricType type, std::string_view help) {
  require(valid_metric_name(name), "metric name", name);
  text_ += "# HELP " + std::string(name) + " " + escaped(help, false) + "\n";
  text_ += "# TYPE " + std::string(name) + " " + type_name(type) + "\n";
}

void PrometheusText::sample(std::string_view name, const PrometheusLabels& labels, double value) {
  require(valid_metric_name(name), "metric name", name);
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      require(valid_label_name(labels[i].first), "label name", labels[i].first);
      text_ += (i ? ",":"") + labels[i].first + "=\"" + escaped(labels[i].second, true) + "\"";
    }
    text_ += '}';
  }
  text_ += " " + prometheus_number(value) + "\n";
}

void write_seconds_summary(PrometheusText& out, std::string_view name, std::string_view help,
                           const PrometheusLabels& labels, const Summary& ms) {
  out.family(name, MetricType::Summary, help);
  seconds_summary_samples(out, name, labels, ms);
}

void seconds_summary_samples(PrometheusText& out, std::string_view name, const PrometheusLabels& labels,
                             const Summary& ms) {
  for (auto [quantile, value] : {std::pair{"0.5", ms.p50}, {"0.9", ms.p90}, {"0.95", ms.p95}, {"0.99", ms.p99}}) {
    PrometheusLabels with = labels;
    with.emplace_back("quantile", quantile);
    out.sample(name, with, value / 1000);
  }
  std::string base(name);
  out.sample(base + "_sum", labels, ms.n ? ms.mean * static_cast<double>(ms.n) / 1000 : 0);
  out.sample(base + "_count", labels, static_cast<double>(ms.n));
}

const std::vector<double> kLatencyBucketsSeconds = {
    0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
    0.75, 1, 1.5, 2, 3, 4, 5, 7.5, 10, 15, 20, 30, 45, 60, 90, 120};

void write_seconds_histogram(PrometheusText& out, std::string_view name, std::string_view help,
                             const PrometheusLabels& labels, const std::vector<double>& samples_ms) {
  out.family(name, MetricType::Histogram, help);
  std::vector<double> seconds;
  double sum = 0;
  for (double ms : samples_ms) {
    seconds.push_back(ms / 1000);
    sum += ms / 1000;
  }
  std::sort(seconds.begin(), seconds.end());
  std::string base(name);
  auto bucket = [&](double le) {
    PrometheusLabels with = labels;
    with.emplace_back("le", prometheus_number(le));
    auto below = std::upper_bound(seconds.begin(), seconds.end(), le) - seconds.begin();  // le is inclusive
    out.sample(base + "_bucket", with, static_cast<double>(below));
  };
  for (double le : kLatencyBucketsSeconds) bucket(le);
  bucket(std::numeric_limits<double>::infinity());
  out.sample(base + "_sum", labels, sum);
  out.sample(base + "_count", labels, static_cast<double>(seconds.size()));
}

Result<bool> write_metrics_file(const std::string& path, std::string_view text) {
  std::string_view suffix = ".prom";
  if (path.size() <= suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    return make_error(ErrorClass::Usage, "metrics file \"" + path + "\": the textfile collector reads only files ending in .prom");
  return write_file_atomic(path, text);
}

}  // namespace anthro
