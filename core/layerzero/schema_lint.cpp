#include "layerzero/schema_lint.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>

namespace anthro {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// What the text table and errors cut (the JSON output carries everything whole): a hostile
// document's long names or huge enums would otherwise make a screenful of one line.
constexpr std::size_t kShownValue = 40;
constexpr std::size_t kShownSegment = 32;
constexpr std::size_t kShownMembers = 8;

const json& empty_object() {
  static const json empty = json::object();
  return empty;
}

// Where a value sits, as a chain up to the root; the JSON pointer is written only when a
// difference or an error names it, since eager strings would copy a long name into the path of
// everything under it (a 1 MB property name over 100,000 subschemas: 100 GB).
struct Where {
  const Where* parent = nullptr;  // nullptr: the root
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;

  Where operator/(std::string_view k) const { return {this, k, 0, false}; }
  Where operator/(std::size_t i) const { return {this, {}, i, true}; }

  std::string pointer() const {
    if (!parent) return "";
    std::string out = parent->pointer() + "/";
    if (is_index) return out + std::to_string(index);
    for (char c : key) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
    return out;
  }
};

std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// At most `limit` characters, cut at a character boundary.
std::string cut(const std::string& s, std::size_t limit) {
  if (width(s) <= limit) return s;
  std::size_t chars = 0, i = 0;
  for (; i < s.size(); ++i)
    if ((s[i] & 0xC0) != 0x80 && ++chars > limit - 1) break;
  return s.substr(0, i) + "…";
}

// A name from the document as one printable line: controls escaped, invalid UTF-8 as U+FFFD.
std::string shown(const std::string& text) {
  std::string quoted = dump_json(json(text));
  return quoted.substr(1, quoted.size() - 2);
}

// Every level named (a depth error is about all of them), each name cut short.
std::string shown_path(const std::string& path) {
  if (path.empty()) return "the root";
  std::string out;
  for (std::size_t at = 1, end = 0; end != std::string::npos; at = end + 1) {
    end = path.find('/', at);
    out += "/" + cut(path.substr(at, end == std::string::npos ? end : end - at), kShownSegment);
  }
  return shown(out);
}

std::string a_kind_of(const json& v) {
  std::string name = v.type_name();
  if (v.is_null()) return name;
  return (name == "array" || name == "object" ? "an " : "a ") + name;
}

// The first container nested deeper than `limit` (the root being level 1), as a JSON pointer;
// iterative, since the point is to refuse what recursion could not survive.
std::optional<std::string> too_deep(const json& doc, std::size_t limit) {
  struct Frame {
    const json* node;
    json::const_iterator it;
    std::size_t index;
    Where where;
  };
  if (!doc.is_structured()) return std::nullopt;
  std::vector<Frame> stack;
  stack.reserve(limit);  // never reallocated: each frame's `where` points into the one below
  stack.push_back({&doc, doc.cbegin(), 0, Where{}});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.it == f.node->cend()) {
      stack.pop_back();
      continue;
    }
    const json& next = *f.it;
    Where at = f.node->is_object() ? f.where / std::string_view(f.it.key()) : f.where / f.index;
    ++f.it, ++f.index;
    if (!next.is_structured()) continue;
    if (stack.size() + 1 > limit) return at.pointer();
    stack.push_back({&next, next.cbegin(), 0, at});
  }
  return std::nullopt;
}

// Strings by their bytes, length first: the JSON writer would make all invalid UTF-8 one U+FFFD.
void canonical(const std::string& s, std::string& out) { out += "s" + std::to_string(s.size()) + ":" + s; }

// One spelling per value, so equality is string equality: numbers by value (an integral float is
// written as the integer it is), object members in key order (nlohmann::json keeps them sorted).
void canonical(const json& v, std::string& out) {
  if (v.is_string()) return canonical(v.get_ref<const std::string&>(), out);
  if (v.is_object()) {
    out += '{';
    for (const auto& [k, x] : v.items()) {
      canonical(k, out);
      canonical(x, out);
      out += ',';
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (const auto& x : v) {
      canonical(x, out);
      out += ',';
    }
    out += ']';
  } else if (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>()) {
    double d = v.get<double>();
    if (d >= -0x1p63 && d < 0x1p63) out += std::to_string(static_cast<long long>(d));
    else if (d >= 0 && d < 0x1p64) out += std::to_string(static_cast<unsigned long long>(d));
    else out += dump_json(v);
  } else {
    out += dump_json(v);
  }
}

std::string canonical(const json& v) {
  std::string out;
  canonical(v, out);
  return out;
}

bool is_schema_map(const std::string& k) {
  return k == "properties" || k == "patternProperties" || k == "definitions" || k == "$defs";
}

bool is_schema_list(const std::string& k) { return k == "allOf" || k == "anyOf" || k == "oneOf" || k == "items"; }

bool is_one_schema(const std::string& k) {
  static const std::set<std::string> keywords = {"items", "additionalProperties", "additionalItems", "not",
                                                 "contains", "propertyNames", "if", "then", "else"};
  return keywords.count(k) != 0;
}

bool is_string_list(const json& v) {
  return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); });
}

