#include "affinity/context_hash.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "crypto/hash.h"
#include "util/json.h"

namespace anthro {
namespace {

using nlohmann::ordered_json;

constexpr std::size_t kHashedMessages = 3;
constexpr std::size_t kHashDigits = 16;

// A finite, non-zero double as its shortest round-trip digits d1…dk and the exponent n with
// x = 0.d1…dk × 10^n: the (k, n) of ECMAScript's Number::toString and of Python's repr.
struct Decimal {
  bool negative = false;
  std::string digits;
  int n = 0;
};

Decimal shortest(double x) {
  char buf[64];
  auto end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific).ptr;
  std::string_view s(buf, static_cast<std::size_t>(end - buf));  // "-d.ddde+XX"
  Decimal d;
  d.negative = s.front() == '-';
  if (d.negative) s.remove_prefix(1);
  auto e = s.find('e');
  for (char c : s.substr(0, e))
    if (c != '.') d.digits += c;
  int exponent = 0;
  std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exponent);
  d.n = exponent + 1;
  return d;
}

std::string exponent_form(const Decimal& d, int min_exponent_digits) {
  std::string out = d.digits.substr(0, 1);
  if (d.digits.size() > 1) out += "." + d.digits.substr(1);
  int e = d.n - 1;
  std::string digits = std::to_string(std::abs(e));
  if (static_cast<int>(digits.size()) < min_exponent_digits) digits.insert(0, min_exponent_digits - digits.size(), '0');
  return out + "e" + (e < 0 ? "-" : "+") + digits;
}

// Digits with the decimal point placed by n; `dot_zero` writes an integral value as "1.0".
std::string fixed_form(const Decimal& d, bool dot_zero) {
  const int k = static_cast<int>(d.digits.size());
  if (d.n <= 0) return "0." + std::string(static_cast<std::size_t>(-d.n), '0') + d.digits;
  if (d.n >= k) return d.digits + std::string(static_cast<std::size_t>(d.n - k), '0') + (dot_zero ? ".0" : "");
  return d.digits.substr(0, static_cast<std::size_t>(d.n)) + "." + d.digits.substr(static_cast<std::size_t>(d.n));
}

// ECMAScript Number::toString (ECMA-262 §6.1.6.1.20): what JSON.stringify writes.
std::string ecmascript_number(double x) {
  if (x == 0) return "0";  // -0 too
  Decimal d = shortest(x);
  std::string body = d.n >= -5 && d.n <= 21 ? fixed_form(d, false) : exponent_form(d, 1);
  return (d.negative ? "-" : "") + body;
}

// Python's repr(float): fixed between 1e-4 and 1e16, with ".0" when integral.
std::string python_float(double x) {
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  Decimal d = shortest(x);
  std::string body = d.n > -4 && d.n <= 16 ? fixed_form(d, true) : exponent_form(d, 2);
  return (d.negative ? "-" : "") + body;
}

std::string number_text(const ordered_json& v, HashSerialisation how) {
  const bool js = how == HashSerialisation::Canonical;
  if (v.is_number_float()) return js ? ecmascript_number(v.get<double>()) : python_float(v.get<double>());
  // JavaScript reads every number as a double (beyond 2^53 an integer changes); Python keeps
  // an integer's digits.
  if (v.is_number_unsigned())
    return js ? ecmascript_number(static_cast<double>(v.get<std::uint64_t>())) : std::to_string(v.get<std::uint64_t>());
  return js ? ecmascript_number(static_cast<double>(v.get<std::int64_t>())) : std::to_string(v.get<std::int64_t>());
}

// One code point of valid UTF-8 (nlohmann has checked it) at `i`, which moves past it.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  auto b = static_cast<unsigned char>(s[i++]);
  if (b < 0x80) return b;
  int more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
  char32_t c = b & (0x3F >> more);
  while (more-- > 0 && i < s.size()) c = (c << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
  return c;
}

void append_u_escape(std::string& out, unsigned unit) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04x", unit);
  out += buf;
}

// JSON.stringify's escapes; Python's default also writes every code point from U+007F as
// \uXXXX (a UTF-16 surrogate pair above U+FFFF).
void append_string(std::string& out, std::string_view s, HashSerialisation how) {
  out += '"';
  if (how == HashSerialisation::Canonical) {
    append_json_escaped(out, s);
  } else {
    std::size_t ascii = 0;  // start of the ASCII run not yet written
    for (std::size_t i = 0; i < s.size();) {
      std::size_t start = i;
      char32_t c = next_code_point(s, i);
      if (c < 0x7F) continue;
      append_json_escaped(out, s.substr(ascii, start - ascii));
      ascii = i;
      if (c <= 0xFFFF) {
        append_u_escape(out, c);
      } else {
        append_u_escape(out, 0xD800 + ((c - 0x10000) >> 10));
        append_u_escape(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
      }
    }
    append_json_escaped(out, s.substr(ascii));
  }
  out += '"';
}

void append_value(std::string& out, const ordered_json& v, HashSerialisation how) {
  switch (v.type()) {
    case ordered_json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : v.items()) {
        if (!first) out += ',';
        first = false;
        append_string(out, key, how);
        out += ':';
        append_value(out, member, how);
      }
      out += '}';
      return;
    }
    case ordered_json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        append_value(out, v[i], how);
      }
      out += ']';
      return;
    }
    case ordered_json::value_t::string: append_string(out, v.get_ref<const std::string&>(), how); return;
    case ordered_json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case ordered_json::value_t::number_integer:
    case ordered_json::value_t::number_unsigned:
    case ordered_json::value_t::number_float: out += number_text(v, how); return;
    default: out += "null"; return;
  }
}

