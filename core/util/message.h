// A text core writes for a person (a checklist item's reason, a cause's why, a gate's reason, a
// rollback's), kept as a message id with its arguments so each language renders it: the
// catalogue holds every id's English template (the default) and its 简体中文 one. Core's own
// areas and each wire format's folder register their tables (register_messages); the JSON keeps
// the English text and adds the messages (message_json.h).
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace anthro {

struct Message;

// A named argument: a value already formatted (a number, a name), or a text of its own
// rendered in the same language (`text` not empty).
struct MessageArg {
  std::string name;
  std::string value;
  std::vector<Message> text;

  // Defined below, once Message is complete (a vector of an incomplete type may be a member,
  // but not be made or destroyed).
  MessageArg(std::string arg_name, std::string arg_value);
  MessageArg(std::string arg_name, std::vector<Message> arg_text);
};

struct Message {
  std::string id;
  std::vector<MessageArg> args;

  Message() = default;
  explicit Message(std::string message_id, std::vector<MessageArg> message_args = {})
      : id(std::move(message_id)), args(std::move(message_args)) {}
  // A nested text as an argument.
  Message& with(std::string name, std::vector<Message> text);
};

inline MessageArg::MessageArg(std::string arg_name, std::string arg_value)
    : name(std::move(arg_name)), value(std::move(arg_value)) {}
inline MessageArg::MessageArg(std::string arg_name, std::vector<Message> arg_text)
    : name(std::move(arg_name)), text(std::move(arg_text)) {}

// Several messages a person reads as one line: joined by "; " (English) or "；".
using MessageText = std::vector<Message>;

// A line some lower layer wrote in English (an OS error, a capture's structure problem), carried
// as it is where messages are expected.
MessageText plain_text(std::string text);

// One id's templates: `{name}` stands for an argument; both have the same placeholders.
struct MessageTemplate {
  const char* id;
  const char* en;
  const char* zh_CN;
};

// Adds a table (static storage); an id some table already has throws.
void register_messages(std::span<const MessageTemplate> table);
// Every registered template (the catalogue test walks them).
std::vector<MessageTemplate> message_catalogue();
// Registers core's own tables and the wire formats' (through the profile registry), once, before
// the catalogue is first read. Defined by the top layer, which knows every area and format
// (core/formats/builtin.cpp).
void load_builtin_messages();
// Whether `id` is in the catalogue.
bool has_message(std::string_view id);

// `lang` "zh_CN" renders the 简体中文 template, anything else English. An unknown id renders as
// `fallback` when given, else as the id.
std::string render(const Message& m, std::string_view lang = "en");
std::string render(const MessageText& text, std::string_view lang = "en", std::string_view fallback = {});
// A fixed English name (a statistic's: "p99 TTFT") in `lang`: message `prefix + english` when
// the catalogue has it, else the English as it is.
std::string name_in(std::string_view prefix, const std::string& english, std::string_view lang);
// The `{name}` placeholders of a template, in order.
std::vector<std::string> message_placeholders(std::string_view pattern);

// A number as the probes write it ("%.4g"); one in a printf format of one double ("%.1f").
std::string message_number(double v);
std::string message_printf(const char* format, double v);

}  // namespace anthro