// `type` as a set of names: "string" and ["string"] are one type.
std::optional<json> type_set(const json& v) {
  if (v.is_string()) return json::array({v});
  if (is_string_list(v)) return v;
  return std::nullopt;
}

const json* member(const json& schema, const std::string& k) {
  auto it = schema.find(k);
  return it == schema.end() ? nullptr : &*it;
}

// Members of `from` that `other` lacks, each once, in `from`'s order.
std::vector<json> only_in(const json& from, const json& other) {
  std::set<std::string> theirs, seen;
  for (const auto& x : other) theirs.insert(canonical(x));
  std::vector<json> out;
  for (const auto& x : from) {
    std::string c = canonical(x);
    if (!theirs.count(c) && seen.insert(c).second) out.push_back(x);
  }
  return out;
}

// Past this many bytes of paths the differences are not listed: a hostile pair of documents
// could otherwise make each of many differences carry a long name in its path.
constexpr std::size_t kMaxListedPathBytes = 64 << 20;

class Walk {
 public:
  Walk(const std::string& a_name, const std::string& b_name) : a_name_(a_name), b_name_(b_name) {}

  Result<std::vector<SchemaDifference>> run(const json& a, const json& b) {
    const Where root;
    if (!root_ok(a, a_name_) || !root_ok(b, b_name_) || !shapes_ok(a, a_name_, root) ||
        !shapes_ok(b, b_name_, root))
      return *error_;
    object(a, b, root);
    if (path_bytes_ > kMaxListedPathBytes)
      return make_error(ErrorClass::Input, "schema",
                        a_name_ + " and " + b_name_ + " differ in more places than can be listed (" +
                            std::to_string(out_.size()) + " so far)");
    std::stable_sort(out_.begin(), out_.end(), [](const SchemaDifference& x, const SchemaDifference& y) {
      return std::tie(x.path, x.keyword) < std::tie(y.path, y.keyword);
    });
    return std::move(out_);
  }

 private:
  bool fail(const std::string& name, const std::string& what) {
    if (!error_) error_ = make_error(ErrorClass::Input, "schema", name + ": " + what);
    return false;
  }

  bool root_ok(const json& doc, const std::string& name) {
    if (auto deep = too_deep(doc, kMaxSchemaDepth))
      return fail(name, "nested deeper than " + std::to_string(kMaxSchemaDepth) + " levels at " + shown_path(*deep));
    if (!doc.is_object()) return fail(name, "the schema at the root is " + a_kind_of(doc) + ", not an object");
    return true;
  }

  // Every place the walk descends into must hold a schema, checked on each document alone so that
  // a bad one is named whatever the other side holds. Keywords of another shape (`"properties":
  // []`, `"not": 5`) are not descended into: they are compared as values.
  bool shapes_ok(const json& schema, const std::string& name, const Where& at) {
    for (const auto& [k, v] : schema.items()) {
      bool ok = true;
      const Where here = at / k;
      if (is_schema_map(k) && v.is_object())
        for (auto it = v.begin(); ok && it != v.end(); ++it)
          ok = subschema_ok(*it, name, here / it.key());
      else if (is_schema_list(k) && v.is_array())
        for (std::size_t i = 0; ok && i < v.size(); ++i) ok = subschema_ok(v[i], name, here / i);
      else if (is_one_schema(k) && v.is_object())
        ok = shapes_ok(v, name, here);
      if (!ok) return false;
    }
    return true;
  }

  // Draft-07 allows an object or a boolean (true: anything goes).
  bool subschema_ok(const json& v, const std::string& name, const Where& at) {
    if (v.is_object()) return shapes_ok(v, name, at);
    if (v.is_boolean()) return true;
    return fail(name, "the schema at " + shown_path(at.pointer()) + " is " + a_kind_of(v) +
                          ", not an object or a boolean");
  }

