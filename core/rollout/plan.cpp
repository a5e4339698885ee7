#include "rollout/plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <iterator>
#include <stdexcept>

#include "profile/profile.h"
#include "rollout/plan_metric.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

// In enum order.
const char* const kModes[] = {"route", "mirror", "verify", "region"};
const char* const kMetrics[] = {
    "connection-success-rate", "frame-drop-rate", "response-match-rate", "write-consistency-rate", "status-rate",
    "context-error-rate", "ttft-p99-ratio", "ttft-p99", "ttft-p99-improvement", "rollback-rehearsal", "checklist-item"};
const char* const kComparisons[] = {">=", "<=", "<", "not-worse", "passes", "recorded"};
constexpr std::size_t kBuiltinMetrics = std::size(kMetrics);

// The metrics formats registered, in GateMetric's order after the built-in ones (a deque: their
// names stay where to_string handed them out).
std::deque<PlanMetric>& registered_metrics() {
  static std::deque<PlanMetric> table;
  return table;
}

// The built-in plans' first ids, named after the articles the plans came from; kept so that a
// script's --plan or a saved result being resumed still finds its plan.
struct PlanAlias {
  std::string_view old_id, id;
};
constexpr PlanAlias kPlanAliases[] = {
    {"seed000-five-stages", "anthro-v1-five-stages"},
    {"seed004-four-stages", "session-affinity-four-stages"},
};

