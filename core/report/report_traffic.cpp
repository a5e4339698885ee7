// The traffic of a result — connections, streams, requests — as report tables and the app's four
// latency charts; and the session, bench and analysis results, which are mostly traffic.
#include <algorithm>
#include <limits>

#include "report/report_builder.h"

namespace anthro::report_detail {
namespace {

std::optional<double> opt(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? std::optional<double>(o[key].get<double>()) : std::nullopt;
}

bool is_probe(const json& s) { return s.contains("probe") && s["probe"].is_string(); }

// The time charts' zero: the earliest request sent, so no request is drawn before it whatever
// order the records are in (a merge keeps its files' order).
double first_sent(const std::vector<const json*>& records) {
  double t0 = std::numeric_limits<double>::infinity();
  for (const json* r : records) t0 = std::min(t0, opt(*r, "sent_s").value_or(t0));
  return std::isfinite(t0) ? t0 : 0;
}

// Merged results' requests name the file they came from: stream numbers repeat across them.
bool any_worker(const json& streams) {
  return std::any_of(streams.begin(), streams.end(), [](const json& s) { return !str(s, "worker").empty(); });
}

}  // namespace

ChartSeries Builder::series(const std::string& name, const std::vector<const json*>& streams, double t0) {
  ChartSeries out;
  out.name = name;
  for (const json* s : streams) {
    if (is_probe(*s)) continue;
    ChartRequest r;
    r.t_s = opt(*s, "sent_s").value_or(t0) - t0;
    r.ttft_ms = opt(*s, "ttft_ms");
    r.tokens_per_s = opt(*s, "tokens_per_s");
    if (s->contains("itl_ms") && (*s)["itl_ms"].is_array())
      for (const auto& v : (*s)["itl_ms"])
        if (v.is_number()) r.itl_ms.push_back(v.get<double>());
    out.requests.push_back(std::move(r));
  }
  std::stable_sort(out.requests.begin(), out.requests.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
  return out;
}

namespace {

// Every k-th request in time order, so a long run keeps its shape (and its tail in proportion)
// in a chart a reader's viewer can open; the tables and the JSON keep every request.
ChartSeries thinned(const ChartSeries& s, std::size_t max_points) {
  if (s.requests.size() <= max_points || max_points == 0) return s;
  ChartSeries out;
  out.name = s.name;
  for (std::size_t i = 0; i < max_points; ++i) out.requests.push_back(s.requests[i * s.requests.size() / max_points]);
  return out;
}

}  // namespace

std::vector<std::size_t> Builder::latency_charts(const std::vector<ChartSeries>& all) {
  std::vector<std::size_t> ids;
  std::size_t points = 0, itl = 0, drawn = 0;
  std::vector<ChartSeries> series;
  for (const auto& s : all) {
    points += s.requests.size();
    for (const auto& r : s.requests) itl += r.itl_ms.size();
    series.push_back(thinned(s, o_.max_chart_points));
    drawn += series.back().requests.size();
  }
  if (points == 0) return ids;
  const std::pair<ChartKind, const char*> charts[] = {{ChartKind::TtftOverTime, "TTFT over time"},
                                                      {ChartKind::TtftCdf, "TTFT CDF"},
                                                      {ChartKind::TokenRate, "Token rate"},
                                                      {ChartKind::ItlHistogram, "ITL histogram"}};
  for (const auto& [kind, title] : charts) {
    if (kind == ChartKind::ItlHistogram && itl == 0) continue;  // the result kept no ITL samples
    ReportChart c;
    c.kind = kind;
    c.title = tr(title);
    c.series = series;
    c.points = points;
    c.drawn = drawn;
    ids.push_back(add_chart(std::move(c)));
  }
  return ids;
}

ReportTable Builder::streams_table(const json& streams) const {
  ReportTable t;
  t.columns = {tr("Stream"), tr("TTFT"), tr("E2E"), tr("Tokens"), tr("Tokens/s"), tr("Mean ITL"), tr("Stop reason"), tr("End")};
  const bool workers = any_worker(streams);
  if (workers) t.columns.insert(t.columns.begin(), tr("Worker"));
  for (const auto& s : streams) {
    std::string end = str(s, "end");
    if (!str(s, "error").empty()) end += ": " + str(s, "error");
    t.rows.push_back({num(s.value("stream_id", json(nullptr))) + (is_probe(s) ? " (" + report_code(str(s, "probe")) + ")" : ""),
                      num(s.value("ttft_ms", json(nullptr)), 4, "ms"), num(s.value("e2e_ms", json(nullptr)), 4, "ms"),
                      num(s.value("tokens", json(nullptr))), num(s.value("tokens_per_s", json(nullptr)), 4),
                      num(s.value("mean_itl_ms", json(nullptr)), 3, "ms"), report_code(str(s, "stop_reason")), end});
    if (workers) t.rows.back().insert(t.rows.back().begin(), str(s, "worker"));
  }
  return capped(std::move(t));
}

ReportSection Builder::connection_section(const json& c) const {
  ReportSection s;
  s.heading = tr("Connection") + " " + report_code(str(c, "conn"));
  fact(s, "Transport", str(c, "transport"));
  fact(s, "ALPN", report_code(str(c, "alpn")));
  fact(s, "Suite", report_code(str(c, "suite")));
  fact(s, "TLS suite", report_code(str(c, "tls_suite")));
  fact(s, "Decryption", str(c, "decryption"));
  if (c.contains("connect_ms") && c["connect_ms"].is_number()) fact(s, "Connect", num(c["connect_ms"], 4, "ms"));
  if (c.contains("handshake_ms") && c["handshake_ms"].is_number()) fact(s, "Handshake", num(c["handshake_ms"], 4, "ms"));
  if (c.contains("frames")) fact(s, "Frames", num(c["frames"]) + (c.contains("frames_opened") ? " (" + tr("Frames opened") + " " + num(c["frames_opened"]) + ")" : ""));
  if (c.contains("tcp") && c["tcp"].is_object()) {
    ReportTable tcp;
    tcp.columns = {tr("TCP health"), ""};
    const std::pair<const char*, const char*> rows[] = {
        {"retransmissions", "Retransmissions"}, {"out_of_order", "Out of order"}, {"zero_window_events", "Zero windows"},
        {"zero_window_ms", "Zero window time"}, {"gaps", "Gaps"}, {"bad_checksums", "Bad checksums"},
        {"duplicate_acks", "Duplicate ACKs"}};
    for (const auto& [key, label] : rows)
      if (c["tcp"].contains(key)) tcp.rows.push_back({tr(label), num(c["tcp"][key], 4, std::string(key) == "zero_window_ms" ? "ms" : "")});
    s.tables.push_back(std::move(tcp));
  }
  if (c.contains("streams") && c["streams"].is_array() && !c["streams"].empty()) s.tables.push_back(streams_table(c["streams"]));
  return s;
}

void Builder::traffic(const json& connections) {
  std::vector<const json*> anthro, http;
  double t0 = std::numeric_limits<double>::infinity();
  ReportSection section;
  section.heading = tr("Connections");
  // A connection each, and all their stream rows together, within the table budget: a capture
  // of 10^5 streams stays a readable report, the rest counted and left in the JSON.
  const std::size_t max_connections = std::max<std::size_t>(o_.max_table_rows / 4, 1);
  std::size_t shown = 0, rows_left = o_.max_table_rows;
  for (const auto& c : connections) {
    if (!c.is_object()) continue;
    if (shown++ < max_connections) {
      ReportSection s = connection_section(c);
      for (auto& t : s.tables)
        if (std::count(t.columns.begin(), t.columns.end(), tr("Stream"))) {
          std::size_t keep = std::min(rows_left, t.rows.size());
          t.more += t.rows.size() - keep;
          t.rows.resize(keep);
          rows_left -= keep;
        }
      section.children.push_back(std::move(s));
    }
    if (!c.contains("streams") || !c["streams"].is_array()) continue;
    bool is_http = str(c, "transport") == "http" || (c.contains("anthro") && c["anthro"] == false);
    for (const auto& s : c["streams"]) {  // pointers kept: the document's own elements, not a copy
      (is_http ? http : anthro).push_back(&s);
      if (auto t = opt(s, "sent_s"); t && !is_probe(s)) t0 = std::min(t0, *t);
    }
  }
  if (shown > max_connections) {
    std::string more = tr("%1 more rows in the JSON");
    more.replace(more.find("%1"), 2, std::to_string(shown - max_connections));
    section.paragraphs.push_back(more);
  }
  if (!std::isfinite(t0)) t0 = 0;
  std::vector<ChartSeries> series;
  if (!anthro.empty()) series.push_back(Builder::series(tr(http.empty() ? "requests" : "anthro-v1"), anthro, t0));
  if (!http.empty()) series.push_back(Builder::series(tr(anthro.empty() ? "requests" : "HTTP"), http, t0));
  ReportSection charts;
  charts.heading = tr("Charts");
  charts.charts = latency_charts(series);
  if (!charts.charts.empty()) doc_.sections.push_back(std::move(charts));
  doc_.sections.push_back(std::move(section));
}

void Builder::warnings(const json& d) {
  if (!d.contains("warnings") || !d["warnings"].is_array() || d["warnings"].empty()) return;
  ReportSection w;
  w.heading = tr("Warnings");
  const json& lines = d["warnings"];
  // Each in the report's language where the result kept its messages (a diagnosis's).
  const json messages = d.value("warning_messages", json::array());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].is_string()) continue;
    const bool rendered = messages.is_array() && i < messages.size() && lines.size() == messages.size();
    w.paragraphs.push_back(rendered ? text(json{{"w", lines[i]}, {"w_messages", messages[i]}}, "w") : lines[i].get<std::string>());
  }
  doc_.sections.push_back(std::move(w));
}