  void add(const Where& at, const std::string& keyword, const json* a, const json* b, SchemaDiffKind kind,
           std::vector<json> only_a = {}, std::vector<json> only_b = {}) {
    if (path_bytes_ > kMaxListedPathBytes) return;
    SchemaDifference d{at.pointer(), keyword, std::nullopt, std::nullopt, kind, std::move(only_a), std::move(only_b)};
    path_bytes_ += d.path.size() + d.keyword.size();
    if (a) d.a = *a;
    if (b) d.b = *b;
    out_.push_back(std::move(d));
  }

  // One side only: the schema as a whole; both: walked when both are objects.
  void pair(const json* a, const json* b, const Where& at) {
    if (a && b && a->is_object() && b->is_object()) return object(*a, *b, at);
    value("", a, b, at);
  }

  void object(const json& a, const json& b, const Where& at) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    required(member(a, "required"), member(b, "required"), at);
    for (const auto& k : keys)
      if (k != "required") keyword(k, member(a, k), member(b, k), at);
  }

  void keyword(const std::string& k, const json* a, const json* b, const Where& at) {
    auto object_or_absent = [](const json* v) { return !v || v->is_object(); };
    if (is_schema_map(k) && object_or_absent(a) && object_or_absent(b))
      return schema_map(a ? *a : empty_object(), b ? *b : empty_object(), at / k);
    if (!a || !b) return value(k, a, b, at);
    if (is_schema_list(k) && a->is_array() && b->is_array()) return schema_list(*a, *b, at / k);
    if (is_one_schema(k) && a->is_object() && b->is_object()) return pair(a, b, at / k);
    if (k == "enum" && a->is_array() && b->is_array()) return as_set(k, *a, *b, *a, *b, at);
    if (k == "type") return type(*a, *b, at);
    if (k == "$ref") return ref(*a, *b, at);
    value(k, a, b, at);
  }

  void schema_map(const json& a, const json& b, const Where& at) {
    std::set<std::string> names;
    for (const auto& [k, v] : a.items()) names.insert(k);
    for (const auto& [k, v] : b.items()) names.insert(k);
    for (const auto& name : names) pair(member(a, name), member(b, name), at / name);
  }

  // allOf, anyOf, oneOf and the array form of items: element i against element i.
  void schema_list(const json& a, const json& b, const Where& at) {
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
      pair(i < a.size() ? &a[i] : nullptr, i < b.size() ? &b[i] : nullptr, at / i);
  }

  // Reported on each field required on one side only, where a reader of the table looks for it.
  void required(const json* a, const json* b, const Where& at) {
    auto list_or_absent = [](const json* v) { return !v || is_string_list(*v); };
    if (!list_or_absent(a) || !list_or_absent(b)) return value("required", a, b, at);
    const json none = json::array();
    const json& ra = a ? *a : none;
    const json& rb = b ? *b : none;
    for (const auto& name : only_in(ra, rb)) required_on_one_side(at, name.get_ref<const std::string&>(), true);
    for (const auto& name : only_in(rb, ra)) required_on_one_side(at, name.get_ref<const std::string&>(), false);
  }

  void required_on_one_side(const Where& at, const std::string& name, bool on_a) {
    const json a = on_a, b = !on_a;
    add(at / "properties" / name, "required", &a, &b, SchemaDiffKind::Differs);
  }

  // `shown_a`/`shown_b` are reported; `set_a`/`set_b` are compared (the type names as a list).
  void as_set(const std::string& k, const json& shown_a, const json& shown_b, const json& set_a, const json& set_b,
              const Where& at) {
    auto only_a = only_in(set_a, set_b), only_b = only_in(set_b, set_a);
    if (!only_a.empty() || !only_b.empty())
      add(at, k, &shown_a, &shown_b, SchemaDiffKind::Differs, std::move(only_a), std::move(only_b));
  }

  void type(const json& a, const json& b, const Where& at) {
    auto ta = type_set(a), tb = type_set(b);
    if (ta && tb) return as_set("type", a, b, *ta, *tb, at);
    value("type", &a, &b, at);
  }

  void ref(const json& a, const json& b, const Where& at) {
    if (canonical(a) != canonical(b)) return add(at, "$ref", &a, &b, SchemaDiffKind::Differs);
    bool inside = a.is_string() && a.get_ref<const std::string&>().rfind('#', 0) == 0;
    if (!inside) add(at, "$ref", &a, &b, SchemaDiffKind::NotFollowed);
  }

  void value(const std::string& k, const json* a, const json* b, const Where& at) {
    if (!a && !b) return;
    if (!a) return add(at, k, a, b, SchemaDiffKind::MissingOnA);
    if (!b) return add(at, k, a, b, SchemaDiffKind::MissingOnB);
    if (canonical(*a) != canonical(*b)) add(at, k, a, b, SchemaDiffKind::Differs);
  }

  std::string a_name_, b_name_;
  std::vector<SchemaDifference> out_;
  std::size_t path_bytes_ = 0;
  std::optional<Error> error_;
};

