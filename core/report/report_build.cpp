// build_report: a result file read, checked, redacted and handed to its kind's builder, with
// the environment every report opens with. Diagnosis and rollout results are built here.
#include <openssl/crypto.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <ctime>
#include <memory>
#include <thread>

#include "crypto/hash.h"
#include "report/redact.h"
#include "report/report_builder.h"
#include "util/bytes.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

const char* const kKinds[] = {"session", "bench", "analysis", "diagnosis", "rollout", "comparison"};
const char* const kCharts[] = {"ttft-over-time", "token-rate", "itl-histogram", "ttft-cdf", "gate-forest", "distribution"};

std::optional<ResultKind> parse_kind(const std::string& s) {
  for (std::size_t i = 0; i < std::size(kKinds); ++i)
    if (s == kKinds[i]) return static_cast<ResultKind>(i);
  return std::nullopt;
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string machine() {
  utsname u{};
  uname(&u);
  return std::string(u.sysname) + " " + u.release + " " + u.machine + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " CPUs";
}

// The SHA-256 of the file a result was measured on, read in blocks (captures run to gigabytes);
// empty when it cannot be read here. The path comes from the result file, so it may name a FIFO
// or /dev/zero: regular files only.
std::string file_sha256(const std::string& path) {
  auto fd = open_regular_file(path);
  if (!fd) return {};
  std::unique_ptr<int, void (*)(int*)> closer(&*fd, [](int* f) { ::close(*f); });
  Sha256 digest;
  std::vector<std::uint8_t> block(1 << 20);
  for (ssize_t n; (n = ::read(*fd, block.data(), block.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {};
    digest.update(ByteView(block).first(static_cast<std::size_t>(n)));
  }
  return to_hex(digest.finish());
}

void environment(report_detail::Builder& b, const json& d) {
  auto& env = b.doc().environment;
  auto add = [&](const std::string& label, const std::string& value) {
    if (!value.empty()) env.emplace_back(b.tr(label), value);
  };
  add("Workbench", std::string("anthro-v1 Workbench ") + ANTHRO_VERSION);
  add("Result file", report_code(b.options().origin));
  if (d.contains("target") && d["target"].is_string()) add("Target", report_code(d["target"].get<std::string>()));
  if (d.contains("baseline") && d["baseline"].is_string()) add("Baseline", report_code(d["baseline"].get<std::string>()));
  if (d.contains("candidate") && d["candidate"].is_string()) add("Candidate", report_code(d["candidate"].get<std::string>()));
  for (const char* key : {"capture", "file"})
    if (d.contains(key) && d[key].is_string()) {
      std::string path = d[key].get<std::string>();
      std::string hash = file_sha256(path);
      add("Capture file", report_code(path));
      add("Capture SHA-256", hash.empty() ? b.tr("not readable here") : report_code(hash));
    }
  add("Report written", now_utc());
  add("Machine", machine());
  add("OpenSSL", OpenSSL_version(OPENSSL_VERSION));
  for (const auto& [label, value] : b.options().environment) add(label, value);
}

}  // namespace

const char* to_string(ResultKind k) { return kKinds[static_cast<int>(k)]; }
const char* to_string(ChartKind k) { return kCharts[static_cast<int>(k)]; }

const std::vector<std::string>& report_labels() {
  static const std::vector<std::string> labels = {
      // verdicts
      "pass", "warn", "fail", "inconclusive", "manual",
      // the frame of every report
      "Summary", "Environment", "Redacted", "Workbench", "Result file", "Target", "Baseline", "Candidate",
      "Capture file", "Capture SHA-256", "not readable here", "Report written", "Machine", "OpenSSL", "Qt",
      "Verdict", "Charts", "%1 more rows in the JSON", "nothing was redacted",
      // charts
      "TTFT over time", "Token rate", "ITL histogram", "TTFT CDF", "Gates against their thresholds",
      "TTFT of both arms", "requests", "baseline", "candidate", "anthro-v1", "HTTP",
      // traffic
      "Connections", "Connection", "Transport", "ALPN", "Suite", "TLS suite", "Decryption", "Connect",
      "Handshake", "TCP health", "Retransmissions", "Out of order", "Zero windows", "Zero window time", "Gaps",
      "Bad checksums", "Duplicate ACKs", "Frames", "Frames opened", "Stream", "TTFT", "E2E", "Tokens",
      "Tokens/s", "Mean ITL", "Stop reason", "End", "Error", "Requests", "Warnings",
      // diagnosis
      "Latency diagnosis", "Checklist", "Sources", "Statistic", "Samples", "Need more", "Threshold", "Evidence",
      "Remedy", "Note", "Findings", "%1 items: %2", ", ", "System", "Caused by", "caused by %1",
      // rollout
      "Grayscale rollout", "Plan", "State", "Stage", "Mode", "Split", "Gate", "Interval", "Reason",
      "Promoted by a person while inconclusive", "Still needed", "Rollback", "Rollback time",
      "Candidate sockets left", "Descriptors before and after", "Served by the baseline after the switch",
      "passed", "failed", "paused", "rolled_back",
      // session, bench, analysis
      "Live session", "Load benchmark", "Capture analysis", "Duration", "Tokens per second", "Goodput per second",
      "Errors", "Latency summary", "Metric", "Packets", "TCP segments", "Negotiation",
      // comparison
      "Comparison", "Figures", "Figure", "Ratio of medians", "Tail ratio or difference", "Shift p", "Shape (KS p)",
      "changed", "Margin", "rates", "Corrected", "Not compared", "no_worse", "worse", "samples",
      // merged results
      "Worker"};
  return labels;
}

namespace report_detail {

std::string Builder::tr(const std::string& english) const {
  if (!o_.translate) return english;
  std::string t = o_.translate(english);
  return t.empty() ? english : t;
}

std::string Builder::fixed(double v, int decimals, const std::string& unit) {
  if (!std::isfinite(v)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return unit.empty() ? buf : std::string(buf) + " " + unit;
}

std::string Builder::num(const json& v, int digits, const std::string& unit) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (!v.is_number()) return "—";
  if (v.is_number_integer()) return dump_json(v) + (unit.empty() ? "" : " " + unit);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v.get<double>());
  return unit.empty() ? buf : std::string(buf) + " " + unit;
}

std::size_t Builder::add_chart(ReportChart chart) {
  chart.id = std::to_string(doc_.charts.size() + 1) + "-" + to_string(chart.kind);
  doc_.charts.push_back(std::move(chart));
  return doc_.charts.size() - 1;
}

ReportTable Builder::capped(ReportTable t) const {
  if (t.rows.size() > o_.max_table_rows) {
    t.more = t.rows.size() - o_.max_table_rows;
    t.rows.resize(o_.max_table_rows);
  }
  return t;
}

namespace {

Verdict verdict_of(const json& o, const char* key = "verdict") {
  return parse_verdict(str(o, key)).value_or(Verdict::Inconclusive);
}

// An item's caused_by object (diagnosis.schema.json), when it has one.
const json* cause_of(const json& item) {
  auto found = item.find("caused_by");
  return found != item.end() && found->is_object() ? &*found : nullptr;
}

// " (caused by `id`)" for a summary line, "" without a cause.
std::string caused_by_text(const Builder& b, const json& item) {
  const json* cause = cause_of(item);
  if (!cause) return "";
  std::string text = b.tr("caused by %1");
  text.replace(text.find("%1"), 2, report_code(str(*cause, "id")));
  return " (" + text + ")";
}

// Worst first, as severity() orders them.
void sort_worst_first(std::vector<std::pair<Verdict, std::string>>& lines) {
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return severity(a.first) > severity(b.first); });
}

// The distribution behind an item with its threshold lines, as the evidence panel draws it.
std::optional<ReportChart> item_chart(const json& item, const ChecklistItem* known, const std::string& lang) {
  if (!item.contains("samples") || !item["samples"].is_array() || item["samples"].empty()) return std::nullopt;
  ReportChart c;
  c.kind = ChartKind::Distribution;
  c.title = known ? known->title.in(lang) : str(item, "title").empty() ? str(item, "id") : str(item, "title");
  for (const auto& v : item["samples"])
    if (v.is_number()) c.samples.push_back(v.get<double>());
  // The JSON holds at most 2,000 of them, evenly thinned: the caption says how many of how many.
  c.drawn = c.samples.size();
  c.points = std::max<std::size_t>(c.drawn, item.value("samples_total", std::size_t{0}));
  c.x_label = name_in("statistic.", str(item, "statistic_name"), lang) + (str(item, "unit").empty() ? "" : " (" + str(item, "unit") + ")");
  if (known)
    for (const auto& t : known->thresholds) c.lines.push_back({t.value, t.name + " " + Builder::num(json(t.value), 4, t.unit)});
  return c;
}

}  // namespace

