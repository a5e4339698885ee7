// A rollout result as JSON (what `--resume` reads back and the report issue renders) and as text.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "metrics/request_json.h"
#include "rollout/rollout.h"
#include "util/json.h"
#include "util/message_json.h"

namespace anthro {

using nlohmann::json;

namespace {

const char* const kStates[] = {"passed", "failed", "paused", "rolled_back"};

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json localized(const LocalizedText& t) { return {{"en", t.en}, {"zh_CN", t.zh_CN}}; }

json rollback_json(const std::optional<RollbackRehearsal>& r) {
  if (!r) return nullptr;
  return {{"seconds", r->seconds},         {"sessions", r->sessions},
          {"requests_after", r->requests_after}, {"failed_after", r->failed_after},
          {"fds_before", r->fds_before},   {"fds_after", r->fds_after},
          {"leaked_fds", std::max(0, r->fds_after - r->fds_before)},
          {"candidate_sockets_after", r->candidate_sockets_after}, {"clean", r->clean()}};
}

json samples_json(const StageSamples& s) {
  json statuses = json::object();
  for (const auto& [code, n] : s.statuses) statuses[std::to_string(code)] = n;
  return {{"workload", s.workload},     {"requests", s.requests},   {"connection_ok", s.connection_ok},
          {"frames", s.frames},         {"frames_dropped", s.frames_dropped}, {"compared", s.compared},
          {"matched", s.matched},       {"verified", s.verified},   {"consistent", s.consistent},
          {"statuses", statuses},       {"ttft_baseline_ms", s.ttft_baseline_ms},
          {"ttft_candidate_ms", s.ttft_candidate_ms}};
}

json gate_json(const GateOutcome& g) {
  const GateResult& r = g.result;
  return {{"id", g.id},
          {"metric", to_string(g.metric)},
          {"comparison", to_string(g.comparison)},
          {"threshold", json_or_null(g.threshold)},
          {"unit", g.unit},
          {"statistic", finite_or_null(r.statistic)},
          {"interval", {finite_or_null(r.interval.low), finite_or_null(r.interval.high)}},
          {"n", r.n},
          {"verdict", to_string(r.verdict)},
          {"need_more", json_or_null(r.need_more)},
          {"p_value", json_or_null(r.p_value)},
          {"reason", r.reason},
          {"reason_messages", messages_json(r.reason_text)}};
}

json stage_json(const StageResult& s, std::string_view lang) {
  json gates = json::array();
  for (const auto& g : s.gates) gates.push_back(gate_json(g));
  return {{"stage", s.index + 1},
          {"name", s.name},
          {"title", localized(s.title)},
          {"title_text", s.title.in(lang)},
          {"mode", to_string(s.mode)},
          {"split", s.split},
          {"candidate", s.candidate},
          {"verdict", to_string(s.verdict)},
          {"promoted", s.promoted},
          {"need", s.need},
          {"need_messages", messages_json(s.need_text)},
          {"ttft_ms", {{"baseline", summary_json(s.ttft_baseline)}, {"candidate", summary_json(s.ttft_candidate)}}},
          {"gates", gates},
          {"rollback", rollback_json(s.rollback)},
          {"warnings", s.warnings},
          {"samples", samples_json(s.samples)}};
}

// Reading back: every field checked, so a hostile or hand-edited file is refused by name.
class ResultReader {
 public:
  explicit ResultReader(std::string origin) : origin_(std::move(origin)) {}

  RolloutResult read(const json& d) {
    RolloutResult r;
    where_ = "";
    if (!d.is_object()) bad("(document)", "expected a JSON object");
    if (d.value("kind", std::string()) != "rollout") bad("kind", "expected \"rollout\"");
    if (d.value("schema_version", 0) != RolloutResult::kSchemaVersion) bad("schema_version", "expected 1");
    const json& plan = field(d, "plan", json::value_t::object);
    r.plan_id = current_plan_id(str(plan, "id"));  // a result saved before a plan's rename resumes under its new id
    r.plan_origin = plan.value("origin", std::string());
    r.plan_title = text(plan, "title");
    r.baseline = str(d, "baseline");
    r.candidate = str(d, "candidate");
    for (const auto& [name, url] : field(d, "regions", json::value_t::object).items())
      r.regions[name] = url.is_string() ? url.get<std::string>() : (bad("regions." + name, "expected a URL"), "");
    r.embedded_endpoint = d.value("embedded_endpoint", false) == true;
    r.seed = uint(d, "seed");
    if (d.contains("requests_per_stage") && !d["requests_per_stage"].is_null()) r.requests_per_stage = uint(d, "requests_per_stage");
    r.last_stage = stage_number(d, "last_stage");
    auto state = parse_rollout_state(str(d, "state"));
    if (!state) bad("state", "expected passed, failed, paused or rolled_back");
    r.state = *state;
    if (!d.contains("stopped_at") || !d["stopped_at"].is_null()) r.stopped_at = stage_number(d, "stopped_at");
    r.message = d.value("message", std::string());
    r.message_text = messages_from_json(d.value("message_messages", json::array()));
    const json& stages = field(d, "stages", json::value_t::array);
    for (std::size_t i = 0; i < stages.size(); ++i) {
      where_ = "stage " + std::to_string(i + 1) + ": ";
      r.stages.push_back(read_stage(stages[i], i));
    }
    return r;
  }

