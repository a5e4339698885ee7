// A diagnosis as cli.md's JSON document and as one line per item for a person.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <system_error>

#include "diagnosis/diagnosis.h"
#include "metrics/request_json.h"
#include "metrics/stats.h"
#include "util/json.h"
#include "util/message_json.h"

namespace anthro {

using nlohmann::json;

namespace {

json sources_json(const std::vector<ProbeSource>& sources) {
  json out = json::array();
  for (ProbeSource s : sources) out.push_back(to_string(s));
  return out;
}

json ref_json(const EvidenceRef& r) {
  json j = {{"conn", r.conn}, {"stream_id", json_or_null(r.stream_id)}, {"request", json_or_null(r.request)},
            {"value", json_or_null(r.value)}, {"packets", nullptr}};
  if (r.packets) j["packets"] = {r.packets->first, r.packets->second};
  return j;
}

// At most this many samples go into the JSON per item: enough for a chart, not a dump.
constexpr std::size_t kMaxSamples = 2000;

json cause_json(const CauseLink& c) { return {{"id", c.id}, {"evidence", c.why}, {"evidence_messages", messages_json(c.why_text)}}; }

json item_json(const ItemResult& r, const ChecklistItem* item, std::string_view lang) {
  json refs = json::array();
  for (const auto& ref : r.refs) refs.push_back(ref_json(ref));
  std::vector<double> samples = r.samples;
  if (samples.size() > kMaxSamples) {  // evenly thinned; the statistic was computed on all of them
    std::vector<double> thin;
    for (std::size_t i = 0; i < kMaxSamples; ++i) thin.push_back(samples[i * samples.size() / kMaxSamples]);
    samples.swap(thin);
  }
  json j = {{"id", r.id},
            {"verdict", to_string(r.verdict)},
            {"evidence", r.reason},
            {"evidence_messages", messages_json(r.reason_text)},
            {"n", r.n},
            {"need_more", r.need_more},
            {"threshold", r.threshold},
            {"threshold_messages", messages_json(r.threshold_text)},
            {"statistic_name", r.statistic_name},
            {"statistic", json_or_null(r.statistic)},
            {"unit", r.unit},
            {"sources", sources_json(r.sources)},
            {"refs", refs},
            {"samples", samples},
            {"samples_total", r.samples.size()},  // before thinning: a chart says how many it draws of them
            {"note", r.note}};
  if (r.caused_by) j["caused_by"] = cause_json(*r.caused_by);
  if (item) {
    j["title"] = item->title.in(lang);
    j["remedy"] = item->remedy.in(lang);
  }
  return j;
}

json connection_json(const Observations& o, std::size_t index) {
  const ObservedConnection& c = o.connections[index];
  json streams = json::array();
  for (const auto& q : o.requests)
    if (q.connection == index) streams.push_back(request_json(q.record(), {.text = true, .itl_samples = true}));
  return {{"conn", c.name},      {"alpn", c.alpn.empty() ? json(nullptr) : json(c.alpn)}, {"anthro", c.anthro},
          {"opened", json_or_null(c.opened)}, {"closed", json_or_null(c.closed)}, {"streams", streams}};
}

json system_json(const SystemState& s) {
  if (!s.probed) return nullptr;
  return {{"openssl", s.openssl_text},    {"governors", s.governors},   {"cpu_mhz", json_or_null(s.cpu_mhz)},
          {"nic_interfaces", s.nic_interfaces}, {"clock_offset_ms", json_or_null(s.clock_offset_ms)},
          {"rmem_max", json_or_null(s.rmem_max)},  {"wmem_max", json_or_null(s.wmem_max)}, {"problems", s.problems}};
}

// cli.md's `findings` (the items that warn or fail) and `checklist` (every item).
AnalysisVerdicts verdicts_json(const Diagnosis& d, std::string_view lang, const Checklist* checklist) {
  json findings = json::array(), items = json::array();
  for (const auto& r : d.items) {
    const ChecklistItem* item = checklist ? checklist->item(r.id) : nullptr;
    items.push_back(item_json(r, item, lang));
    if (r.verdict != Verdict::Warn && r.verdict != Verdict::Fail) continue;
    json finding = {{"id", r.id}, {"verdict", to_string(r.verdict)}, {"evidence", r.reason}, {"evidence_messages", messages_json(r.reason_text)},
                    {"conn", r.refs.empty() ? json(nullptr) : json(r.refs.front().conn)}};
    if (r.caused_by) finding["caused_by"] = cause_json(*r.caused_by);
    findings.push_back(std::move(finding));
  }
  return {findings.dump(), items.dump()};
}

}  // namespace

std::string diagnosis_json(const Diagnosis& d, std::string_view lang, const Checklist* checklist) {
  const Observations& o = d.observations;
  json connections = json::array();
  for (std::size_t i = 0; i < o.connections.size(); ++i) connections.push_back(connection_json(o, i));
  std::vector<double> ttft;
  std::size_t requests = 0;
  for (const auto& q : o.requests)
    if (!q.record().probe && q.record().timeline.request_written > 0) {
      ++requests;
      if (q.record().figures.ttft_ms) ttft.push_back(*q.record().figures.ttft_ms);
    }
  AnalysisVerdicts verdicts = verdicts_json(d, lang, checklist);
  json doc = {{"kind", "diagnosis"},
              {"schema_version", Diagnosis::kSchemaVersion},
              {"checklist_id", d.checklist_id},
              {"checklist_origin", d.checklist_origin},
              {"sources", sources_json(d.sources)},
              {"target", o.target.empty() ? json(nullptr) : json(o.target)},
              {"capture", o.capture_file.empty() ? json(nullptr) : json(o.capture_file)},
              {"verdict", to_string(d.worst())},
              {"connections", connections},
              {"summary", {{"requests", requests}, {"ttft_ms", summary_json(summarize(ttft))}}},
              {"findings", json::parse(verdicts.findings)},
              {"checklist", json::parse(verdicts.checklist)},
              {"system", system_json(o.system)},
              {"warnings", json::array()},
              {"warning_messages", json::array()}};
  for (const auto& w : d.warnings) {
    doc["warnings"].push_back(render(w));
    doc["warning_messages"].push_back(messages_json(w));
  }
  return dump_json(doc);
}

std::string item_reason(const ItemResult& r, std::string_view lang) {
  return lang == "en" ? r.reason : render(r.reason_text, lang, r.reason);
}

std::string cause_why(const CauseLink& c, std::string_view lang) { return lang == "en" ? c.why : render(c.why_text, lang, c.why); }

std::string diagnosis_text(const Diagnosis& d, const Checklist& checklist, std::string_view lang) {
  std::string out;
  char line[256];
  for (const auto& r : d.items) {
    const ChecklistItem* item = checklist.item(r.id);
    std::snprintf(line, sizeof line, "%-12s %-22s ", to_string(r.verdict), r.id.c_str());
    out += line + item_reason(r, lang);
    if (r.n) out += " (n=" + std::to_string(r.n) + ")";
    out += "\n";
    if (r.caused_by)
      out += "             " + render(Message("text.caused_by", {{"cause", r.caused_by->id}, {"why", cause_why(*r.caused_by, lang)}}), lang) + "\n";
    if (item && (r.verdict == Verdict::Warn || r.verdict == Verdict::Fail))
      out += "             " + render(Message("text.remedy", {{"remedy", item->remedy.in(lang)}}), lang) + "\n";
  }
  for (const auto& w : d.warnings) out += render(Message("text.warning").with("warning", w), lang) + "\n";
  return out;
}

Diagnosis diagnose_analysis(const CaptureAnalysis& analysis, const Checklist& checklist) {
  Diagnosis d = evaluate(checklist, observe_capture(analysis, false));  // moved in, not copied
  // They borrow the analysis's records, which the caller may let go before the diagnosis.
  d.observations = {};
  return d;
}

void write_analyze_json(const CaptureAnalysis& analysis, const Checklist& checklist, std::ostream& out) {
  auto verdicts = [&] { return verdicts_json(diagnose_analysis(analysis, checklist), "en", &checklist); };
  if (analysis.threads <= 1) {  // one thread asked for: no other
    write_analysis_json(analysis, out, verdicts());
    return;
  }
  // The findings come last in the document: made while the connections are written, on a core
  // their rendering leaves free (or after them, past the process's thread limit).
  std::future<AnalysisVerdicts> made;
  try {
    made = std::async(std::launch::async, verdicts);
  } catch (const std::system_error&) {
    made = std::async(std::launch::deferred, verdicts);
  }
  write_analysis_json(analysis, out, [&] { return made.get(); });
}

std::string analyze_text(const CaptureAnalysis& analysis, const Diagnosis& d, const Checklist& checklist) {
  std::string out = analysis_text(analysis) + "findings (" + checklist.id + "):";
  std::size_t found = 0;
  for (const auto& r : d.items) {
    if (r.verdict != Verdict::Warn && r.verdict != Verdict::Fail) continue;
    out += std::string(found++ ? "" : "\n") + "  " + to_string(r.verdict) + " " + r.id + ": " + r.reason;
    if (!r.refs.empty()) out += " (" + r.refs.front().conn + ")";
    out += "\n";
    if (r.caused_by) out += "    caused by " + r.caused_by->id + ": " + r.caused_by->why + "\n";
    if (const ChecklistItem* item = checklist.item(r.id)) out += "    remedy: " + item->remedy.in("en") + "\n";
  }
  if (!found) out += " none\n";
  return out;
}

}  // namespace anthro

