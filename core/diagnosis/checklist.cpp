#include "diagnosis/checklist.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

#include "diagnosis/probe_kit.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Warn: return "warn";
    case Verdict::Fail: return "fail";
    case Verdict::Inconclusive: return "inconclusive";
    case Verdict::Manual: return "manual";
  }
  return "inconclusive";
}

void write_verdict_state(PrometheusText& out, std::string_view name, const PrometheusLabels& labels, Verdict v) {
  for (Verdict each : kVerdicts) {
    PrometheusLabels with = labels;
    with.emplace_back("verdict", to_string(each));
    out.sample(name, with, each == v ? 1 : 0);
  }
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  for (Verdict v : kVerdicts)
    if (text == to_string(v)) return v;
  return std::nullopt;
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::Fail: return 4;
    case Verdict::Warn: return 3;
    case Verdict::Inconclusive: return 2;
    case Verdict::Manual: return 1;
    case Verdict::Pass: return 0;
  }
  return 0;
}

const char* to_string(ProbeSource s) {
  switch (s) {
    case ProbeSource::Live: return "live";
    case ProbeSource::Capture: return "capture";
    case ProbeSource::System: return "system";
  }
  return "live";
}

const Threshold* ChecklistItem::threshold(std::string_view name) const {
  for (const auto& t : thresholds)
    if (t.name == name) return &t;
  return nullptr;
}

bool ChecklistItem::measured_by(ProbeSource s) const {
  return std::find(sources.begin(), sources.end(), s) != sources.end();
}

const ChecklistItem* Checklist::item(std::string_view id) const {
  for (const auto& i : items)
    if (i.id == id) return &i;
  return nullptr;
}

namespace {

// Item ids: lower-case letters, digits and '-'; threshold names may also hold '_'.
bool valid_id(const std::string& id, char extra = '-') {
  if (id.empty() || id.front() == '-' || id.front() == '_') return false;
  return std::all_of(id.begin(), id.end(),
                     [&](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == extra; });
}

// Reads one checklist document, naming where a field is wrong.
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  Result<Checklist> read(const json& doc) {
    Checklist c;
    c.origin = origin_;
    if (!doc.is_object()) return fail("", "the document", "expected a JSON object");
    if (!doc.contains("schema_version") || doc["schema_version"] != 1)
      return fail("", "schema_version", "expected 1 (the version this workbench reads)");
    if (auto ok = id(doc, "", "id", c.id); !ok) return ok.error();
    if (auto ok = text(doc, "", "title", c.title); !ok) return ok.error();
    if (!doc.contains("items") || !doc["items"].is_array() || doc["items"].empty())
      return fail("", "items", "expected a non-empty array of items");
    const json& items = doc["items"];
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto item = read_item(items[i], i);
      if (!item) return item.error();
      if (c.item(item->id)) return fail(where(i, item->id), "id", "\"" + item->id + "\" is used twice");
      c.items.push_back(std::move(*item));
    }
    return c;
  }

 private:
  static std::string where(std::size_t index, const std::string& item_id) {
    return "item " + std::to_string(index + 1) + (item_id.empty() ? std::string() : " (\"" + item_id + "\")");
  }

  Error fail(const std::string& place, const std::string& field, const std::string& why) const {
    return make_error(ErrorClass::Input, origin_ + ": " + (place.empty() ? "" : place + ": ") + "field " + field + ": " + why);
  }

  Result<bool> id(const json& o, const std::string& place, const std::string& key, std::string& out) const {
    if (!o.contains(key)) return fail(place, key, "missing");
    if (!o[key].is_string() || !valid_id(o[key].get<std::string>()))
      return fail(place, key, "expected an id of lower-case letters, digits and '-'");
    out = o[key].get<std::string>();
    return true;
  }

  Result<bool> text(const json& o, const std::string& place, const std::string& key, LocalizedText& out) const {
    if (!o.contains(key)) return fail(place, key, "missing");
    const json& t = o[key];
    if (!t.is_object() || !t.contains("en") || !t["en"].is_string() || t["en"].get<std::string>().empty())
      return fail(place, key, "expected {\"en\": \"...\", \"zh_CN\": \"...\"} with a non-empty English text");
    for (const auto& [lang, value] : t.items()) {
      if (lang != "en" && lang != "zh_CN") return fail(place, key + "." + lang, "unknown language (en, zh_CN)");
      if (!value.is_string()) return fail(place, key + "." + lang, "expected a string");
    }
    out.en = t["en"].get<std::string>();
    out.zh_CN = t.value("zh_CN", std::string());
    return true;
  }

  Result<ChecklistItem> read_item(const json& o, std::size_t index) const {
    ChecklistItem item;
    std::string place = where(index, "");
    if (!o.is_object()) return fail(place, "(item)", "expected an object");
    if (auto ok = id(o, place, "id", item.id); !ok) return ok.error();
    place = where(index, item.id);
    static const std::vector<std::string> known = {"id", "probe", "title", "remedy", "sources", "min_n", "n_unit",
                                                   "thresholds", "seed", "fault"};
    for (const auto& [key, _] : o.items())
      if (std::find(known.begin(), known.end(), key) == known.end()) return fail(place, key, "unknown field");
    if (!o.contains("probe") || !o["probe"].is_string()) return fail(place, "probe", "missing or not a string");
    item.probe = o["probe"].get<std::string>();
    if (item.probe != "manual" && !probe_kit::find_probe(item.probe))
      return fail(place, "probe", "\"" + item.probe + "\" is not a probe this workbench has");
    if (auto ok = text(o, place, "title", item.title); !ok) return ok.error();
    if (auto ok = text(o, place, "remedy", item.remedy); !ok) return ok.error();
    if (auto ok = sources(o, place, item); !ok) return ok.error();
    if (!o.contains("min_n") || !o["min_n"].is_number_unsigned()) return fail(place, "min_n", "expected a whole number ≥ 0");
    item.min_n = o["min_n"].get<std::size_t>();
    if (o.contains("n_unit")) {
      if (!o["n_unit"].is_string()) return fail(place, "n_unit", "expected a string");
      item.n_unit = o["n_unit"].get<std::string>();
    }
    for (const char* key : {"seed", "fault"}) {
      if (!o.contains(key)) continue;
      if (!o[key].is_string()) return fail(place, key, "expected a string");
      (std::string_view(key) == "seed" ? item.seed : item.fault) = o[key].get<std::string>();
    }
    if (auto ok = thresholds(o, place, item); !ok) return ok.error();
    return item;
  }

  Result<bool> sources(const json& o, const std::string& place, ChecklistItem& item) const {
    if (!o.contains("sources") || !o["sources"].is_array()) return fail(place, "sources", "expected an array");
    for (const auto& s : o["sources"]) {
      std::string name = s.is_string() ? s.get<std::string>() : std::string();
      std::optional<ProbeSource> source;
      for (ProbeSource p : {ProbeSource::Live, ProbeSource::Capture, ProbeSource::System})
        if (name == to_string(p)) source = p;
      if (!source) return fail(place, "sources", "\"" + name + "\": expected live, capture or system");
      item.sources.push_back(*source);
    }
    return true;
  }

  Result<bool> thresholds(const json& o, const std::string& place, ChecklistItem& item) const {
    if (!o.contains("thresholds") || !o["thresholds"].is_array()) return fail(place, "thresholds", "expected an array");
    const json& list = o["thresholds"];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& t = list[i];
      std::string at = "thresholds[" + std::to_string(i) + "]";
      if (!t.is_object()) return fail(place, at, "expected an object");
      Threshold th;
      if (!t.contains("name") || !t["name"].is_string() || !valid_id(t["name"].get<std::string>(), '_'))
        return fail(place, at + ".name", "missing, or not a name of lower-case letters, digits, '-' and '_'");
      th.name = t["name"].get<std::string>();
      if (!t.contains("value") || !t["value"].is_number()) return fail(place, at + ".value", "missing or not a number");
      th.value = t["value"].get<double>();
      if (t.contains("unit")) {
        if (!t["unit"].is_string()) return fail(place, at + ".unit", "expected a string");
        th.unit = t["unit"].get<std::string>();
      }
      std::string verdict = t.contains("verdict") && t["verdict"].is_string() ? t["verdict"].get<std::string>() : "";
      if (verdict != "warn" && verdict != "fail") return fail(place, at + ".verdict", "expected \"warn\" or \"fail\"");
      th.verdict = verdict == "warn" ? Verdict::Warn : Verdict::Fail;
      std::string compare = t.value("compare", std::string("above"));
      if (compare != "above" && compare != "below") return fail(place, at + ".compare", "expected \"above\" or \"below\"");
      th.compare = compare == "above" ? Compare::Above : Compare::Below;
      for (const auto& [key, _] : t.items())
        if (key != "name" && key != "value" && key != "unit" && key != "verdict" && key != "compare")
          return fail(place, at + "." + key, "unknown field");
      if (item.threshold(th.name)) return fail(place, at + ".name", "\"" + th.name + "\" is used twice");
      item.thresholds.push_back(std::move(th));
    }
    return true;
  }

  std::string origin_;
};

}  // namespace