 private:
  [[noreturn]] void bad(const std::string& f, const std::string& why) const {
    throw std::runtime_error(origin_ + ": " + where_ + "field " + f + ": " + why);
  }
  const json& field(const json& o, const char* key, json::value_t type) const {
    if (!o.is_object() || !o.contains(key) || o[key].type() != type) bad(key, "missing or of the wrong type");
    return o[key];
  }
  std::string str(const json& o, const char* key) const { return field(o, key, json::value_t::string).get<std::string>(); }
  std::uint64_t uint(const json& o, const char* key) const {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number_unsigned()) bad(key, "expected a whole number ≥ 0");
    return o[key].get<std::uint64_t>();
  }
  double num(const json& o, const char* key) const {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number()) bad(key, "expected a number");
    return o[key].get<double>();
  }
  std::size_t stage_number(const json& o, const char* key) const {
    std::uint64_t n = uint(o, key);
    if (n < 1 || n > 1000) bad(key, "expected a stage number from 1");
    return static_cast<std::size_t>(n - 1);
  }
  LocalizedText text(const json& o, const char* key) const {
    const json& t = field(o, key, json::value_t::object);
    return {t.value("en", std::string()), t.value("zh_CN", std::string())};
  }
  std::vector<double> numbers(const json& o, const char* key) const {
    std::vector<double> out;
    for (const auto& v : field(o, key, json::value_t::array)) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) bad(key, "expected numbers");
      out.push_back(v.get<double>());
    }
    return out;
  }

  StageResult read_stage(const json& o, std::size_t i) const {
    StageResult s;
    if (!o.is_object()) bad("(stage)", "expected an object");
    s.index = stage_number(o, "stage");
    if (s.index != i) bad("stage", "stages out of order");
    s.name = str(o, "name");
    s.title = text(o, "title");
    auto mode = parse_split_mode(str(o, "mode"));
    if (!mode) bad("mode", "not a split mode");
    s.mode = *mode;
    s.split = num(o, "split");
    s.candidate = str(o, "candidate");
    auto verdict = parse_verdict(str(o, "verdict"));
    if (!verdict) bad("verdict", "not a verdict");
    s.verdict = *verdict;
    s.promoted = o.value("promoted", false);
    s.need = o.value("need", std::string());
    s.need_text = messages_from_json(o.value("need_messages", json::array()));
    const json& samples = field(o, "samples", json::value_t::object);
    read_samples(samples, s.samples);
    s.ttft_baseline = summarize(s.samples.ttft_baseline_ms);
    s.ttft_candidate = summarize(s.samples.ttft_candidate_ms);
    for (const auto& g : field(o, "gates", json::value_t::array)) s.gates.push_back(read_gate(g));
    for (const auto& w : o.value("warnings", json::array()))
      if (w.is_string()) s.warnings.push_back(w.get<std::string>());
    return s;
  }

  void read_samples(const json& o, StageSamples& s) const {
    s.workload = uint(o, "workload");
    s.requests = uint(o, "requests");
    s.connection_ok = uint(o, "connection_ok");
    s.frames = uint(o, "frames");
    s.frames_dropped = uint(o, "frames_dropped");
    s.compared = uint(o, "compared");
    s.matched = uint(o, "matched");
    s.verified = uint(o, "verified");
    s.consistent = uint(o, "consistent");
    if (s.connection_ok > s.requests || s.frames_dropped > s.frames || s.matched > s.compared || s.consistent > s.verified)
      bad("samples", "a count exceeds its total");
    for (const auto& [code, n] : field(o, "statuses", json::value_t::object).items()) {
      if (!n.is_number_unsigned()) bad("statuses." + code, "expected a count");
      try {
        s.statuses[std::stoi(code)] = n.get<std::uint64_t>();
      } catch (const std::exception&) {
        bad("statuses." + code, "expected a status number");
      }
    }
    s.ttft_baseline_ms = numbers(o, "ttft_baseline_ms");
    s.ttft_candidate_ms = numbers(o, "ttft_candidate_ms");
  }

  GateOutcome read_gate(const json& o) const {
    GateOutcome g;
    g.id = str(o, "id");
    auto metric = parse_gate_metric(str(o, "metric"));
    auto comparison = parse_gate_compare(str(o, "comparison"));
    auto verdict = parse_verdict(str(o, "verdict"));
    if (!metric || !comparison || !verdict) bad("gates." + g.id, "unknown metric, comparison or verdict");
    g.metric = *metric;
    g.comparison = *comparison;
    g.result.verdict = *verdict;
    if (o.contains("threshold") && o["threshold"].is_number()) g.threshold = o["threshold"].get<double>();
    g.unit = o.value("unit", std::string());
    if (o.contains("statistic") && o["statistic"].is_number()) g.result.statistic = o["statistic"].get<double>();
    const json& interval = field(o, "interval", json::value_t::array);
    const double inf = std::numeric_limits<double>::infinity();
    g.result.interval.low = interval.size() == 2 && interval[0].is_number() ? interval[0].get<double>() : -inf;
    g.result.interval.high = interval.size() == 2 && interval[1].is_number() ? interval[1].get<double>() : inf;
    g.result.n = uint(o, "n");
    if (o.contains("need_more") && o["need_more"].is_number_unsigned()) g.result.need_more = o["need_more"].get<std::uint64_t>();
    if (o.contains("p_value") && o["p_value"].is_number()) g.result.p_value = o["p_value"].get<double>();
    g.result.reason = o.value("reason", std::string());
    g.result.reason_text = messages_from_json(o.value("reason_messages", json::array()));
    return g;
  }

  std::string origin_, where_;
};