namespace anthro {

std::string diagnosis_prometheus(const Diagnosis& d, const PrometheusLabels& labels) {
  PrometheusLabels base = labels;
  base.emplace_back("checklist", d.checklist_id);
  PrometheusText out;
  out.family("anthro_wb_diagnose_item_verdict", MetricType::Gauge, "Each checklist item's verdict, as a state set.");
  for (const ItemResult& item : d.items) {
    PrometheusLabels with = base;
    with.emplace_back("item", item.id);
    write_verdict_state(out, "anthro_wb_diagnose_item_verdict", with, item.verdict);
  }
  out.family("anthro_wb_diagnose_item_samples", MetricType::Gauge, "Samples behind each item's statistic.");
  for (const ItemResult& item : d.items) {
    PrometheusLabels with = base;
    with.emplace_back("item", item.id);
    out.sample("anthro_wb_diagnose_item_samples", with, static_cast<double>(item.n));
  }
  out.family("anthro_wb_diagnose_items", MetricType::Gauge, "Checklist items by verdict.");
  for (Verdict v : kVerdicts) {
    PrometheusLabels with = base;
    with.emplace_back("verdict", to_string(v));
    auto n = std::count_if(d.items.begin(), d.items.end(), [v](const ItemResult& i) { return i.verdict == v; });
    out.sample("anthro_wb_diagnose_items", with, static_cast<double>(n));
  }
  return out.text();
}

}  // namespace anthro
