// What `compare` reads: a saved result's request records (or a rollout arm's TTFT samples), or a
// capture analysed as `analyze` does; each side turned into the samples of its figures.
#include <nlohmann/json.hpp>

#include <cmath>

#include "diagnosis/checklist.h"
#include "diagnosis/diagnosis.h"
#include "model/distribution.h"
#include "protocol/body.h"
#include "rollout/compare.h"
#include "rollout/rollout.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace compare_detail {

// A request's outcome for the rates. Cancels first: a cancel that closed the connection is the
// client's choice, not an error. A request still open (a capture cut short) counts in neither.
enum class Outcome { Ok, Error, Cancelled, Open };

Outcome outcome_of(const std::string& end, const std::string& stop_reason, bool has_error_code) {
  if (end == "open") return Outcome::Open;
  if (end == "client_closed" || end == "cancel_closed" || stop_reason == "cancelled") return Outcome::Cancelled;
  if (end != "response" || has_error_code) return Outcome::Error;
  return Outcome::Ok;
}

// What compare takes from one record, whichever way it came (a RequestResult or its JSON).
struct RecordFigures {
  std::optional<double> ttft_ms, e2e_ms, tokens_per_s;
  std::vector<double> itl_ms;
  Outcome outcome = Outcome::Ok;
  bool probe = false;
};

void add_figures(CompareInput& in, const RecordFigures& f) {
  if (f.probe) {
    ++in.probes;
    return;
  }
  ++in.requests;
  if (f.outcome != Outcome::Open) {
    ++in.rates["error_rate"].n;
    ++in.rates["cancel_rate"].n;
    in.rates["error_rate"].events += f.outcome == Outcome::Error;
    in.rates["cancel_rate"].events += f.outcome == Outcome::Cancelled;
  }
  // Latencies of the requests answered in full: an error's or a cancel's would mix two things.
  if (f.outcome != Outcome::Ok) return;
  auto put = [&](const char* id, std::optional<double> v) {
    if (v && std::isfinite(*v)) in.samples[id].push_back(*v);
  };
  put("ttft_ms", f.ttft_ms);
  put("e2e_ms", f.e2e_ms);
  put("tokens_per_s", f.tokens_per_s);
  for (double v : f.itl_ms)
    if (std::isfinite(v)) in.samples["itl_ms"].push_back(v);
}

// Reads one JSON record, every field compare uses checked; `where` names it in errors.
class RecordReader {
 public:
  RecordReader(std::string file) : file_(std::move(file)) {}

  RecordFigures read(const json& r, const std::string& where) const {
    if (!r.is_object()) fail(where, "expected a request record (an object)");
    RecordFigures f;
    f.ttft_ms = number(r, "ttft_ms", where);
    f.e2e_ms = number(r, "e2e_ms", where);
    f.tokens_per_s = number(r, "tokens_per_s", where);
    if (r.contains("itl_ms") && !r["itl_ms"].is_null()) {
      if (!r["itl_ms"].is_array()) fail(where + ".itl_ms", "expected an array of numbers");
      for (const auto& v : r["itl_ms"]) {
        if (!v.is_number()) fail(where + ".itl_ms", "expected an array of numbers");
        f.itl_ms.push_back(v.get<double>());
      }
    }
    f.outcome = outcome_of(text(r, "end", where), text(r, "stop_reason", where),
                           r.contains("error_code") && !r["error_code"].is_null());
    f.probe = r.contains("probe") && !r["probe"].is_null();
    return f;
  }

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw std::runtime_error(file_ + ": " + where + ": " + why);
  }

 private:
  std::optional<double> number(const json& r, const char* key, const std::string& where) const {
    if (!r.contains(key) || r[key].is_null()) return std::nullopt;
    if (!r[key].is_number()) fail(where + "." + key, "expected a number or null");
    return r[key].get<double>();
  }
  std::string text(const json& r, const char* key, const std::string& where) const {
    if (!r.contains(key) || r[key].is_null()) return {};
    if (!r[key].is_string()) fail(where + "." + key, "expected a string or null");
    return r[key].get<std::string>();
  }
  std::string file_;
};

const json& array_at(const json& d, const char* key, const RecordReader& reader, const std::string& where) {
  if (!d.contains(key) || !d[key].is_array()) reader.fail(where.empty() ? key : where + "." + key, "missing or not an array");
  return d[key];
}