std::string format(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string figure(double v, const std::string& unit) {
  if (std::isnan(v)) return "–";
  if (!std::isfinite(v)) return v > 0 ? "∞" : "−∞";
  if (unit == "ms" || unit == "s") return format("%.4g ", v) + unit;
  return format("%.6g", v);
}

}  // namespace

const char* to_string(RolloutState s) { return kStates[static_cast<int>(s)]; }

std::optional<RolloutState> parse_rollout_state(std::string_view text) {
  for (int i = 0; i < 4; ++i)
    if (text == kStates[i]) return static_cast<RolloutState>(i);
  return std::nullopt;
}

std::string rollout_json(const RolloutResult& r, std::string_view lang) {
  json stages = json::array();
  for (const auto& s : r.stages) stages.push_back(stage_json(s, lang));
  json regions = json::object();
  for (const auto& [name, url] : r.regions) regions[name] = url;
  json doc = {{"schema_version", RolloutResult::kSchemaVersion},
              {"kind", "rollout"},
              {"plan", {{"id", r.plan_id}, {"origin", r.plan_origin}, {"title", localized(r.plan_title)}}},
              {"baseline", r.baseline},
              {"candidate", r.candidate},
              {"regions", regions},
              {"embedded_endpoint", r.embedded_endpoint},
              {"seed", r.seed},
              {"requests_per_stage", json_or_null(r.requests_per_stage)},
              {"last_stage", r.last_stage + 1},
              {"state", to_string(r.state)},
              {"stopped_at", r.stopped_at ? json(*r.stopped_at + 1) : json(nullptr)},
              {"message", r.message},
              {"message_messages", messages_json(r.message_text)},
              {"rollback", rollback_json(r.rollback)},
              {"stages", stages}};
  return dump_json(doc, 2);
}

Result<RolloutResult> parse_rollout_result(std::string_view text, const std::string& origin) {
  auto parsed = parse_json(text);
  if (!parsed) return make_error(ErrorClass::Input, origin + ": " + parsed.error().detail);
  const json& doc = *parsed;
  try {
    return ResultReader(origin).read(doc);
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, e.what());
  }
}

// A text the result keeps in English and as messages, in `lang` (English: the very text kept).
std::string in_lang(const std::string& english, const MessageText& text, std::string_view lang) {
  return lang == "en" || text.empty() ? english : render(text, lang, english);
}

