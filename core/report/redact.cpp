#include "report/redact.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <sstream>

#include "crypto/hash.h"
#include "util/bytes.h"
#include "util/json.h"

namespace anthro {
namespace {

using nlohmann::json;

const char* const kMask = "[redacted]";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool ends_with(const std::string& s, std::string_view end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// Any name ending in api_key: ANTHROPIC_API_KEY, x-api-key, apiKey.
bool api_key_name(const std::string& name) {
  const std::string l = lower(name);
  return ends_with(l, "api_key") || ends_with(l, "apikey") || ends_with(l, "api-key");
}

// Names whose values are secrets whatever they hold: JSON members, header names, assignments.
bool secret_field(const std::string& name) {
  static const std::set<std::string> names = {"authorization", "proxy-authorization", "password", "secret",
                                              "private_key", "client_secret", "access_token", "bearer",
                                              "cookie", "set-cookie"};
  return names.count(lower(name)) != 0 || api_key_name(name);
}

bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// Whether `key` opens as Anthropic's keys do: sk-ant-, a lowercase kind, a version, a dash
// ("sk-ant-api03-", "sk-ant-admin01-").
bool anthropic_key_prefix(std::string_view key) {
  if (key.rfind("sk-ant-", 0) != 0) return false;
  std::size_t i = 7;
  while (i < key.size() && std::islower(static_cast<unsigned char>(key[i]))) ++i;
  const std::size_t digits = i;
  while (i < key.size() && std::isdigit(static_cast<unsigned char>(key[i]))) ++i;
  return digits > 7 && i > digits && i < key.size() && key[i] == '-';
}

// Where the sk-… key starting at `at` ends, or `at` when none starts there. Keys run over
// [A-Za-z0-9_-] for more than 20 characters; one glued to a word before it counts only with
// Anthropic's prefix, so "task-ant…" and "desk-ant-files-2024" stay.
std::size_t api_key_end(const std::string& s, std::size_t at) {
  if (s.compare(at, 3, "sk-") != 0) return at;
  std::size_t end = at + 3;
  while (end < s.size() && key_char(s[end])) ++end;
  if (end - at <= 20) return at;
  const bool in_word = at > 0 && std::isalnum(static_cast<unsigned char>(s[at - 1]));
  return !in_word || anthropic_key_prefix(std::string_view(s).substr(at, end - at)) ? end : at;
}

// Every sk-… API key in `s` masked, wherever it sits: in quotes, parentheses, after `key=`.
std::string mask_api_keys(const std::string& s, std::vector<std::string>& what) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = s.find("sk-"); at != std::string::npos; at = s.find("sk-", at + 1)) {
    std::size_t end = api_key_end(s, at);
    if (end == at) continue;
    out += s.substr(from, at - from) + kMask;
    what.push_back("API key");
    from = at = end;
  }
  return from == 0 ? s : out + s.substr(from);
}

struct Span {
  std::size_t begin, end;
};

// The value assigned at `at`: inside its quotes when quoted (backslash-escaped quotes when the
// name's were), else up to the next delimiter, an auth scheme's word ("Bearer") taken along.
Span assigned_value(const std::string& s, std::size_t at, bool escaped_quotes) {
  const std::string quote = escaped_quotes ? "\\\"" : at < s.size() && s[at] == '\'' ? "'" : "\"";
  if (s.compare(at, quote.size(), quote) == 0) {
    const std::size_t begin = at + quote.size();
    for (std::size_t i = begin; i < s.size(); ++i) {
      if (!escaped_quotes && s[i] == '\\') ++i;
      else if (s.compare(i, quote.size(), quote) == 0) return {begin, i};
    }
    return {begin, s.size()};
  }
  auto word_end = [&](std::size_t i) {
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && !std::strchr(",;&}])'\"", s[i])) ++i;
    return i;
  };
  std::size_t end = word_end(at);
  const std::string scheme = lower(s.substr(at, end - at));
  if ((scheme == "bearer" || scheme == "basic") && end < s.size() && s[end] == ' ') end = word_end(end + 1);
  return {at, end};
}

