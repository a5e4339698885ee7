// Checklists as data (resources/checklists/*.json, schema beside them): items with the probe
// that measures each, thresholds and minimum sample counts. A team adds items or overrides a
// threshold without recompiling; the probes themselves are code (evaluate.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/prometheus_text.h"
#include "util/result.h"

namespace anthro {

enum class Verdict { Pass, Warn, Fail, Inconclusive, Manual };
const char* to_string(Verdict v);  // "pass", "warn", "fail", "inconclusive", "manual"
std::optional<Verdict> parse_verdict(std::string_view text);
inline constexpr Verdict kVerdicts[] = {Verdict::Pass, Verdict::Warn, Verdict::Fail, Verdict::Inconclusive, Verdict::Manual};
// A verdict as a Prometheus state set: one sample per verdict under label "verdict", 1 for `v`.
void write_verdict_state(PrometheusText& out, std::string_view name, const PrometheusLabels& labels, Verdict v);
// Worse first: fail, warn, inconclusive, manual, pass.
int severity(Verdict v);

enum class ProbeSource { Live, Capture, System };
const char* to_string(ProbeSource s);  // "live", "capture", "system"

// A text in the languages the workbench speaks; `in` falls back to English.
struct LocalizedText {
  std::string en, zh_CN;
  const std::string& in(std::string_view lang) const { return lang == "zh_CN" && !zh_CN.empty() ? zh_CN : en; }
};

enum class Compare { Above, Below };

struct Threshold {
  std::string name;  // "p99", "warn", ...: `--threshold ID.NAME=VALUE`
  double value = 0;
  std::string unit;
  Verdict verdict = Verdict::Warn;  // what crossing it gives: warn or fail
  Compare compare = Compare::Above;
  // True when `statistic` is on the bad side of the threshold.
  bool crossed(double statistic) const { return compare == Compare::Above ? statistic > value : statistic < value; }
};

struct ChecklistItem {
  std::string id;
  std::string probe;  // a name of probe_names(), or "manual"
  LocalizedText title, remedy;
  std::vector<ProbeSource> sources;
  std::size_t min_n = 0;
  std::string n_unit;  // what n counts: "requests", "frames", ...
  std::vector<Threshold> thresholds;  // the first is the one `--threshold ID=VALUE` sets
  std::string seed, fault;            // where it comes from, which fault must trigger it

  const Threshold* threshold(std::string_view name) const;
  bool measured_by(ProbeSource s) const;
};

struct Checklist {
  std::string id;
  LocalizedText title;
  std::vector<ChecklistItem> items;
  std::string origin;  // the file it came from, or "built-in"

  const ChecklistItem* item(std::string_view id) const;
};

// Errors (reason "input") name `origin`, the item (by id or position) and the field.
Result<Checklist> parse_checklist(std::string_view json, const std::string& origin);
Result<Checklist> load_checklist(const std::string& path);
// resources/checklists/latency.json, compiled in.
const Checklist& builtin_latency_checklist();
// Every built-in checklist, the latency one first.
std::vector<const Checklist*> builtin_checklists();
// A built-in checklist by its id (ANTHRO_BUILTIN_CHECKLISTS: "latency", a format's, …); null for another.
const Checklist* builtin_checklist(std::string_view id);
// The JSON Schema for checklist files, compiled in (resources/checklists/checklist.schema.json).
std::string_view checklist_schema();

// `ID=VALUE` (the item's first threshold) or `ID.NAME=VALUE`. Usage errors (in no interface's
// words: the CLI puts `--threshold ` before them, the Diagnosis page its field) name the spec and
// say what is wrong (an unknown id lists the known ones).
Result<bool> apply_threshold(Checklist& checklist, std::string_view spec);

}  // namespace anthro