void build_diagnosis(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  // The checklist the diagnosis ran (a file's falls back to the items' own titles and remedies).
  const Checklist* builtin = builtin_checklist(str(d, "checklist_id"));
  const Checklist& checklist = builtin ? *builtin : builtin_latency_checklist();
  doc.title = !builtin || builtin == &builtin_latency_checklist() ? b.tr("Latency diagnosis") : builtin->title.in(doc.lang);
  doc.verdict = verdict_of(d);
  std::vector<std::pair<Verdict, std::string>> lines;
  std::map<Verdict, int> counts;
  ReportSection items;
  items.heading = b.tr("Checklist");
  for (const auto& item : d.value("checklist", json::array())) {
    Verdict v = verdict_of(item);
    ++counts[v];
    const ChecklistItem* known = checklist.item(str(item, "id"));
    ReportSection s;
    s.heading = (known ? known->title.in(doc.lang) : str(item, "title")) + " (" + report_code(str(item, "id")) + ")";
    s.verdict = v;
    b.fact(s, "Evidence", b.text(item, "evidence"));
    if (const json* cause = cause_of(item)) b.fact(s, "Caused by", report_code(str(*cause, "id")) + ": " + b.text(*cause, "evidence"));
    if (item.contains("statistic") && !item["statistic"].is_null())
      b.fact(s, "Statistic", name_in("statistic.", str(item, "statistic_name"), doc.lang) + " = " + Builder::num(item["statistic"], 4, str(item, "unit")));
    b.fact(s, "Samples", Builder::num(item.value("n", json(nullptr))));
    if (item.value("need_more", 0) > 0) b.fact(s, "Need more", Builder::num(item["need_more"]));
    b.fact(s, "Threshold", b.text(item, "threshold"));
    if (v != Verdict::Pass) b.fact(s, "Remedy", known ? known->remedy.in(doc.lang) : str(item, "remedy"));
    b.fact(s, "Note", str(item, "note"));
    if (auto chart = item_chart(item, known, doc.lang)) s.charts.push_back(b.add_chart(std::move(*chart)));
    if (v == Verdict::Warn || v == Verdict::Fail || v == Verdict::Inconclusive)
      lines.emplace_back(v, b.verdict(v) + " — " + s.heading + ": " + b.text(item, "evidence") + caused_by_text(b, item));
    items.children.push_back(std::move(s));
  }
  std::string tally;
  for (Verdict v : {Verdict::Fail, Verdict::Warn, Verdict::Inconclusive, Verdict::Manual, Verdict::Pass})
    if (counts[v]) tally += (tally.empty() ? "" : b.tr(", ")) + std::to_string(counts[v]) + " " + b.verdict(v);
  sort_worst_first(lines);
  std::string head = b.tr("%1 items: %2");
  head.replace(head.find("%1"), 2, std::to_string(items.children.size()));
  head.replace(head.find("%2"), 2, tally);
  doc.summary.push_back(head);
  for (auto& [v, line] : lines) doc.summary.push_back(std::move(line));
  doc.sections.push_back(std::move(items));
  if (d.contains("connections") && d["connections"].is_array() && !d["connections"].empty()) b.traffic(d["connections"]);
  b.warnings(d);
}