// Where the value assigned to the secret `name` ending at `j` starts (past its closing quote,
// the `:` or `=` and spaces), or npos when nothing is assigned to it there.
std::size_t value_start(const std::string& s, std::string_view name, std::size_t j, bool& escaped) {
  escaped = j + 1 < s.size() && s[j] == '\\' && s[j + 1] == '"';
  const bool quoted = escaped || (j < s.size() && (s[j] == '"' || s[j] == '\''));
  j += escaped ? 2 : quoted ? 1 : 0;
  while (j < s.size() && s[j] == ' ') ++j;
  // "no secret: 1234" is prose: a bare name before a colon counts only when it is an API key's.
  const bool assigns = j < s.size() && (s[j] == '=' || (s[j] == ':' && (quoted || api_key_name(std::string(name)))));
  if (!assigns || !secret_field(std::string(name))) return std::string::npos;
  for (++j; j < s.size() && s[j] == ' ';) ++j;
  return j;
}

// Values of secret names assigned anywhere in a string: {"api_key": "…"} (JSON carried in a
// string, escaped or not), api_key=…, ANTHROPIC_API_KEY="…", x-api-key: ….
std::string mask_secret_members(const std::string& s, std::vector<std::string>& what) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t name_end = i;
    while (name_end < s.size() && key_char(s[name_end])) ++name_end;
    if (name_end == i || (i > 0 && key_char(s[i - 1]))) {
      i = std::max(name_end, i + 1);
      continue;
    }
    const std::string_view name = std::string_view(s).substr(i, name_end - i);
    bool escaped = false;
    const std::size_t at = value_start(s, name, name_end, escaped);
    const Span value = at == std::string::npos ? Span{0, 0} : assigned_value(s, at, escaped);
    if (value.end == value.begin) {
      i = name_end;
      continue;
    }
    out += s.substr(from, value.begin - from) + kMask;
    what.push_back(lower(std::string(name)) + " value");
    from = i = value.end;
  }
  return from == 0 ? s : out + s.substr(from);
}

// Fields holding what a person typed or a model answered.
bool prompt_field(const std::string& name) {
  static const std::set<std::string> names = {"text", "text_hex", "prompt", "system", "content", "messages"};
  return names.count(name) != 0;
}

// NSS key log labels (and anthro-v1's), whose last field is the secret.
bool keylog_label(const std::string& word) {
  static const std::set<std::string> labels = {
      "CLIENT_RANDOM", "CLIENT_EARLY_TRAFFIC_SECRET", "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
      "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0",
      "EARLY_EXPORTER_SECRET", "EXPORTER_SECRET", "ANTHRO_V1"};
  return labels.count(word) != 0;
}

bool hex_word(const std::string& w) {
  return w.size() >= 16 && std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isxdigit(c); });
}

// A line of text with its secrets replaced: key log lines keep their label and client random,
// header lines their name, "Bearer X" and sk-… API keys lose X.
std::string redact_line(const std::string& line, std::vector<std::string>& what) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  // A key log line, alone or quoted inside a message: LABEL CLIENT_RANDOM SECRET...
  for (std::size_t i = 0; i + 2 < words.size(); ++i) {
    if (!keylog_label(words[i]) || !hex_word(words[i + 1]) || !hex_word(words[i + 2])) continue;
    std::string out;
    for (std::size_t k = 0; k < words.size(); ++k)
      out += (k ? " " : "") + (k > i + 1 && hex_word(words[k]) ? std::string(kMask) : words[k]);
    what.push_back("key log secret");
    return out;
  }
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(" \t"));
    if (secret_field(name)) {
      what.push_back(lower(name) + " header");
      return line.substr(0, colon + 1) + " " + kMask;
    }
  }
  std::string out;
  bool changed = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    if (i > 0 && lower(words[i - 1]) == "bearer") w = kMask, what.push_back("bearer token");
    changed |= w != words[i];
    out += (i ? " " : "") + w;
  }
  return mask_api_keys(mask_secret_members(changed ? out : line, what), what);
}