template <typename E, std::size_t N>
std::optional<E> parse_name(const char* const (&names)[N], std::string_view text) {
  for (std::size_t i = 0; i < N; ++i)
    if (text == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

// Reads one plan, naming where a field is wrong.
class PlanReader {
 public:
  explicit PlanReader(std::string origin) : origin_(std::move(origin)) {}

  Result<RolloutPlan> read(const json& doc) {
    RolloutPlan plan;
    if (!doc.is_object()) return fail("", "(document)", "expected a JSON object");
    if (doc.value("schema_version", 0) != 1) return fail("", "schema_version", "expected 1");
    if (!string(doc, "id", plan.id)) return fail("", "id", "missing or not a string");
    if (!text(doc, "title", plan.title)) return fail("", "title", "expected {\"en\": ..., \"zh_CN\": ...}");
    plan.source = doc.value("source", std::string());
    plan.profile = doc.value("profile", std::string());
    if (!doc.contains("stages") || !doc["stages"].is_array() || doc["stages"].empty())
      return fail("", "stages", "expected a non-empty array");
    for (std::size_t i = 0; i < doc["stages"].size(); ++i) {
      auto stage = read_stage(doc["stages"][i], i);
      if (!stage) return stage.error();
      plan.stages.push_back(std::move(*stage));
    }
    return plan;
  }

 private:
  Error fail(const std::string& place, const std::string& field, const std::string& why) const {
    return make_error(ErrorClass::Input, origin_ + ": " + (place.empty() ? "" : place + ": ") + "field " + field + ": " + why);
  }
  static bool string(const json& o, const char* key, std::string& out) {
    if (!o.contains(key) || !o[key].is_string() || o[key].get<std::string>().empty()) return false;
    out = o[key].get<std::string>();
    return true;
  }
  static bool text(const json& o, const char* key, LocalizedText& out) {
    if (!o.contains(key) || !o[key].is_object() || !o[key].contains("en") || !o[key]["en"].is_string()) return false;
    out.en = o[key]["en"].get<std::string>();
    out.zh_CN = o[key].contains("zh_CN") && o[key]["zh_CN"].is_string() ? o[key]["zh_CN"].get<std::string>() : "";
    return true;
  }
  static std::string named(const char* what, std::size_t i, const std::string& name) {
    return std::string(what) + " " + std::to_string(i + 1) + (name.empty() ? "" : " (\"" + name + "\")");
  }

  Result<PlanStage> read_stage(const json& o, std::size_t index) const {
    PlanStage s;
    std::string place = named("stage", index, "");
    if (!o.is_object()) return fail(place, "(stage)", "expected an object");
    if (!string(o, "name", s.name)) return fail(place, "name", "missing or not a string");
    place = named("stage", index, s.name);
    if (!text(o, "title", s.title)) return fail(place, "title", "expected {\"en\": ..., \"zh_CN\": ...}");
    if (!o.contains("split") || !o["split"].is_number() || o["split"] < 0 || o["split"] > 1)
      return fail(place, "split", "expected a fraction from 0 to 1");
    s.split = o["split"].get<double>();
    std::string mode = o.value("mode", std::string("route"));
    auto parsed_mode = parse_split_mode(mode);
    if (!parsed_mode) return fail(place, "mode", "\"" + mode + "\": expected route, mirror, verify or region");
    s.mode = *parsed_mode;
    s.region = o.value("region", std::string());
    if (!o.contains("requests") || !o["requests"].is_number_unsigned() || o["requests"] == 0)
      return fail(place, "requests", "expected a whole number ≥ 1");
    s.requests = o["requests"].get<std::uint64_t>();
    s.interval_s = o.value("interval_s", 0.0);
    s.failure_limit = o.value("failureLimit", 0u);
    s.inconclusive_limit = o.value("inconclusiveLimit", 0u);
    s.consecutive_error_limit = o.value("consecutiveErrorLimit", 0u);
    text(o, "rollback", s.rollback);
    if (!o.contains("gates") || !o["gates"].is_array() || o["gates"].empty())
      return fail(place, "gates", "expected a non-empty array");
    for (std::size_t g = 0; g < o["gates"].size(); ++g) {
      auto gate = read_gate(o["gates"][g], place, g);
      if (!gate) return gate.error();
      s.gates.push_back(std::move(*gate));
    }
    return s;
  }

  Result<PlanGate> read_gate(const json& o, const std::string& stage, std::size_t index) const {
    PlanGate g;
    std::string place = stage + ": " + named("gate", index, "");
    if (!o.is_object() || !string(o, "id", g.id)) return fail(place, "id", "missing or not a string");
    place = stage + ": " + named("gate", index, g.id);
    std::string metric, comparison;
    auto parsed_metric = string(o, "metric", metric) ? parse_gate_metric(metric) : std::nullopt;
    if (!parsed_metric) return fail(place, "metric", "missing or not a metric this workbench measures");
    auto parsed_comparison = string(o, "comparison", comparison) ? parse_gate_compare(comparison) : std::nullopt;
    if (!parsed_comparison) return fail(place, "comparison", "expected >=, <=, <, not-worse, passes or recorded");
    g.metric = *parsed_metric;
    g.comparison = *parsed_comparison;
    if (o.contains("threshold") && !o["threshold"].is_number()) return fail(place, "threshold", "expected a number");
    if (o.contains("threshold")) g.threshold = o["threshold"].get<double>();
    bool needs_threshold =
        g.comparison == GateCompare::AtLeast || g.comparison == GateCompare::AtMost || g.comparison == GateCompare::Below;
    if (needs_threshold && !g.threshold) return fail(place, "threshold", "missing: comparison " + comparison + " needs one");
    if (g.threshold && is_rate(g.metric) && !(*g.threshold >= 0 && *g.threshold <= 1))
      return fail(place, "threshold", "a rate is a fraction from 0 to 1");
    const PlanMetric* registered = plan_metric(g.metric);
    if (g.threshold && registered && registered->refuse_threshold)
      if (std::string why = registered->refuse_threshold(*g.threshold); !why.empty()) return fail(place, "threshold", why);
    if (g.threshold && !is_rate(g.metric) && !(*g.threshold > 0)) return fail(place, "threshold", "expected a value above 0");
    if (o.contains("margin") && !o["margin"].is_number()) return fail(place, "margin", "expected a number");
    if (o.contains("margin")) g.margin = o["margin"].get<double>();
    if (g.margin && !(*g.margin >= 0)) return fail(place, "margin", "expected 0 or more");
    if (g.comparison == GateCompare::NotWorse && !g.margin) return fail(place, "margin", "missing: not-worse needs a margin");
    if (o.contains("status")) g.status = o["status"].get<int>();
    if (g.metric == GateMetric::StatusRate && !g.status) return fail(place, "status", "missing: status-rate counts one status");
    if (o.contains("item")) g.item = o["item"].get<std::string>();
    if (g.metric == GateMetric::ChecklistItem && (!g.item || !builtin_latency_checklist().item(*g.item)))
      return fail(place, "item", "missing or not an item of the latency checklist");
    g.unit = o.value("unit", std::string());
    g.min_n = o.value("min_n", std::size_t{0});
    return g;
  }

  std::string origin_;
};

}  // namespace

const char* to_string(SplitMode m) { return kModes[static_cast<int>(m)]; }
const char* to_string(GateMetric m) {
  const PlanMetric* registered = plan_metric(m);
  return registered ? registered->name.c_str() : kMetrics[static_cast<int>(m)];
}
const char* to_string(GateCompare c) { return kComparisons[static_cast<int>(c)]; }
bool is_rate(GateMetric m) {
  return m == GateMetric::ConnectionSuccessRate || m == GateMetric::FrameDropRate || m == GateMetric::ResponseMatchRate ||
         m == GateMetric::WriteConsistencyRate || m == GateMetric::StatusRate || m == GateMetric::ContextErrorRate;
}

std::optional<SplitMode> parse_split_mode(std::string_view text) { return parse_name<SplitMode>(kModes, text); }
std::optional<GateMetric> parse_gate_metric(std::string_view text) {
  if (auto builtin = parse_name<GateMetric>(kMetrics, text)) return builtin;
  (void)profiles();  // the built-in formats registered theirs
  const auto& table = registered_metrics();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].name == text) return static_cast<GateMetric>(kBuiltinMetrics + i);
  return std::nullopt;
}

