// Payload shapes were checked against the public API references and SDK types (Anthropic
// streaming docs' example stream; OpenAI's chat.completion.chunk object). Where the real APIs
// and spec §9 differ, the spec governs; each place is marked "Real API:".
#include "http/messages_api.h"

#include <nlohmann/json.hpp>

#include <limits>

#include "http/json_helpers.h"

namespace anthro {

using nlohmann::json;
using nlohmann::ordered_json;
using namespace http_detail;

namespace {

// --- Parsing helpers.

std::string in_quotes(std::string_view path) { return "\"" + std::string(path) + "\""; }

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Error request_error(std::string detail) {
  return make_error("invalid_request_error", std::move(detail));
}

Error response_error(std::string detail) {
  return make_error("invalid_response", std::move(detail));
}

Result<json> parse_object(std::string_view body, Error (*fail)(std::string)) {
  auto doc = parse_json(body);
  if (!doc) return fail("body is " + doc.error().detail);
  if (!doc->is_object()) return fail("body is not a JSON object");
  return doc;
}

// --- Request parsing.

Result<std::string> required_string(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string())
    return request_error(in_quotes(key) + " is missing or not a string");
  return it->get<std::string>();
}

// A RequestSpec carries text only, so other block types (images, tool results) are refused
// rather than silently dropped.
Result<std::string> text_block(const json& block, const std::string& path) {
  if (!block.is_object()) return request_error(in_quotes(path) + " is not an object");
  auto type = block.find("type");
  if (type == block.end() || !type->is_string())
    return request_error(in_quotes(path + ".type") + " is missing or not a string");
  if (*type != "text")
    return request_error(in_quotes(path + ".type") + " is " + dump_json(*type) +
                         "; only \"text\" blocks are supported");
  auto text = block.find("text");
  if (text == block.end() || !text->is_string())
    return request_error(in_quotes(path + ".text") + " is missing or not a string");
  return text->get<std::string>();
}

Result<std::string> text_content(const json& value, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array())
    return request_error(in_quotes(path) + " must be a string or an array of text blocks");
  std::string text;
  for (std::size_t i = 0; i < value.size(); ++i) {
    auto block = text_block(value[i], indexed(path, i));
    if (!block) return block.error();
    text += *block;
  }
  return text;
}

Result<ChatMessage> chat_message(const json& m, const std::string& path) {
  if (!m.is_object()) return request_error(in_quotes(path) + " is not an object");
  auto role = m.find("role");
  if (role == m.end() || !role->is_string())
    return request_error(in_quotes(path + ".role") + " is missing or not a string");
  auto content = m.find("content");
  if (content == m.end()) return request_error(in_quotes(path + ".content") + " is missing");
  auto text = text_content(*content, path + ".content");
  if (!text) return text.error();
  return ChatMessage{role->get<std::string>(), std::move(*text)};
}

Result<const json*> messages_array(const json& doc) {
  auto it = doc.find("messages");
  if (it == doc.end() || !it->is_array())
    return request_error("\"messages\" is missing or not an array");
  return &*it;
}

Error bad_role(const std::string& path, const std::string& role, const char* allowed) {
  return request_error(in_quotes(path + ".role") + " is \"" + role + "\"; expected " + allowed);
}

Result<std::vector<ChatMessage>> anthropic_messages(const json& doc) {
  auto array = messages_array(doc);
  if (!array) return array.error();
  std::vector<ChatMessage> out;
  for (std::size_t i = 0; i < (*array)->size(); ++i) {
    auto path = indexed("messages", i);
    auto m = chat_message((**array)[i], path);
    if (!m) return m.error();
    if (m->role != "user" && m->role != "assistant")
      return bad_role(path, m->role, "\"user\" or \"assistant\" (system goes in \"system\")");
    out.push_back(std::move(*m));
  }
  return out;
}

// OpenAI carries the system prompt as messages; several are joined, as a model would read them.
std::optional<Error> openai_messages(const json& doc, RequestSpec& spec) {
  auto array = messages_array(doc);
  if (!array) return array.error();
  for (std::size_t i = 0; i < (*array)->size(); ++i) {
    auto path = indexed("messages", i);
    auto m = chat_message((**array)[i], path);
    if (!m) return m.error();
    if (m->role == "system" || m->role == "developer") {
      spec.system = spec.system ? *spec.system + "\n" + m->content : m->content;
    } else if (m->role == "user" || m->role == "assistant") {
      spec.messages.push_back(std::move(*m));
    } else {
      return bad_role(path, m->role, "\"system\", \"developer\", \"user\" or \"assistant\"");
    }
  }
  return std::nullopt;
}