Result<Checklist> parse_checklist(std::string_view text, const std::string& origin) {
  auto parsed = parse_json(text);
  if (!parsed) return make_error(ErrorClass::Input, origin + ": " + parsed.error().detail);
  const json& doc = *parsed;
  return Reader(origin).read(doc);
}

Result<Checklist> load_checklist(const std::string& path) {
  auto text = read_file(path, file_limit::kChecklist);
  if (!text) return make_error(ErrorClass::Input, text.error().detail);
  return parse_checklist(*text, path);
}

Result<bool> apply_threshold(Checklist& checklist, std::string_view spec) {
  auto usage = [&](const std::string& why) {
    return make_error(ErrorClass::Usage, "\"" + std::string(spec) + "\": " + why);  // the interface says where
  };
  auto eq = spec.find('=');
  if (eq == std::string_view::npos) return usage("expected ID=VALUE or ID.NAME=VALUE");
  std::string_view key = spec.substr(0, eq), value_text = spec.substr(eq + 1);
  auto dot = key.find('.');
  std::string id(key.substr(0, dot));
  std::string name = dot == std::string_view::npos ? std::string() : std::string(key.substr(dot + 1));
  double value = 0;
  auto [end, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
  if (value_text.empty() || ec != std::errc() || end != value_text.data() + value_text.size())
    return usage("\"" + std::string(value_text) + "\" is not a number");
  ChecklistItem* item = nullptr;
  for (auto& i : checklist.items)
    if (i.id == id) item = &i;
  if (!item) {
    std::string known;
    for (const auto& i : checklist.items) known += (known.empty() ? "" : ", ") + i.id;
    return usage("no item \"" + id + "\" in " + checklist.origin + " (items: " + known + ")");
  }
  if (item->thresholds.empty()) return usage("item \"" + id + "\" has no threshold to set");
  Threshold* t = name.empty() ? &item->thresholds.front() : nullptr;
  for (auto& th : item->thresholds)
    if (th.name == name) t = &th;
  if (!t) {
    std::string known;
    for (const auto& th : item->thresholds) known += (known.empty() ? "" : ", ") + th.name;
    return usage("item \"" + id + "\" has no threshold \"" + name + "\" (" + known + ")");
  }
  t->value = value;
  return true;
}

}  // namespace anthro
