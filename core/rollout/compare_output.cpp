// A comparison as cli.md's JSON document (kind "comparison") and as a table for a person.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "metrics/request_json.h"
#include "rollout/compare.h"
#include "util/json.h"
#include "util/message_json.h"

namespace anthro {

using nlohmann::json;

namespace compare_detail {

// At most this many samples per side go into the JSON: enough for the report's CDF and
// histogram, chosen evenly from the sorted samples so the quantiles keep their places.
constexpr std::size_t kMaxJsonSamples = 2000;

json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json thinned(const std::vector<double>& sorted) {
  if (sorted.size() <= kMaxJsonSamples) return sorted;
  json out = json::array();
  for (std::size_t i = 0; i < kMaxJsonSamples; ++i) out.push_back(sorted[i * (sorted.size() - 1) / (kMaxJsonSamples - 1)]);
  return out;
}

json side_json(const Summary& s, const std::vector<double>& samples) {
  return {{"n", s.n},       {"p50", finite(s.p50)},   {"p90", finite(s.p90)}, {"p99", finite(s.p99)},
          {"mean", finite(s.mean)}, {"stddev", finite(s.stddev)}, {"samples", thinned(samples)}};
}

json rate_json(const RateCount& r) {
  return {{"n", r.n}, {"events", r.events}, {"rate", r.n ? json(static_cast<double>(r.events) / static_cast<double>(r.n)) : json(nullptr)}};
}

// The tail ratio as the reader expects it: P99 of a latency; for a higher-is-better figure, judged
// on its reciprocal, the slowest 1 % (P1) of candidate over base.
json tail_json(const FigureComparison& f, const CompareOptions& o) {
  const GateResult& g = f.judged;
  if (!g.p_value) return nullptr;
  bool higher = f.better == Better::Higher;
  auto flip = [&](double v) { return higher ? 1 / v : v; };
  double low = flip(higher ? g.interval.high : g.interval.low), high = flip(higher ? g.interval.low : g.interval.high);
  return {{"value", finite(flip(g.statistic))}, {"interval", {finite(low), finite(high)}}, {"tail", higher ? "p1" : "p99"},
          {"limit", flip(1 + o.margin)}};
}

json figure_json(const FigureComparison& f, const CompareOptions& o) {
  const bool rate = f.kind == FigureKind::Rate;
  json j = {{"id", f.id},
            {"source", f.source},
            {"kind", rate ? "rate" : "distribution"},
            {"better", f.better == Better::Lower ? "lower" : "higher"},
            {"unit", f.unit},
            {"base", rate ? rate_json(f.base_rate) : side_json(f.base, f.base_samples)},
            {"candidate", rate ? rate_json(f.candidate_rate) : side_json(f.candidate, f.candidate_samples)},
            {"ratio_p50", rate ? json(nullptr) : finite(f.ratio_p50)},
            {"ratio_p99", rate ? json(nullptr) : tail_json(f, o)},
            {"difference", rate ? json({{"value", f.judged.statistic}, {"interval", {f.judged.interval.low, f.judged.interval.high}},
                                        {"margin", o.rate_margin}})
                                : json(nullptr)},
            {"mann_whitney_p", json_or_null(f.judged.p_value)},
            {"ks_d", f.ks ? json(f.ks->d) : json(nullptr)},
            {"ks_p", f.ks ? json(f.ks->p) : json(nullptr)},
            {"ks_p_holm", f.ks ? json(f.ks_p_holm) : json(nullptr)},
            {"shape_changed", f.shape_changed},
            {"worse_p", f.judged.worse_p.value_or(1)},
            {"worse_p_holm", f.worse_p_holm},
            {"verdict", to_string(f.verdict)},
            {"need_more", json_or_null(f.need_more)},
            {"need_unit", f.need_unit},
            {"reason", f.reason},
            {"reason_messages", messages_json(f.reason_text)}};
  return j;
}

json input_json(const std::string& file, const std::string& kind, std::size_t requests, std::size_t probes) {
  return {{"file", file}, {"kind", kind}, {"requests", requests}, {"probes_left_out", probes}};
}

std::string cell(const char* pattern, double v) {
  if (!std::isfinite(v)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, v);
  return buf;
}

std::string figure_line(const FigureComparison& f) {
  char line[400];
  if (f.kind == FigureKind::Rate) {
    std::snprintf(line, sizeof line, "%-22s %6llu/%-6llu %6llu/%-6llu %6s  %+.2f points [%+.2f, %+.2f]", f.id.c_str(),
                  static_cast<unsigned long long>(f.base_rate.events), static_cast<unsigned long long>(f.base_rate.n),
                  static_cast<unsigned long long>(f.candidate_rate.events), static_cast<unsigned long long>(f.candidate_rate.n), "",
                  f.judged.statistic * 100, f.judged.interval.low * 100, f.judged.interval.high * 100);
  } else {
    bool higher = f.better == Better::Higher;
    double r = higher ? 1 / f.judged.statistic : f.judged.statistic;
    double lo = higher ? 1 / f.judged.interval.high : f.judged.interval.low, hi = higher ? 1 / f.judged.interval.low : f.judged.interval.high;
    std::string tail = f.judged.p_value ? cell("%.3f", r) + " [" + cell("%.3f", lo) + ", " + cell("%.3f", hi) + "]" + (higher ? " P1" : "")
                                        : "—";
    std::snprintf(line, sizeof line, "%-22s %13s %13s %6s  %-26s %9s %9s%s", f.id.c_str(), cell("%.4g", f.base.p50).c_str(),
                  cell("%.4g", f.candidate.p50).c_str(), cell("%.3f", f.ratio_p50).c_str(), tail.c_str(),
                  f.judged.p_value ? cell("%.2g", *f.judged.p_value).c_str() : "—", f.ks ? cell("%.2g", f.ks->p).c_str() : "—",
                  f.shape_changed ? " shape" : "");
  }
  std::string out = std::string(line) + "  " + to_string(f.verdict);
  if (f.verdict == CompareVerdict::Inconclusive)
    out += f.need_more ? " (need " + std::to_string(*f.need_more) + " more " + f.need_unit + " per side)" : " (no estimate)";
  return out + "\n";
}

}  // namespace compare_detail

std::string comparison_json(const Comparison& c) {
  using namespace compare_detail;
  json figures = json::array();
  for (const auto& f : c.figures) figures.push_back(figure_json(f, c.options));
  json j = {{"kind", "comparison"},
            {"schema_version", 1},
            {"base", input_json(c.base_file, c.base_kind, c.base_requests, c.base_probes)},
            {"candidate", input_json(c.candidate_file, c.candidate_kind, c.candidate_requests, c.candidate_probes)},
            {"verdict", to_string(c.verdict)},
            {"margin", c.options.margin},
            {"rate_margin", c.options.rate_margin},
            {"alpha", c.options.alpha},
            {"corrected", c.corrected},
            {"corrected_messages", messages_json(c.corrected_text)},
            {"need", c.need.empty() ? json(nullptr) : json(c.need)},
            {"need_messages", messages_json(c.need_text)},
            {"figures", figures},
            {"not_compared", c.not_compared}};
  return dump_json(j);
}

std::string comparison_text(const Comparison& c) {
  using namespace compare_detail;
  std::string out = "base:      " + c.base_file + " (" + c.base_kind + ", " + std::to_string(c.base_requests) + " requests)\n";
  out += "candidate: " + c.candidate_file + " (" + c.candidate_kind + ", " + std::to_string(c.candidate_requests) + " requests)\n";
  char line[300];
  std::snprintf(line, sizeof line,
                "margin %g %% (rates: %g points), family-wise alpha %g; corrected: Holm over %zu figures; probe streams left out\n\n",
                c.options.margin * 100, c.options.rate_margin * 100, c.options.alpha, c.figures.size());
  out += line;
  std::snprintf(line, sizeof line, "%-22s %13s %13s %6s  %-26s %9s %9s  %s\n", "figure", "base p50", "cand. p50", "ratio",
                "P99 ratio [95 % interval]", "shift p", "KS p", "verdict");
  out += line;
  for (const auto& f : c.figures) out += figure_line(f);
  for (const auto& n : c.not_compared) out += "not compared: " + n + "\n";
  out += std::string("\nverdict: ") + to_string(c.verdict);
  std::string worse;
  for (const auto& f : c.figures)
    if (f.verdict == CompareVerdict::Worse) worse += (worse.empty() ? "" : ", ") + f.id;
  if (!worse.empty()) out += " (" + worse + ")";
  if (!c.need.empty()) out += "; need " + c.need;
  return out + "\n";
}

}  // namespace anthro