// Which way a checklist item's statistic gets better: its first threshold is crossed from above
// (lower is better) or from below. Unknown items (a team's own checklist) have no direction.
std::optional<Better> item_direction(const std::string& checklist_id, const std::string& item_id) {
  const Checklist* list = builtin_checklist(checklist_id);
  const ChecklistItem* item = (list ? list : &builtin_latency_checklist())->item(item_id);
  if (!item || item->thresholds.empty()) return std::nullopt;
  return item->thresholds.front().compare == Compare::Above ? Better::Lower : Better::Higher;
}

// A checklist item with its samples, or a note saying why it cannot be compared.
void add_item(CompareInput& in, const std::string& checklist_id, const std::string& id, std::vector<double> samples,
              bool has_statistic, ChecklistFigure figure) {
  if (samples.size() < 2) {
    if (has_statistic) in.notes.push_back(id + ": one number, no distribution of samples to judge");
    return;
  }
  auto better = item_direction(checklist_id, id);
  if (!better) {
    in.notes.push_back(id + ": no threshold says which way is worse");
    return;
  }
  figure.samples = std::move(samples);
  figure.better = *better;
  in.checklist[id] = std::move(figure);
}

void read_checklist(CompareInput& in, const json& d, const RecordReader& reader) {
  if (!d.contains("checklist")) return;
  const json& items = array_at(d, "checklist", reader, "");
  std::string checklist_id = d.value("checklist_id", std::string("latency"));
  for (std::size_t i = 0; i < items.size(); ++i) {
    const json& item = items[i];
    std::string where = "checklist[" + std::to_string(i) + "]";
    if (!item.is_object() || !item.contains("id") || !item["id"].is_string()) reader.fail(where + ".id", "expected a string");
    std::vector<double> samples;
    if (item.contains("samples") && item["samples"].is_array())
      for (const auto& v : item["samples"])
        if (v.is_number()) samples.push_back(v.get<double>());
    ChecklistFigure f;
    f.unit = item.value("unit", std::string());
    f.statistic_name = item.value("statistic_name", std::string());
    add_item(in, checklist_id, item["id"].get<std::string>(), std::move(samples),
             item.contains("statistic") && item["statistic"].is_number(), std::move(f));
  }
}

void read_records(CompareInput& in, const json& records, const RecordReader& reader, const std::string& where) {
  for (std::size_t i = 0; i < records.size(); ++i)
    add_figures(in, reader.read(records[i], where + "[" + std::to_string(i) + "]"));
}

void read_connections(CompareInput& in, const json& d, const RecordReader& reader) {
  const json& connections = array_at(d, "connections", reader, "");
  for (std::size_t c = 0; c < connections.size(); ++c) {
    std::string where = "connections[" + std::to_string(c) + "]";
    if (!connections[c].is_object()) reader.fail(where, "expected an object");
    read_records(in, array_at(connections[c], "streams", reader, where), reader, where + ".streams");
  }
}

struct ArmSpec {
  std::string path;
  std::size_t stage = 0;  // from 1
  bool baseline = true;
};

// "RESULT.json#stage=N,arm=baseline|candidate", or nullopt when `spec` names no arm.
std::optional<ArmSpec> parse_arm(const std::string& spec) {
  auto hash = spec.rfind('#');
  if (hash == std::string::npos) return std::nullopt;
  ArmSpec a;
  a.path = spec.substr(0, hash);
  std::string rest = spec.substr(hash + 1);
  auto comma = rest.find(",arm=");
  if (rest.rfind("stage=", 0) != 0 || comma == std::string::npos)
    throw std::runtime_error(spec + ": expected RESULT.json#stage=N,arm=baseline|candidate");
  auto n = parse_number(rest.substr(6, comma - 6));
  std::string arm = rest.substr(comma + 5);
  if (!n || *n < 1 || *n != std::floor(*n) || *n > 1000)
    throw std::runtime_error(spec + ": stage: expected a stage number from 1");
  if (arm != "baseline" && arm != "candidate") throw std::runtime_error(spec + ": arm: expected baseline or candidate");
  a.stage = static_cast<std::size_t>(*n);
  a.baseline = arm == "baseline";
  return a;
}

// A rollout arm keeps only its TTFT samples (rollout_output.cpp): that is all it can be compared on.
CompareInput read_arm(const ArmSpec& arm, const std::string& spec, const std::string& text) {
  auto r = parse_rollout_result(text, arm.path);
  if (!r) throw std::runtime_error(r.error().detail);
  for (const auto& stage : r->stages) {
    if (stage.index + 1 != arm.stage) continue;
    CompareInput in;
    in.file = spec;
    in.kind = "rollout arm";
    in.samples["ttft_ms"] = arm.baseline ? stage.samples.ttft_baseline_ms : stage.samples.ttft_candidate_ms;
    in.requests = in.samples["ttft_ms"].size();
    in.notes.push_back("a rollout arm keeps only its TTFT samples");
    return in;
  }
  std::string have;
  for (const auto& stage : r->stages) have += (have.empty() ? "" : ", ") + std::to_string(stage.index + 1);
  throw std::runtime_error(arm.path + ": no stage " + std::to_string(arm.stage) + " in this rollout result (it has " +
                           (have.empty() ? std::string("none") : "stages " + have) + ")");
}