Result<std::optional<std::uint32_t>> max_tokens_member(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::optional<std::uint32_t>{};
  constexpr auto max = std::numeric_limits<std::uint32_t>::max();
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0 || it->get<std::uint64_t>() > max)
    return request_error(in_quotes(key) + " must be an integer from 1 to 4294967295, got " +
                         dump_json(*it));
  return std::optional<std::uint32_t>{static_cast<std::uint32_t>(it->get<std::uint64_t>())};
}

// Both APIs answer without streaming unless asked, unlike anthro-v1 (flags bit0).
std::optional<Error> read_stream_and_temperature(const json& doc, RequestSpec& spec) {
  spec.stream = false;
  if (auto it = doc.find("stream"); it != doc.end() && !it->is_null()) {
    if (!it->is_boolean()) return request_error("\"stream\" is not a boolean");
    spec.stream = it->get<bool>();
  }
  if (auto it = doc.find("temperature"); it != doc.end() && !it->is_null()) {
    if (!it->is_number()) return request_error("\"temperature\" is not a number");
    spec.temperature = it->get<double>();
  }
  return std::nullopt;
}

std::optional<Error> read_anthropic_extras(const json& doc, RequestSpec& spec) {
  if (auto it = doc.find("system"); it != doc.end()) {
    auto system = text_content(*it, "system");
    if (!system) return system.error();
    spec.system = std::move(*system);
  }
  if (auto it = doc.find("metadata"); it != doc.end()) {
    if (!it->is_object()) return request_error("\"metadata\" is not an object");
    spec.metadata_json = dump_json(*it);
  }
  return std::nullopt;
}

Result<bool> include_usage_member(const json& doc) {
  auto it = doc.find("stream_options");
  if (it == doc.end() || it->is_null()) return false;
  if (!it->is_object()) return request_error("\"stream_options\" is not an object");
  auto usage = it->find("include_usage");
  if (usage == it->end() || usage->is_null()) return false;
  if (!usage->is_boolean())
    return request_error("\"stream_options.include_usage\" is not a boolean");
  return usage->get<bool>();
}

// --- Request building.

ordered_json message_array(const std::vector<ChatMessage>& messages) {
  ordered_json out = ordered_json::array();
  for (const auto& m : messages) out.push_back({{"role", m.role}, {"content", m.content}});
  return out;
}

// metadata_json is meant to be an object's text; anything else is left out rather than thrown.
std::optional<ordered_json> metadata_object(const RequestSpec& spec) {
  if (!spec.metadata_json) return std::nullopt;
  auto doc = parse_ordered_json(*spec.metadata_json);
  if (!doc || !doc->is_object()) return std::nullopt;
  return std::move(*doc);
}

// --- Reply building.

ordered_json text_blocks(const std::optional<std::string>& content) {
  ordered_json out = ordered_json::array();
  if (content) out.push_back({{"type", "text"}, {"text", *content}});
  return out;
}

// --- Reply parsing.

Error api_error(const json& err) {
  if (!err.is_object()) return make_error("error", dump_json(err));
  auto type = string_member(err, "type");
  return make_error(type.empty() ? "error" : type, string_member(err, "message"));
}

Result<std::uint64_t> required_count(const json& obj, const char* key, const char* path) {
  auto n = count_member(obj, key);
  if (!n)
    return response_error(in_quotes(std::string(path) + "." + key) +
                          " is missing or not a non-negative integer");
  return *n;
}

std::optional<Error> read_id_and_model(const json& doc, ResponseSpec& spec) {
  auto id = doc.find("id");
  auto model = doc.find("model");
  if (id == doc.end() || !id->is_string())
    return response_error("\"id\" is missing or not a string");
  if (model == doc.end() || !model->is_string())
    return response_error("\"model\" is missing or not a string");
  spec.id = id->get<std::string>();
  spec.model = model->get<std::string>();
  return std::nullopt;
}