namespace {

Verdict rollout_verdict(const std::string& state) {
  if (state == "passed") return Verdict::Pass;
  if (state == "paused") return Verdict::Inconclusive;
  return Verdict::Fail;
}

std::optional<double> number(const json& v) {
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

ReportSection stage_section(Builder& b, const json& stage, const std::string& lang) {
  ReportSection s;
  const json& title = stage.value("title", json::object());
  std::string t = title.is_object() ? title.value(lang == "zh_CN" ? "zh_CN" : "en", std::string()) : std::string();
  if (t.empty() && title.is_object()) t = title.value("en", std::string());
  s.heading = b.tr("Stage") + " " + Builder::num(stage.value("stage", json(nullptr))) + " — " + report_code(str(stage, "name")) +
              (t.empty() ? "" : ": " + t);
  s.verdict = verdict_of(stage);
  b.fact(s, "Mode", str(stage, "mode"));
  b.fact(s, "Split", Builder::fixed(stage.value("split", 0.0) * 100, 2, "%"));
  b.fact(s, "Candidate", report_code(str(stage, "candidate")));
  if (stage.contains("samples") && stage["samples"].is_object())
    b.fact(s, "Requests", Builder::num(stage["samples"].value("workload", json(nullptr))));
  if (stage.value("promoted", false)) s.paragraphs.push_back(b.tr("Promoted by a person while inconclusive"));
  b.fact(s, "Still needed", str(stage, "need"));
  ReportTable gates;
  gates.columns = {b.tr("Gate"), b.tr("Verdict"), b.tr("Statistic"), b.tr("Interval"), b.tr("Samples"),
                   b.tr("Threshold"), b.tr("Reason")};
  ReportChart forest;
  forest.kind = ChartKind::GateForest;
  forest.title = b.tr("Gates against their thresholds");
  for (const auto& g : stage.value("gates", json::array())) {
    std::string unit = str(g, "unit");
    const json& iv = g.value("interval", json::array());
    std::string interval = iv.is_array() && iv.size() == 2 && (iv[0].is_number() || iv[1].is_number())
                               ? "[" + Builder::num(iv[0], 4) + ", " + Builder::num(iv[1], 4) + "]"
                               : "—";
    gates.rows.push_back({report_code(str(g, "id")), b.verdict(verdict_of(g)), Builder::num(g.value("statistic", json(nullptr)), 4, unit),
                          interval, Builder::num(g.value("n", json(nullptr))),
                          str(g, "comparison") + " " + Builder::num(g.value("threshold", json(nullptr)), 6, unit),
                          b.text(g, "reason")});
    ForestRow row;
    row.label = str(g, "id");
    row.statistic = number(g.value("statistic", json(nullptr))).value_or(NAN);
    if (iv.is_array() && iv.size() == 2) row.low = number(iv[0]), row.high = number(iv[1]);
    row.threshold = number(g.value("threshold", json(nullptr)));
    row.verdict = verdict_of(g);
    row.unit = unit;
    if (std::isfinite(row.statistic) && row.threshold) forest.forest.push_back(std::move(row));
  }
  s.tables.push_back(b.capped(std::move(gates)));
  forest.points = forest.drawn = forest.forest.size();
  if (!forest.forest.empty()) s.charts.push_back(b.add_chart(std::move(forest)));
  if (stage.contains("samples") && stage["samples"].is_object()) {
    const json& samples = stage["samples"];
    std::vector<ChartSeries> arms(2);
    arms[0].name = b.tr("baseline");
    arms[1].name = b.tr("candidate");
    const char* keys[] = {"ttft_baseline_ms", "ttft_candidate_ms"};
    for (int a = 0; a < 2; ++a)
      for (const auto& v : samples.value(keys[a], json::array()))
        if (v.is_number()) arms[a].requests.push_back({static_cast<double>(arms[a].requests.size()), v.get<double>(), {}, {}});
    if (!arms[0].requests.empty() || !arms[1].requests.empty()) {
      ReportChart cdf;
      cdf.kind = ChartKind::TtftCdf;
      cdf.title = b.tr("TTFT of both arms");
      cdf.points = cdf.drawn = arms[0].requests.size() + arms[1].requests.size();
      cdf.series = std::move(arms);
      s.charts.push_back(b.add_chart(std::move(cdf)));
    }
  }
  return s;
}

void rollback_facts(Builder& b, ReportSection& s, const json& r) {
  if (!r.is_object()) return;
  b.fact(s, "Rollback time", Builder::num(r.value("seconds", json(nullptr)), 3, "s"));
  b.fact(s, "Candidate sockets left", Builder::num(r.value("candidate_sockets_after", json(nullptr))));
  b.fact(s, "Descriptors before and after",
         Builder::num(r.value("fds_before", json(nullptr))) + " → " + Builder::num(r.value("fds_after", json(nullptr))));
  b.fact(s, "Served by the baseline after the switch", Builder::num(r.value("requests_after", json(nullptr))));
}

}  // namespace

void build_rollout(Builder& b, const json& d) {
  ReportDocument& doc = b.doc();
  const json& plan = d.value("plan", json::object());
  const json& title = plan.is_object() ? plan.value("title", json::object()) : json::object();
  doc.title = b.tr("Grayscale rollout") + (title.is_object() && title.contains("en")
                                               ? ": " + title.value(doc.lang == "zh_CN" ? "zh_CN" : "en", title.value("en", std::string()))
                                               : std::string());
  doc.verdict = rollout_verdict(str(d, "state"));
  doc.summary.push_back(b.tr(str(d, "state")) + ": " + str(d, "message"));
  std::vector<std::pair<Verdict, std::string>> lines;
  for (const auto& stage : d.value("stages", json::array())) {
    ReportSection s = stage_section(b, stage, doc.lang);
    if (stage.contains("rollback")) rollback_facts(b, s, stage["rollback"]);
    lines.emplace_back(*s.verdict, b.verdict(*s.verdict) + " — " + s.heading);
    doc.sections.push_back(std::move(s));
  }
  sort_worst_first(lines);
  for (auto& [v, line] : lines) doc.summary.push_back(std::move(line));
  if (d.contains("rollback") && d["rollback"].is_object()) {
    ReportSection r;
    r.heading = b.tr("Rollback");
    rollback_facts(b, r, d["rollback"]);
    doc.sections.push_back(std::move(r));
  }
}

}  // namespace report_detail

