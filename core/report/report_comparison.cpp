// A comparison (`anthro-wb compare`) as a report: the verdict and what more is needed, a verdict
// table per figure, and the two sides overlaid — TTFT as CDFs, ITL as histograms.
#include <cmath>

#include "report/report_builder.h"

namespace anthro::report_detail {
namespace {

std::vector<double> samples_of(const json& side) {
  std::vector<double> out;
  if (side.is_object() && side.contains("samples") && side["samples"].is_array())
    for (const auto& v : side["samples"])
      if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

std::string side_text(const json& side) {
  if (!side.is_object()) return "—";
  if (side.contains("events")) return Builder::num(side.value("events", json(nullptr))) + "/" + Builder::num(side.value("n", json(nullptr)));
  return Builder::num(side.value("p50", json(nullptr))) + " / " + Builder::num(side.value("p99", json(nullptr)));
}

std::string effect_text(const json& f) {
  const json& tail = f.value("ratio_p99", json(nullptr));
  if (tail.is_object()) {
    const json& iv = tail.value("interval", json::array());
    return Builder::num(tail.value("value", json(nullptr)), 4) + " [" + (iv.size() == 2 ? Builder::num(iv[0], 4) : "—") + ", " +
           (iv.size() == 2 ? Builder::num(iv[1], 4) : "—") + "] " + str(tail, "tail");
  }
  const json& d = f.value("difference", json(nullptr));
  if (!d.is_object()) return "—";
  const json& iv = d.value("interval", json::array());
  return Builder::num(d.value("value", json(nullptr)), 3) + " [" + (iv.size() == 2 ? Builder::num(iv[0], 3) : "—") + ", " +
         (iv.size() == 2 ? Builder::num(iv[1], 3) : "—") + "]";
}

// Two narrow tables rather than one wide one (a PDF page holds about six columns): the verdicts
// with their effect and what is still needed, then the shift and the shape.
std::vector<ReportTable> verdict_tables(Builder& b, const json& figures) {
  ReportTable verdicts, tests;
  verdicts.columns = {b.tr("Figure"), b.tr("Verdict"), b.tr("Baseline") + " p50 / p99", b.tr("Candidate") + " p50 / p99",
                      b.tr("Tail ratio or difference"), b.tr("Need more")};
  tests.columns = {b.tr("Figure"), b.tr("Ratio of medians"), b.tr("Shift p"), b.tr("Shape (KS p)")};
  for (const auto& f : figures) {
    std::string need = f.value("need_more", json(nullptr)).is_number() && f["need_more"].get<double>() > 0
                           ? Builder::num(f["need_more"]) + " " + b.tr(str(f, "need_unit"))
                           : "";
    verdicts.rows.push_back({report_code(str(f, "id")), b.tr(str(f, "verdict")), side_text(f.value("base", json(nullptr))),
                             side_text(f.value("candidate", json(nullptr))), effect_text(f), need});
    if (str(f, "kind") == "rate") continue;
    std::string shape = Builder::num(f.value("ks_p", json(nullptr)), 3) + (f.value("shape_changed", false) ? " " + b.tr("changed") : "");
    tests.rows.push_back({report_code(str(f, "id")), Builder::num(f.value("ratio_p50", json(nullptr)), 4),
                          Builder::num(f.value("mann_whitney_p", json(nullptr)), 3), shape});
  }
  return {std::move(verdicts), std::move(tests)};
}

// TTFT's two CDFs and ITL's two histograms, drawn by the app's own latency charts.
std::vector<std::size_t> overlaid_charts(Builder& b, const json& figures) {
  std::vector<std::size_t> ids;
  for (const auto& f : figures) {
    std::string id = str(f, "id");
    if (id != "ttft_ms" && id != "itl_ms") continue;
    std::vector<ChartSeries> series(2);
    series[0].name = b.tr("baseline");
    series[1].name = b.tr("candidate");
    const char* sides[] = {"base", "candidate"};
    std::size_t points = 0;
    for (int s = 0; s < 2; ++s) {
      std::vector<double> samples = samples_of(f.value(sides[s], json(nullptr)));
      points += samples.size();
      if (id == "itl_ms") series[s].requests.push_back({0, std::nullopt, std::nullopt, std::move(samples)});
      else
        for (double v : samples) series[s].requests.push_back({static_cast<double>(series[s].requests.size()), v, std::nullopt, {}});
    }
    if (points == 0) continue;
    ReportChart c;
    c.kind = id == "ttft_ms" ? ChartKind::TtftCdf : ChartKind::ItlHistogram;
    c.title = b.tr(id == "ttft_ms" ? "TTFT CDF" : "ITL histogram");
    c.series = std::move(series);
    c.points = c.drawn = points;
    ids.push_back(b.add_chart(std::move(c)));
  }
  return ids;
}

}  // namespace

void build_comparison(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  const std::string verdict = str(d, "verdict");
  doc.title = b.tr("Comparison") + ": " + b.tr(verdict);
  doc.verdict = comparison_verdict(verdict);
  const json& figures = d.value("figures", json::array());
  std::string worse;
  for (const auto& f : figures)
    if (str(f, "verdict") == "worse") worse += (worse.empty() ? "" : ", ") + report_code(str(f, "id"));
  doc.summary.push_back(b.tr(verdict) + (worse.empty() ? "" : " — " + worse));
  if (!str(d, "need").empty()) doc.summary.push_back(b.tr("Still needed") + ": " + str(d, "need"));
  ReportSection s;
  s.heading = b.tr("Figures");
  s.verdict = doc.verdict;
  const json& base = d.value("base", json::object());
  const json& candidate = d.value("candidate", json::object());
  b.fact(s, "Baseline", report_code(str(base, "file")) + " (" + str(base, "kind") + ", " + Builder::num(base.value("requests", json(nullptr))) + " " + b.tr("requests") + ")");
  b.fact(s, "Candidate", report_code(str(candidate, "file")) + " (" + str(candidate, "kind") + ", " + Builder::num(candidate.value("requests", json(nullptr))) + " " + b.tr("requests") + ")");
  b.fact(s, "Margin", Builder::num(d.value("margin", json(nullptr)), 4) + "; " + b.tr("rates") + " " + Builder::num(d.value("rate_margin", json(nullptr)), 4));
  b.fact(s, "Corrected", str(d, "corrected"));
  for (auto& t : verdict_tables(b, figures)) s.tables.push_back(b.capped(std::move(t)));
  for (const auto& f : figures) s.paragraphs.push_back(report_code(str(f, "id")) + ": " + str(f, "reason"));
  for (const auto& n : d.value("not_compared", json::array()))
    if (n.is_string()) s.paragraphs.push_back(b.tr("Not compared") + ": " + n.get<std::string>());
  doc.sections.push_back(std::move(s));
  ReportSection charts;
  charts.heading = b.tr("Charts");
  charts.charts = overlaid_charts(b, figures);
  if (!charts.charts.empty()) doc.sections.push_back(std::move(charts));
}

}  // namespace anthro::report_detail

namespace anthro {

Verdict comparison_verdict(const std::string& verdict) {
  if (verdict == "no_worse") return Verdict::Pass;
  if (verdict == "worse") return Verdict::Fail;
  return Verdict::Inconclusive;
}

}  // namespace anthro