std::optional<Error> read_usage(const json& doc, ResponseSpec& spec, const char* in_key,
                                const char* out_key) {
  auto usage = doc.find("usage");
  if (usage == doc.end() || !usage->is_object())
    return response_error("\"usage\" is missing or not an object");
  auto in = required_count(*usage, in_key, "usage");
  if (!in) return in.error();
  auto out = required_count(*usage, out_key, "usage");
  if (!out) return out.error();
  spec.input_tokens = *in;
  spec.output_tokens = *out;
  return std::nullopt;
}

// Thinking and tool-use blocks are not the reply's text.
Result<std::string> anthropic_reply_text(const json& doc) {
  auto content = doc.find("content");
  if (content == doc.end() || !content->is_array())
    return response_error("\"content\" is missing or not an array");
  std::string text;
  for (const auto& block : *content)
    if (block.is_object() && string_member(block, "type") == "text")
      text += string_member(block, "text");
  return text;
}

// Content may be a string, null (a tool call) or, on some servers, an array of text parts.
Result<std::string> openai_reply_text(const json& message) {
  auto content = message.find("content");
  if (content == message.end() || content->is_null()) return std::string();
  if (content->is_string()) return content->get<std::string>();
  if (!content->is_array())
    return response_error("\"choices[0].message.content\" is not a string, null or an array");
  std::string text;
  for (const auto& part : *content)
    if (part.is_object() && string_member(part, "type") == "text")
      text += string_member(part, "text");
  return text;
}

Result<const json*> first_choice_message(const json& doc) {
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array() || choices->empty())
    return response_error("\"choices\" is missing, empty or not an array");
  const json& choice = choices->front();
  auto message = choice.is_object() ? choice.find("message") : choice.end();
  if (!choice.is_object() || message == choice.end() || !message->is_object())
    return response_error("\"choices[0].message\" is missing or not an object");
  return &*message;
}

}  // namespace

// --- Requests.

// Real API: the Messages API requires max_tokens; anthro-v1 lets the server's default apply
// when it is absent (spec §5), so it is written only when set.
std::string messages_request_json(const RequestSpec& spec) {
  ordered_json doc = ordered_json::object();
  doc["model"] = spec.model;
  if (spec.max_tokens) doc["max_tokens"] = *spec.max_tokens;
  if (spec.system) doc["system"] = *spec.system;
  doc["messages"] = message_array(spec.messages);
  doc["stream"] = spec.stream;
  if (spec.temperature) doc["temperature"] = *spec.temperature;
  if (auto metadata = metadata_object(spec)) doc["metadata"] = *metadata;
  return dump_json(doc);
}

// Real API: OpenAI prefers max_completion_tokens now, but self-hosted servers (vLLM,
// llama.cpp, Ollama) read max_tokens, which OpenAI still accepts. OpenAI's "metadata" needs
// "store" and string values, so anthro-v1 metadata is not sent on this path.
std::string chat_completions_request_json(const RequestSpec& spec) {
  ordered_json doc = ordered_json::object();
  doc["model"] = spec.model;
  ordered_json messages = ordered_json::array();
  if (spec.system) messages.push_back({{"role", "system"}, {"content", *spec.system}});
  for (auto& m : message_array(spec.messages)) messages.push_back(std::move(m));
  doc["messages"] = std::move(messages);
  if (spec.max_tokens) doc["max_tokens"] = *spec.max_tokens;
  doc["stream"] = spec.stream;
  if (spec.stream) doc["stream_options"] = {{"include_usage", true}};
  if (spec.temperature) doc["temperature"] = *spec.temperature;
  return dump_json(doc);
}

Result<RequestSpec> parse_messages_request(std::string_view body) {
  auto doc = parse_object(body, request_error);
  if (!doc) return doc.error();
  RequestSpec spec;
  auto model = required_string(*doc, "model");
  if (!model) return model.error();
  spec.model = std::move(*model);
  auto messages = anthropic_messages(*doc);
  if (!messages) return messages.error();
  spec.messages = std::move(*messages);
  auto max_tokens = max_tokens_member(*doc, "max_tokens");
  if (!max_tokens) return max_tokens.error();
  spec.max_tokens = *max_tokens;
  if (auto err = read_stream_and_temperature(*doc, spec)) return *err;
  if (auto err = read_anthropic_extras(*doc, spec)) return *err;
  return spec;
}