// --- the text table -------------------------------------------------------------------------

std::string cell(const std::optional<json>& v) { return v ? cut(dump_json(*v), kShownValue) : "(absent)"; }

std::string members(const std::vector<json>& values) {
  std::string out;
  for (std::size_t i = 0; i < std::min(values.size(), kShownMembers); ++i)
    out += (i ? ", " : "") + cut(dump_json(values[i]), kShownValue);
  if (values.size() > kShownMembers) out += " and " + std::to_string(values.size() - kShownMembers) + " more";
  return out;
}

std::string verdict(const SchemaDifference& d) {
  switch (d.kind) {
    case SchemaDiffKind::MissingOnA: return "missing in A";
    case SchemaDiffKind::MissingOnB: return "missing in B";
    case SchemaDiffKind::NotFollowed: return "$ref not followed";
    case SchemaDiffKind::Differs: break;
  }
  std::string out = "differs";
  if (!d.only_a.empty()) out += "; only A has " + members(d.only_a);
  if (!d.only_b.empty()) out += "; only B has " + members(d.only_b);
  return out;
}

using Row = std::vector<std::string>;

std::string table(const std::vector<Row>& rows) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], width(r[i]));
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += r[i] + (i + 1 < r.size() ? std::string(widths[i] - width(r[i]) + 2, ' ') : "");
    out += line + "\n";
  }
  return out;
}

}  // namespace

const char* to_string(SchemaDiffKind kind) {
  switch (kind) {
    case SchemaDiffKind::MissingOnA: return "missing_on_a";
    case SchemaDiffKind::MissingOnB: return "missing_on_b";
    case SchemaDiffKind::Differs: return "differs";
    case SchemaDiffKind::NotFollowed: return "not_followed";
  }
  return "differs";
}

Result<std::vector<SchemaDifference>> lint_schemas(const json& a, const std::string& a_name, const json& b,
                                                   const std::string& b_name) {
  return Walk(a_name, b_name).run(a, b);
}

std::string schema_lint_text(const std::vector<SchemaDifference>& diffs, const std::string& a_name,
                             const std::string& b_name) {
  std::string out = "A: " + shown(a_name) + "\nB: " + shown(b_name) + "\n";
  if (diffs.empty()) return out + "0 differences: the schemas agree\n";
  std::vector<Row> rows = {{"field", "keyword", "A", "B", "verdict"}};
  for (const auto& d : diffs)
    rows.push_back({d.path.empty() ? "(root)" : shown_path(d.path),
                    d.keyword.empty() ? "(schema)" : shown(cut(d.keyword, kShownSegment)), cell(d.a), cell(d.b),
                    verdict(d)});
  return out + table(rows) + std::to_string(diffs.size()) + (diffs.size() == 1 ? " difference\n" : " differences\n");
}

std::string schema_lint_json(const std::vector<SchemaDifference>& diffs, const std::string& a_name,
                             const std::string& b_name) {
  ordered_json list = ordered_json::array();
  for (const auto& d : diffs) {
    ordered_json e = {{"path", d.path}, {"keyword", d.keyword}, {"kind", to_string(d.kind)}};
    if (d.a) e["a"] = ordered_json(*d.a);
    if (d.b) e["b"] = ordered_json(*d.b);
    if (!d.only_a.empty() || !d.only_b.empty()) {
      e["only_a"] = ordered_json::array();
      e["only_b"] = ordered_json::array();
      for (const auto& v : d.only_a) e["only_a"].push_back(ordered_json(v));
      for (const auto& v : d.only_b) e["only_b"].push_back(ordered_json(v));
    }
    list.push_back(std::move(e));
  }
  ordered_json doc = {{"kind", "schema_lint"}, {"a", a_name},           {"b", b_name},
                      {"agree", diffs.empty()}, {"count", diffs.size()}, {"differences", std::move(list)}};
  return dump_json(doc);
}

}  // namespace anthro