void build_session(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  doc.title = b.tr("Live session");
  json conn = d;
  conn["conn"] = str(d, "target");
  conn["streams"] = d.value("requests", json::array());
  ReportSection facts = b.connection_section(conn);
  facts.heading = b.tr("Connection");
  if (const json& w = d.value("workers", json::array()); w.is_array() && !w.empty())  // a merge: whose connection it is
    facts.facts.insert(facts.facts.begin(), {b.tr("Worker"), str(w[0], "file")});
  if (!str(d, "error").empty()) b.fact(facts, "Error", str(d, "error"));
  doc.summary.push_back(std::to_string(conn["streams"].size()) + " " + b.tr("requests") + ", " + str(d, "transport") +
                        (str(d, "alpn").empty() ? "" : ", " + str(d, "alpn")));
  std::vector<const json*> streams;
  for (const auto& s : conn["streams"]) streams.push_back(&s);
  ReportSection charts;
  charts.heading = b.tr("Charts");
  charts.charts = b.latency_charts({Builder::series(b.tr("requests"), streams, first_sent(streams))});
  doc.sections.push_back(std::move(facts));
  if (!charts.charts.empty()) doc.sections.push_back(std::move(charts));
  b.warnings(d);  // a merge's, and the session's own
}

void build_bench(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  doc.title = b.tr("Load benchmark");
  ReportSection s;
  s.heading = b.tr("Summary");
  b.fact(s, "Target", report_code(str(d, "target")));
  b.fact(s, "Requests", Builder::num(d.value("requests", json(nullptr))));
  b.fact(s, "Duration", Builder::num(d.value("duration_s", json(nullptr)), 4, "s"));
  b.fact(s, "Tokens per second", Builder::num(d.value("tokens_per_s", json(nullptr)), 5));
  b.fact(s, "Goodput per second", Builder::num(d.value("goodput_per_s", json(nullptr)), 5));
  ReportTable latency;
  latency.columns = {b.tr("Metric"), "n", "p50", "p90", "p95", "p99", "mean", "stddev"};
  const json& summary = d.value("summary", json::object());
  for (const char* metric : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
    if (!summary.is_object() || !summary.contains(metric) || !summary[metric].is_object()) continue;
    const json& m = summary[metric];
    std::vector<std::string> row = {metric};
    for (const char* f : {"n", "p50", "p90", "p95", "p99", "mean", "stddev"}) row.push_back(Builder::num(m.value(f, json(nullptr))));
    latency.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(latency));
  const json& errors = d.value("errors", json::object());
  if (errors.is_object() && !errors.empty()) {
    ReportTable e;
    e.columns = {b.tr("Errors"), "n"};
    for (const auto& [key, n] : errors.items()) e.rows.push_back({report_code(key), Builder::num(n)});
    s.tables.push_back(std::move(e));
  }
  doc.summary.push_back(Builder::num(d.value("requests", json(nullptr))) + " " + b.tr("requests") + ", " +
                        Builder::num(d.value("tokens_per_s", json(nullptr)), 5) + " " + b.tr("Tokens per second"));
  doc.sections.push_back(std::move(s));
  if (d.contains("records") && d["records"].is_array()) {  // a bench saved with its per-request records
    std::vector<const json*> records;
    for (const auto& r : d["records"]) records.push_back(&r);
    ReportSection charts;
    charts.heading = b.tr("Charts");
    charts.charts = b.latency_charts({Builder::series(b.tr("requests"), records, first_sent(records))});
    if (!charts.charts.empty()) doc.sections.push_back(std::move(charts));
  }
}

