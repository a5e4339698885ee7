#include "util/message.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>

namespace anthro {
namespace {

struct Catalogue {
  std::mutex mutex;
  std::map<std::string, MessageTemplate, std::less<>> templates;
};

Catalogue& bare_catalogue() {
  static Catalogue c;
  return c;
}

// The catalogue with the late tables loaded, once, before it is first read.
Catalogue& catalogue() {
  static std::once_flag once;
  std::call_once(once, load_builtin_messages);
  return bare_catalogue();
}

const MessageTemplate* find(std::string_view id) {
  Catalogue& c = catalogue();
  std::lock_guard lock(c.mutex);
  auto it = c.templates.find(id);
  return it == c.templates.end() ? nullptr : &it->second;
}

std::string_view separator(std::string_view lang) { return lang == "zh_CN" ? "；" : "; "; }

}  // namespace

Message& Message::with(std::string name, std::vector<Message> text) {
  args.emplace_back(std::move(name), std::move(text));
  return *this;
}

void register_messages(std::span<const MessageTemplate> table) {
  Catalogue& c = bare_catalogue();
  std::lock_guard lock(c.mutex);
  for (const auto& t : table)
    if (!c.templates.emplace(t.id, t).second) throw std::logic_error(std::string("register_messages: \"") + t.id + "\" is taken");
}

std::vector<MessageTemplate> message_catalogue() {
  Catalogue& c = catalogue();
  std::lock_guard lock(c.mutex);
  std::vector<MessageTemplate> out;
  for (const auto& [_, t] : c.templates) out.push_back(t);
  return out;
}

bool has_message(std::string_view id) { return find(id) != nullptr; }

std::string name_in(std::string_view prefix, const std::string& english, std::string_view lang) {
  if (lang != "zh_CN" || english.empty()) return english;
  const std::string id = std::string(prefix) + english;
  return has_message(id) ? render(Message(id), lang) : english;
}

std::vector<std::string> message_placeholders(std::string_view pattern) {
  std::vector<std::string> out;
  for (std::size_t at = pattern.find('{'); at != std::string_view::npos; at = pattern.find('{', at + 1)) {
    std::size_t end = pattern.find('}', at);
    if (end == std::string_view::npos) break;
    out.emplace_back(pattern.substr(at + 1, end - at - 1));
  }
  return out;
}

std::string render(const Message& m, std::string_view lang) {
  const MessageTemplate* t = find(m.id);
  if (!t) return m.id;
  std::string_view pattern = lang == "zh_CN" && *t->zh_CN ? t->zh_CN : t->en;
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    std::size_t end = pattern[i] == '{' ? pattern.find('}', i) : std::string_view::npos;
    if (end == std::string_view::npos) {
      out += pattern[i];
      continue;
    }
    std::string_view name = pattern.substr(i + 1, end - i - 1);
    for (const auto& a : m.args)
      if (a.name == name) out += a.text.empty() ? a.value : render(a.text, lang);
    i = end;
  }
  return out;
}

MessageText plain_text(std::string text) { return {Message("plain", {{"text", std::move(text)}})}; }

std::string render(const MessageText& text, std::string_view lang, std::string_view fallback) {
  if (!fallback.empty())
    for (const auto& m : text)
      if (!find(m.id)) return std::string(fallback);
  std::string out;
  for (const auto& m : text) {
    if (!out.empty()) out += separator(lang);
    out += render(m, lang);
  }
  return out;
}

std::string message_number(double v) { return message_printf("%.4g", v); }

std::string message_printf(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace anthro

#include "util/message_json.h"

namespace anthro {

nlohmann::json messages_json(const MessageText& text) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : text) {
    nlohmann::json args = nlohmann::json::object();
    for (const auto& a : m.args) args[a.name] = a.text.empty() ? nlohmann::json(a.value) : messages_json(a.text);
    out.push_back({{"id", m.id}, {"args", args}});
  }
  return out;
}

MessageText messages_from_json(const nlohmann::json& j) {
  MessageText out;
  if (!j.is_array()) return out;
  for (const auto& m : j) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
    Message msg(m["id"].get<std::string>());
    if (auto args = m.find("args"); args != m.end() && args->is_object())
      for (const auto& [name, value] : args->items()) {
        if (value.is_string()) msg.args.emplace_back(name, value.get<std::string>());
        else if (value.is_array()) msg.with(name, messages_from_json(value));
      }
    out.push_back(std::move(msg));
  }
  return out;
}

std::string rendered_text(const nlohmann::json& object, const std::string& key, std::string_view lang) {
  std::string english = object.is_object() && object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
  if (lang != "zh_CN" || !object.is_object()) return english;
  auto it = object.find(key + "_messages");
  if (it == object.end()) return english;
  MessageText text = messages_from_json(*it);
  return text.empty() ? english : render(text, lang, english);
}

}  // namespace anthro