Result<ReportDocument> build_report(std::string_view text, const ReportOptions& options) {
  const std::string& origin = options.origin.empty() ? std::string("(result)") : options.origin;
  auto parsed = parse_json(text);
  if (!parsed) return make_error(ErrorClass::Input, origin + ": " + parsed.error().detail);
  json& d = *parsed;
  if (!d.is_object()) return make_error(ErrorClass::Input, origin + ": expected a JSON object (a saved result)");
  auto kind = parse_kind(d.value("kind", std::string()));
  if (!d.contains("kind") || !d["kind"].is_string() || !kind)
    return make_error(ErrorClass::Input, origin + ": field kind: expected session, bench, analysis, diagnosis, rollout or comparison");
  if (!d.contains("schema_version") || d["schema_version"] != 1)
    return make_error(ErrorClass::Input, origin + ": field schema_version: expected 1 (the version this workbench reads), got " +
                                            (d.contains("schema_version") ? dump_json(d["schema_version"]) : "none"));
  ReportDocument doc;
  doc.kind = *kind;
  doc.lang = options.lang;
  doc.redactions = redact_result(d, options.redact_prompts);
  report_detail::Builder b(options, doc);
  try {
    environment(b, d);
    switch (*kind) {
      case ResultKind::Diagnosis: report_detail::build_diagnosis(b, d); break;
      case ResultKind::Rollout: report_detail::build_rollout(b, d); break;
      case ResultKind::Session: report_detail::build_session(b, d); break;
      case ResultKind::Bench: report_detail::build_bench(b, d); break;
      case ResultKind::Analysis: report_detail::build_analysis(b, d); break;
      case ResultKind::Comparison: report_detail::build_comparison(b, d); break;
    }
  } catch (const json::exception& e) {  // a field of the wrong type deep inside
    return make_error(ErrorClass::Input, origin + ": " + e.what());
  }
  for (const auto& label : report_labels()) doc.labels[label] = b.tr(label);
  doc.result_json = dump_json(d);
  return doc;
}

}  // namespace anthro