// Whether the text holds any marker a secret is found by (a key log label, a header's colon or
// an assignment's =, "Bearer", an sk- key, a PEM block); most strings of a result hold none and are passed by.
bool may_hold_secret(std::string_view t) {
  for (std::string_view marker : {":", "=", "sk-", "SECRET", "CLIENT_RANDOM", "ANTHRO_V1", "earer", "-----BEGIN"})
    if (t.find(marker) != std::string_view::npos) return true;
  return false;
}

// The string with PEM private-key blocks removed, then line by line.
std::string redact_string(const std::string& text, std::vector<std::string>& what) {
  if (!may_hold_secret(text)) return text;
  std::string s = text;
  for (std::size_t begin; (begin = s.find("-----BEGIN ")) != std::string::npos;) {
    auto label_end = s.find("-----", begin + 11);
    if (label_end == std::string::npos) break;
    std::string label = s.substr(begin + 11, label_end - begin - 11);
    if (label.find("PRIVATE KEY") == std::string::npos) break;
    std::string end_marker = "-----END " + label + "-----";
    auto end = s.find(end_marker, label_end);
    std::size_t stop = end == std::string::npos ? s.size() : end + end_marker.size();
    s.replace(begin, stop - begin, std::string("[redacted ") + label + "]");
    what.push_back("private key");
  }
  std::string out;
  std::size_t start = 0;
  bool changed = s != text;
  while (start <= s.size()) {
    auto nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::string red = redact_line(line, what);
    changed |= red != line;
    out += red;
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return changed ? out : text;
}

std::string summary_of(const json& v) {
  std::string bytes = v.is_string() ? v.get<std::string>() : dump_json(v);
  return "[" + std::to_string(bytes.size()) + " bytes, sha256 " + sha256_hex(bytes).substr(0, 16) + "…]";
}

// JSON pointer of the member being walked, built only when something is logged.
std::string pointer(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += "/" + p;
  return out;
}

void walk(json& v, std::vector<std::string>& path, bool prompts, std::vector<std::string>& log) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      path.push_back(it.key());
      if (secret_field(it.key()) && !it.value().is_null()) {
        it.value() = kMask;
        log.push_back(pointer(path) + ": " + it.key());
      } else if (prompts && prompt_field(it.key()) && !it.value().is_null()) {
        it.value() = summary_of(it.value());
        log.push_back(pointer(path) + ": prompt or answer text");
      } else if (it.value().is_structured() || it.value().is_string()) {
        walk(it.value(), path, prompts, log);
      }
      path.pop_back();
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_structured() && !v[i].is_string()) continue;
      path.push_back(std::to_string(i));
      walk(v[i], path, prompts, log);
      path.pop_back();
    }
  } else if (v.is_string()) {
    std::vector<std::string> what;
    std::string red = redact_string(v.get_ref<const std::string&>(), what);
    if (what.empty()) return;
    v = red;
    std::sort(what.begin(), what.end());
    what.erase(std::unique(what.begin(), what.end()), what.end());
    std::string kinds;
    for (const auto& w : what) kinds += (kinds.empty() ? "" : ", ") + w;
    log.push_back(pointer(path) + ": " + kinds);
  }
}

}  // namespace

std::string redact_text(const std::string& text, std::vector<std::string>& what) { return redact_string(text, what); }

std::vector<std::string> redact_result(json& doc, bool prompts) {
  std::vector<std::string> log;
  std::vector<std::string> path;
  walk(doc, path, prompts, log);
  return log;
}

}  // namespace anthro