std::string rollout_text(const RolloutResult& r, std::string_view lang) {
  auto say = [lang](const char* id, std::vector<MessageArg> args) { return render(Message(id, std::move(args)), lang); };
  std::string out = r.plan_title.in(lang) + "\n" + say("text.rollout_arms", {{"baseline", r.baseline}, {"candidate", r.candidate}}) + "\n";
  for (const auto& s : r.stages) {
    out += "\n" + say("text.rollout_stage", {{"stage", std::to_string(s.index + 1)}, {"name", s.name}, {"mode", to_string(s.mode)},
                                             {"split", format("%g", s.split * 100)}, {"requests", std::to_string(s.samples.workload)},
                                             {"candidate", s.candidate}, {"verdict", to_string(s.verdict)}}) +
           (s.promoted ? say("text.promoted", {}) : "") + "\n";
    for (const auto& g : s.gates) {
      const GateResult& x = g.result;
      std::string interval = std::isnan(x.interval.low) ? "" : " [" + figure(x.interval.low, g.unit) + ", " + figure(x.interval.high, g.unit) + "]";
      out += "  " + std::string(to_string(x.verdict)) + "\t" + g.id + ": " + figure(x.statistic, g.unit) + interval + ", n = " + std::to_string(x.n) +
             (g.threshold ? say("text.threshold", {{"threshold", figure(*g.threshold, g.unit)}}) : "") + " — " +
             in_lang(x.reason, x.reason_text, lang) + "\n";
    }
    for (const auto& w : s.warnings) out += "  " + say("text.warning", {{"warning", w}}) + "\n";
  }
  if (r.rollback)
    out += "\n" + say("text.rollback", {{"seconds", format("%.2f", r.rollback->seconds)},
                                        {"left", std::to_string(r.rollback->candidate_sockets_after)},
                                        {"fds_before", std::to_string(r.rollback->fds_before)},
                                        {"fds_after", std::to_string(r.rollback->fds_after)}}) + "\n";
  out += "\n" + in_lang(r.message, r.message_text, lang) + "\n";
  return out;
}

}  // namespace anthro

namespace anthro {

std::string rollout_prometheus(const RolloutResult& r, const PrometheusLabels& labels) {
  PrometheusLabels base = labels;
  base.emplace_back("plan", r.plan_id);
  auto stage_labels = [&](const StageResult& st) {
    PrometheusLabels with = base;
    with.emplace_back("stage", st.name);
    return with;
  };
  PrometheusText out;
  out.family("anthro_wb_rollout_state", MetricType::Gauge, "The rollout's outcome, as a state set.");
  for (RolloutState s : {RolloutState::Passed, RolloutState::Failed, RolloutState::Paused, RolloutState::RolledBack}) {
    PrometheusLabels with = base;
    with.emplace_back("state", to_string(s));
    out.sample("anthro_wb_rollout_state", with, s == r.state ? 1 : 0);
  }
  out.family("anthro_wb_rollout_stage_verdict", MetricType::Gauge, "Each stage run's verdict, as a state set.");
  for (const StageResult& st : r.stages) write_verdict_state(out, "anthro_wb_rollout_stage_verdict", stage_labels(st), st.verdict);
  out.family("anthro_wb_rollout_stage_requests_total", MetricType::Counter, "Candidate requests of each stage.");
  for (const StageResult& st : r.stages)
    out.sample("anthro_wb_rollout_stage_requests_total", stage_labels(st), static_cast<double>(st.samples.requests));
  out.family("anthro_wb_rollout_gate_verdict", MetricType::Gauge, "Each gate's verdict in each stage, as a state set.");
  for (const StageResult& st : r.stages)
    for (const GateOutcome& g : st.gates) {
      PrometheusLabels with = stage_labels(st);
      with.emplace_back("gate", g.id);
      write_verdict_state(out, "anthro_wb_rollout_gate_verdict", with, g.result.verdict);
    }
  out.family("anthro_wb_rollout_stage_ttft_seconds", MetricType::Summary, "Time to first token in each stage, by arm.");
  for (const StageResult& st : r.stages)
    for (auto [arm, summary] : {std::pair{"baseline", &st.ttft_baseline}, {"candidate", &st.ttft_candidate}}) {
      PrometheusLabels with = stage_labels(st);
      with.emplace_back("arm", arm);
      seconds_summary_samples(out, "anthro_wb_rollout_stage_ttft_seconds", with, *summary);
    }
  return out.text();
}

}  // namespace anthro