void build_analysis(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  doc.title = b.tr("Capture analysis");
  const json& summary = d.value("summary", json::object());
  doc.summary.push_back(Builder::num(d.value("packets", json(nullptr))) + " " + b.tr("Packets") + ", " +
                        std::to_string(d.value("connections", json::array()).size()) + " " + b.tr("Connections") + ", " +
                        Builder::num(summary.is_object() ? summary.value("requests", json(nullptr)) : json(nullptr)) + " " +
                        b.tr("requests"));
  std::vector<std::pair<Verdict, std::string>> findings;
  for (const auto& f : d.value("findings", json::array())) {
    Verdict v = parse_verdict(str(f, "verdict")).value_or(Verdict::Inconclusive);
    findings.emplace_back(v, b.verdict(v) + " — " + report_code(str(f, "id")) + ": " + b.text(f, "evidence"));
    if (!doc.verdict || severity(v) > severity(*doc.verdict)) doc.verdict = v;
  }
  std::stable_sort(findings.begin(), findings.end(), [](const auto& a, const auto& c) { return severity(a.first) > severity(c.first); });
  for (auto& [v, line] : findings) doc.summary.push_back(std::move(line));
  if (d.contains("connections") && d["connections"].is_array()) b.traffic(d["connections"]);
  b.warnings(d);
}

}  // namespace anthro::report_detail