std::string hash_of(const std::string& serialised) {
  return serialised.empty() ? std::string() : sha256_hex(serialised).substr(0, kHashDigits);
}

std::string serialised_messages(const ordered_json& messages, HashSerialisation how) {
  ordered_json hashed = hashed_messages(messages);
  return hashed.empty() ? std::string() : affinity_json(hashed, how);
}

// --- Why the serialisations differ.

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string code_point_text(std::string_view s, std::size_t at, std::size_t end) {
  std::size_t i = at;
  char32_t c = next_code_point(s, i);
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  std::string text = buf;
  if (c >= 0xA0) text += " '" + std::string(s.substr(at, std::min(i, end) - at)) + "'";
  return text;
}

void string_difference(std::string_view s, const std::string& where, std::vector<HashDifference>& out) {
  std::size_t count = 0, first = std::string_view::npos;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    if (next_code_point(s, i) >= 0x7F) {
      if (!count++) first = start;
    }
  }
  if (!count) return;
  std::string what = code_point_text(s, first, s.size()) + ": raw UTF-8 in JavaScript, \\u escapes in Python";
  if (count > 1) what = std::to_string(count) + " characters from U+007F, the first " + what;
  out.push_back({where, std::move(what)});
}

void collect_differences(const ordered_json& v, const std::string& where, std::vector<HashDifference>& out) {
  if (v.is_object()) {
    for (const auto& [key, member] : v.items()) {
      std::string at = where + "/" + pointer_token(key);
      string_difference(key, at + " (the member name)", out);
      collect_differences(member, at, out);
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) collect_differences(v[i], where + "/" + std::to_string(i), out);
  } else if (v.is_string()) {
    string_difference(v.get_ref<const std::string&>(), where, out);
  } else if (v.is_number()) {
    std::string js = number_text(v, HashSerialisation::Canonical), py = number_text(v, HashSerialisation::PythonDefault);
    if (js != py) out.push_back({where, "a number: JavaScript writes " + js + ", Python " + py});
  }
}

}  // namespace

std::string affinity_json(const ordered_json& value, HashSerialisation how) {
  std::string out;
  append_value(out, value, how);
  return out;
}

ordered_json hashed_messages(const ordered_json& messages) {
  ordered_json out = ordered_json::array();
  if (!messages.is_array()) return out;
  std::size_t from = messages.size() > kHashedMessages ? messages.size() - kHashedMessages : 0;
  for (std::size_t i = from; i < messages.size(); ++i) out.push_back(messages[i]);
  return out;
}

std::string context_hash(const ordered_json& messages, HashSerialisation how) {
  return hash_of(serialised_messages(messages, how));
}

std::string response_context_hash(const ordered_json& request_messages, std::string_view reply_text,
                                  HashSerialisation how) {
  ordered_json messages = request_messages.is_array() ? request_messages : ordered_json::array();
  messages.push_back({{"role", "assistant"}, {"content", std::string(reply_text)}});
  return context_hash(messages, how);
}

Result<ContextHashReport> context_hash_report(std::string_view json_text) {
  auto doc = parse_ordered_json(json_text);
  if (!doc) return doc.error();
  const ordered_json* messages = &*doc;
  if (doc->is_object()) {
    auto it = doc->find("messages");
    if (it == doc->end()) return make_error(ErrorClass::Input, "an object without a \"messages\" member: expected a messages array or a request body");
    messages = &*it;
  }
  if (!messages->is_array())
    return make_error(ErrorClass::Input, std::string("\"messages\" is ") + messages->type_name() + ", not an array");
  ContextHashReport r;
  r.messages = messages->size();
  ordered_json hashed = hashed_messages(*messages);
  r.hashed = hashed.size();
  r.canonical = serialised_messages(*messages, HashSerialisation::Canonical);
  r.python = serialised_messages(*messages, HashSerialisation::PythonDefault);
  r.all_messages = *messages;
  r.canonical_hash = hash_of(r.canonical);
  r.python_hash = hash_of(r.python);
  for (std::size_t i = 0; i < hashed.size(); ++i)
    collect_differences(hashed[i], "/" + std::to_string(r.messages - r.hashed + i), r.differences);
  return r;
}

std::string response_context_hash(const ContextHashReport& report, std::string_view reply_text) {
  return response_context_hash(report.all_messages, reply_text);
}

std::string context_hash_json(const ContextHashReport& report, const std::string& file,
                              const std::optional<std::string>& reply_text) {
  ordered_json differences = ordered_json::array();
  for (const auto& d : report.differences) differences.push_back({{"where", d.where}, {"what", d.what}});
  ordered_json doc = {{"kind", "context_hash"},
                      {"file", file},
                      {"messages", report.messages},
                      {"hashed", report.hashed},
                      {"canonical", {{"serialized", report.canonical}, {"hash", report.canonical_hash}}},
                      {"python_default", {{"serialized", report.python}, {"hash", report.python_hash}}},
                      {"variants_agree", report.agree()},
                      {"differences", std::move(differences)}};
  if (reply_text) doc["response_hash"] = response_context_hash(report, *reply_text);
  return dump_json(doc);
}

}  // namespace anthro