const char* const kResultKinds = "session, bench, analysis, diagnosis or rollout";

CompareInput read_result(const std::string& path, const std::string& text) {
  auto parsed = parse_json(text);
  if (!parsed) throw std::runtime_error(path + ": " + parsed.error().detail);
  const json& d = *parsed;
  RecordReader reader(path);
  if (!d.is_object() || !d.contains("kind") || !d["kind"].is_string())
    reader.fail("field kind", std::string("expected a saved result (") + kResultKinds + ")");
  std::string kind = d["kind"].get<std::string>();
  if (d.value("schema_version", 0) != 1) reader.fail("field schema_version", "expected 1");
  CompareInput in;
  in.file = path;
  in.kind = kind;
  if (kind == "session") read_records(in, array_at(d, "requests", reader, ""), reader, "requests");
  else if (kind == "bench") {
    if (!d.contains("records")) reader.fail("field records", "missing: a bench result saved before records were kept; run bench again");
    read_records(in, array_at(d, "records", reader, ""), reader, "records");
  } else if (kind == "analysis" || kind == "diagnosis") read_connections(in, d, reader);
  else if (kind == "rollout") reader.fail("(document)", "a rollout result: name an arm, " + path + "#stage=N,arm=baseline|candidate");
  else reader.fail("field kind", "\"" + kind + "\" has no request records (expected " + kResultKinds + ")");
  read_checklist(in, d, reader);
  if (kind == "analysis") in.notes.push_back("itl_ms: an analyze result keeps no ITL samples; compare the capture itself");
  return in;
}

bool looks_like_json(const std::string& start) {
  for (char c : start)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{' || c == '[';
  return false;
}

}  // namespace compare_detail

void CompareInput::add(const RequestResult& r) {
  compare_detail::RecordFigures f;
  f.ttft_ms = r.figures.ttft_ms;
  f.e2e_ms = r.figures.e2e_ms;
  f.tokens_per_s = r.figures.tokens_per_s;
  f.itl_ms = r.figures.itl_ms;
  f.outcome = compare_detail::outcome_of(to_string(r.end), r.stop_reason ? to_string(*r.stop_reason) : "",
                                         r.error_code.has_value());
  f.probe = r.probe.has_value();
  compare_detail::add_figures(*this, f);
}

CompareInput compare_input_from_capture(const CaptureAnalysis& analysis, const std::string& file) {
  CompareInput in;
  in.file = file;
  in.kind = "capture";
  for (const auto& c : analysis.connections)
    for (const auto& s : c.streams) in.add(s);
  const Checklist& checklist = builtin_latency_checklist();
  Diagnosis d = diagnose_analysis(analysis, checklist);
  for (const auto& item : d.items) {
    ChecklistFigure f;
    f.unit = item.unit;
    f.statistic_name = item.statistic_name;
    compare_detail::add_item(in, checklist.id, item.id, item.samples, item.statistic.has_value(), std::move(f));
  }
  return in;
}

Result<CompareInput> load_compare_input(const std::string& spec, const CaptureKeySources& keys, unsigned threads) {
  try {
    if (auto arm = compare_detail::parse_arm(spec)) {
      auto text = read_file(arm->path, file_limit::kResult);
      if (!text) return make_error(ErrorClass::Input, text.error().detail);
      return compare_detail::read_arm(*arm, spec, *text);
    }
    auto start = read_file_start(spec, 64);
    if (!start) return make_error(ErrorClass::Input, start.error().detail);
    if (compare_detail::looks_like_json(*start)) {
      auto text = read_file(spec, file_limit::kResult);
      if (!text) return make_error(ErrorClass::Input, text.error().detail);
      return compare_detail::read_result(spec, *text);
    }
    AnalyzeOptions options;
    options.keep_itl_samples = true;  // the ITL figure's samples
    options.threads = threads;
    auto analysis = analyze_capture(spec, keys, {}, options);
    if (!analysis) return make_error(ErrorClass::Input, analysis.error().detail);
    return compare_input_from_capture(*analysis, spec);
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, e.what());
  }
}

}  // namespace anthro