Result<RequestSpec> parse_chat_completions_request(std::string_view body, bool* include_usage) {
  auto doc = parse_object(body, request_error);
  if (!doc) return doc.error();
  RequestSpec spec;
  auto model = required_string(*doc, "model");
  if (!model) return model.error();
  spec.model = std::move(*model);
  if (auto err = openai_messages(*doc, spec)) return *err;
  bool newer = doc->contains("max_completion_tokens") && !(*doc)["max_completion_tokens"].is_null();
  auto max_tokens = max_tokens_member(*doc, newer ? "max_completion_tokens" : "max_tokens");
  if (!max_tokens) return max_tokens.error();
  spec.max_tokens = *max_tokens;
  if (auto err = read_stream_and_temperature(*doc, spec)) return *err;
  auto usage = include_usage_member(*doc);
  if (!usage) return usage.error();
  if (include_usage) *include_usage = *usage;
  return spec;
}

// --- Non-streaming replies.

std::string messages_response_json(const ResponseSpec& spec) {
  ordered_json doc = {
      {"id", spec.id},
      {"type", "message"},
      {"role", "assistant"},
      {"content", text_blocks(spec.content)},
      {"model", spec.model},
      {"stop_reason", to_string(spec.stop_reason)},
      {"stop_sequence", nullptr},
      {"usage", {{"input_tokens", spec.input_tokens}, {"output_tokens", spec.output_tokens}}}};
  return dump_json(doc);
}

std::string error_json(std::string_view type, std::string_view message) {
  return dump_json(anthropic_error(type, message));
}

std::string chat_completions_response_json(const ResponseSpec& spec, std::int64_t created) {
  ordered_json message = {{"role", "assistant"}, {"content", nullptr}};
  if (spec.content) message["content"] = *spec.content;
  ordered_json choice = {{"index", 0},
                         {"message", std::move(message)},
                         {"logprobs", nullptr},
                         {"finish_reason", openai_finish_reason(spec.stop_reason)}};
  ordered_json doc = {{"id", spec.id},
                      {"object", "chat.completion"},
                      {"created", created},
                      {"model", spec.model},
                      {"choices", ordered_json::array({std::move(choice)})},
                      {"usage", openai_usage(spec.input_tokens, spec.output_tokens)}};
  return dump_json(doc);
}

std::string chat_completions_error_json(std::string_view type, std::string_view message) {
  return dump_json(openai_error(type, message));
}

Result<ResponseSpec> parse_messages_response(std::string_view body) {
  auto doc = parse_object(body, response_error);
  if (!doc) return doc.error();
  if (string_member(*doc, "type") == "error") return api_error(doc->value("error", json()));
  ResponseSpec spec;
  if (auto err = read_id_and_model(*doc, spec)) return *err;
  auto text = anthropic_reply_text(*doc);
  if (!text) return text.error();
  spec.content = std::move(*text);
  spec.stop_reason = stop_from_anthropic(string_member(*doc, "stop_reason"));
  if (auto err = read_usage(*doc, spec, "input_tokens", "output_tokens")) return *err;
  return spec;
}

Result<ResponseSpec> parse_chat_completions_response(std::string_view body, bool* usage_reported) {
  auto doc = parse_object(body, response_error);
  if (!doc) return doc.error();
  if (auto err = doc->find("error"); err != doc->end() && !err->is_null()) return api_error(*err);
  ResponseSpec spec;
  if (auto err = read_id_and_model(*doc, spec)) return *err;
  auto message = first_choice_message(*doc);
  if (!message) return message.error();
  auto text = openai_reply_text(**message);
  if (!text) return text.error();
  spec.content = std::move(*text);
  spec.stop_reason = stop_from_openai(string_member(*first_choice(*doc), "finish_reason"));
  if (usage_reported) *usage_reported = doc->contains("usage") && !(*doc)["usage"].is_null();
  if (usage_reported && !*usage_reported) return spec;
  if (auto err = read_usage(*doc, spec, "prompt_tokens", "completion_tokens")) return *err;
  return spec;
}

}  // namespace anthro