GateMetric register_plan_metric(PlanMetric m) {
  auto& table = registered_metrics();
  const bool taken = m.name.empty() || parse_name<GateMetric>(kMetrics, m.name) ||
                     std::ranges::any_of(table, [&](const PlanMetric& r) { return r.name == m.name; });
  if (taken || !m.judge) throw std::logic_error("register_plan_metric: \"" + m.name + "\" is taken or judges nothing");
  table.push_back(std::move(m));
  return static_cast<GateMetric>(kBuiltinMetrics + table.size() - 1);
}

const PlanMetric* plan_metric(GateMetric m) {
  const auto index = static_cast<std::size_t>(m);
  if (index < kBuiltinMetrics) return nullptr;
  (void)profiles();
  const auto& table = registered_metrics();
  return index - kBuiltinMetrics < table.size() ? &table[index - kBuiltinMetrics] : nullptr;
}

std::optional<GateCompare> parse_gate_compare(std::string_view text) { return parse_name<GateCompare>(kComparisons, text); }

Result<RolloutPlan> parse_plan(std::string_view text, const std::string& origin) {
  auto parsed = parse_json(text);
  if (!parsed) return make_error(ErrorClass::Input, origin + ": " + parsed.error().detail);
  const json& doc = *parsed;
  try {
    return PlanReader(origin).read(doc);
  } catch (const json::exception& e) {  // a field of the wrong type read with value()
    return make_error(ErrorClass::Input, origin + ": " + e.what());
  }
}

Result<RolloutPlan> load_plan(const std::string& path) {
  auto text = read_file(path, file_limit::kPlan);
  if (!text) return make_error(ErrorClass::Input, text.error().detail);
  return parse_plan(*text, path);
}

std::string current_plan_id(std::string_view id) {
  auto alias = std::ranges::find(kPlanAliases, id, &PlanAlias::old_id);
  return std::string(alias == std::end(kPlanAliases) ? id : alias->id);
}

}  // namespace anthro
