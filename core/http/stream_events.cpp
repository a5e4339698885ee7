// Payload shapes were checked against the public API references and SDK types (Anthropic
// streaming docs' example stream; OpenAI's chat.completion.chunk object). Where the real APIs
// and spec §9 differ, the spec governs; each place is marked "Real API:".
#include "http/messages_api.h"

#include <nlohmann/json.hpp>

#include "http/json_helpers.h"

namespace anthro {

using nlohmann::json;
using nlohmann::ordered_json;
using namespace http_detail;

namespace {

// --- Stream writing.

std::string anthropic_event(const char* name, const ordered_json& data) {
  return format_sse(name, dump_json(data));
}

// --- Stream reading.

StreamUpdate update(StreamUpdate::Kind kind) {
  StreamUpdate u;
  u.kind = kind;
  return u;
}

StreamUpdate token(std::string text, bool is_text) {
  StreamUpdate u = update(StreamUpdate::Token);
  u.visible_text = is_text && !text.empty();
  u.text = std::move(text);
  return u;
}

StreamUpdate error_update(const json& err) {
  StreamUpdate u = update(StreamUpdate::Error);
  u.error_type = err.is_object() ? string_member(err, "type") : std::string();
  if (u.error_type.empty()) u.error_type = "error";
  u.error_message = err.is_object() ? string_member(err, "message") : dump_json(err);
  return u;
}

StreamUpdate invalid_event(std::string detail) {
  StreamUpdate u = update(StreamUpdate::Error);
  u.error_type = "invalid_event";
  u.error_message = std::move(detail);
  return u;
}

void read_usage_counts(const json& usage, const char* in_key, const char* out_key,
                       StreamUpdate& u) {
  if (!usage.is_object()) return;
  u.input_tokens = count_member(usage, in_key);
  u.output_tokens = count_member(usage, out_key);
}

StreamUpdate anthropic_message_start(const json& data) {
  StreamUpdate u = update(StreamUpdate::MessageStart);
  auto message = data.find("message");
  if (message == data.end() || !message->is_object()) return u;
  u.text = string_member(*message, "id");
  if (auto usage = message->find("usage"); usage != message->end())
    read_usage_counts(*usage, "input_tokens", "output_tokens", u);
  return u;
}

// Spec §9: TTFT counts any generated token, so thinking and tool input count; only text
// counts as visible. Real API: signature_delta and citations_delta also exist; they carry no
// generated token and are ignored.
StreamUpdate anthropic_delta(const json& data) {
  auto delta = data.find("delta");
  if (delta == data.end() || !delta->is_object())
    return invalid_event("content_block_delta lacks a \"delta\" object");
  auto type = string_member(*delta, "type");
  if (type == "text_delta") return token(string_member(*delta, "text"), true);
  if (type == "thinking_delta") return token(string_member(*delta, "thinking"), false);
  if (type == "input_json_delta") return token(string_member(*delta, "partial_json"), false);
  return update(StreamUpdate::Ignored);
}

// Usage here is cumulative (spec §9). Real API: newer replies also repeat input_tokens here.
StreamUpdate anthropic_message_delta(const json& data) {
  StreamUpdate u = update(StreamUpdate::Stop);
  if (auto delta = data.find("delta"); delta != data.end() && delta->is_object()) {
    u.text = string_member(*delta, "stop_reason");
    if (!u.text.empty()) u.stop_reason = stop_from_anthropic(u.text);
  }
  if (auto usage = data.find("usage"); usage != data.end())
    read_usage_counts(*usage, "input_tokens", "output_tokens", u);
  return u;
}

// Proxies that drop `event:` lines still send the name as the data's "type".
std::string anthropic_event_name(const SseEvent& event, const json& data) {
  if (event.event != "message" || !data.is_object()) return event.event;
  auto type = string_member(data, "type");
  return type.empty() ? event.event : type;
}

// Real API: reasoning servers stream thought as "reasoning_content" (vLLM, DeepSeek) or
// "reasoning" (Ollama, OpenRouter); tool calls as tool_calls[].function.arguments. They are
// generated tokens but not visible text, like Anthropic's thinking and tool input.
void append_delta_tokens(const json& delta, std::vector<StreamUpdate>& out) {
  if (auto text = string_member(delta, "content"); !text.empty()) out.push_back(token(text, true));
  for (const char* key : {"reasoning_content", "reasoning"})
    if (auto text = string_member(delta, key); !text.empty()) out.push_back(token(text, false));
  auto calls = delta.find("tool_calls");
  if (calls == delta.end() || !calls->is_array() || calls->empty()) return;
  std::string arguments;
  for (const auto& call : *calls)
    if (call.is_object() && call.contains("function") && call["function"].is_object())
      arguments += string_member(call["function"], "arguments");
  out.push_back(token(std::move(arguments), false));
}

void append_choice_updates(const json& choice, std::vector<StreamUpdate>& out) {
  if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object())
    append_delta_tokens(*delta, out);
  auto finish = choice.find("finish_reason");
  if (finish == choice.end() || !finish->is_string()) return;
  StreamUpdate u = update(StreamUpdate::Stop);
  u.text = finish->get<std::string>();
  u.stop_reason = stop_from_openai(u.text);
  out.push_back(std::move(u));
}

}  // namespace

// --- AnthropicSseWriter.

// Real API: message_start usually reports output_tokens 1 before anything is generated;
// this writer reports 0, the count so far, since usage is cumulative (spec §9).
std::string AnthropicSseWriter::message_start(std::string_view id, std::string_view model,
                                              std::uint64_t input_tokens) const {
  ordered_json message = {{"id", std::string(id)},
                          {"type", "message"},
                          {"role", "assistant"},
                          {"content", ordered_json::array()},
                          {"model", std::string(model)},
                          {"stop_reason", nullptr},
                          {"stop_sequence", nullptr},
                          {"usage", {{"input_tokens", input_tokens}, {"output_tokens", 0}}}};
  return anthropic_event("message_start",
                         {{"type", "message_start"}, {"message", std::move(message)}});
}

std::string AnthropicSseWriter::content_block_start() const {
  return anthropic_event("content_block_start",
                         {{"type", "content_block_start"},
                          {"index", 0},
                          {"content_block", {{"type", "text"}, {"text", ""}}}});
}

std::string AnthropicSseWriter::ping() const { return anthropic_event("ping", {{"type", "ping"}}); }

std::string AnthropicSseWriter::text_delta(std::string_view text) const {
  ordered_json delta = {{"type", "text_delta"}, {"text", std::string(text)}};
  return anthropic_event(
      "content_block_delta",
      {{"type", "content_block_delta"}, {"index", 0}, {"delta", std::move(delta)}});
}

std::string AnthropicSseWriter::content_block_stop() const {
  return anthropic_event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
}

std::string AnthropicSseWriter::message_delta(StopReason reason,
                                              std::uint64_t output_tokens) const {
  ordered_json delta = {{"stop_reason", to_string(reason)}, {"stop_sequence", nullptr}};
  return anthropic_event("message_delta", {{"type", "message_delta"},
                                           {"delta", std::move(delta)},
                                           {"usage", {{"output_tokens", output_tokens}}}});
}

std::string AnthropicSseWriter::message_stop() const {
  return anthropic_event("message_stop", {{"type", "message_stop"}});
}

std::string AnthropicSseWriter::error(std::string_view type, std::string_view message) const {
  return anthropic_event("error", anthropic_error(type, message));
}

// --- OpenAiSseWriter.

OpenAiSseWriter::OpenAiSseWriter(std::string id, std::string model, std::int64_t created,
                                 bool include_usage)
    : id_(std::move(id)),
      model_(std::move(model)),
      created_(created),
      include_usage_(include_usage) {}

namespace {

// Real API: with include_usage every chunk carries "usage": null except the last, whose
// "choices" is empty. Chunks have no `event:` line.
std::string openai_chunk(const std::string& id, const std::string& model, std::int64_t created,
                         bool include_usage, ordered_json choices) {
  ordered_json doc = {{"id", id},
                      {"object", "chat.completion.chunk"},
                      {"created", created},
                      {"model", model},
                      {"choices", std::move(choices)}};
  if (include_usage) doc["usage"] = nullptr;
  return format_sse("", dump_json(doc));
}

ordered_json one_choice(ordered_json delta, const char* finish_reason) {
  ordered_json choice = {{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}};
  choice["finish_reason"] = finish_reason ? ordered_json(finish_reason) : ordered_json(nullptr);
  return ordered_json::array({std::move(choice)});
}

}  // namespace

// Real API: the first chunk is {"role":"assistant","content":""}; spec §9 calls it role-only,
// which it is, as it carries no generated text.
std::string OpenAiSseWriter::role_chunk() const {
  ordered_json delta = {{"role", "assistant"}, {"content", ""}};
  return openai_chunk(id_, model_, created_, include_usage_, one_choice(std::move(delta), nullptr));
}

std::string OpenAiSseWriter::text_delta(std::string_view text) const {
  ordered_json delta = {{"content", std::string(text)}};
  return openai_chunk(id_, model_, created_, include_usage_, one_choice(std::move(delta), nullptr));
}

std::string OpenAiSseWriter::finish(StopReason reason) const {
  return openai_chunk(id_, model_, created_, include_usage_,
                      one_choice(ordered_json::object(), openai_finish_reason(reason)));
}

std::string OpenAiSseWriter::usage(std::uint64_t input_tokens, std::uint64_t output_tokens) const {
  if (!include_usage_) return {};
  ordered_json doc = {{"id", id_},
                      {"object", "chat.completion.chunk"},
                      {"created", created_},
                      {"model", model_},
                      {"choices", ordered_json::array()},
                      {"usage", openai_usage(input_tokens, output_tokens)}};
  return format_sse("", dump_json(doc));
}

std::string OpenAiSseWriter::done() const { return format_sse("", "[DONE]"); }

std::string OpenAiSseWriter::error(std::string_view type, std::string_view message) const {
  return format_sse("", dump_json(openai_error(type, message)));
}

// --- Readers.

std::vector<StreamUpdate> AnthropicStreamReader::on_event(const SseEvent& event) {
  json data = parse_or_null(event.data);
  auto name = anthropic_event_name(event, data);
  if (name == "ping") return {update(StreamUpdate::Ping)};
  if (name == "message_stop") {
    done_ = true;
    return {update(StreamUpdate::Done)};
  }
  bool known = name == "message_start" || name == "content_block_delta" ||
               name == "message_delta" || name == "error";
  if (!known) return {update(StreamUpdate::Ignored)};  // content_block_start/stop, new events
  if (!data.is_object()) return {invalid_event(name + " data is not a JSON object")};
  if (name == "message_start") return {anthropic_message_start(data)};
  if (name == "content_block_delta") return {anthropic_delta(data)};
  if (name == "message_delta") return {anthropic_message_delta(data)};
  return {error_update(data.contains("error") ? data["error"] : data)};
}

std::vector<StreamUpdate> OpenAiStreamReader::on_event(const SseEvent& event) {
  if (event.data == "[DONE]") {
    done_ = true;
    return {update(StreamUpdate::Done)};
  }
  auto parsed = parse_json(event.data);
  if (!parsed) return {invalid_event("chunk: " + parsed.error().detail)};  // (a lone surrogate, say: where and why)
  json data = std::move(*parsed);
  if (!data.is_object()) return {invalid_event("chunk is not a JSON object")};
  // OpenAI wraps a mid-stream error in "error"; vLLM has sent it bare with "object": "error".
  if (auto err = data.find("error"); err != data.end() && !err->is_null())
    return {error_update(*err)};
  if (string_member(data, "object") == "error") return {error_update(data)};
  std::vector<StreamUpdate> out;
  if (!started_) {
    started_ = true;
    StreamUpdate start = update(StreamUpdate::MessageStart);
    start.text = string_member(data, "id");
    out.push_back(std::move(start));
  }
  if (const json* choice = first_choice(data)) append_choice_updates(*choice, out);
  if (auto usage = data.find("usage"); usage != data.end() && usage->is_object()) {
    StreamUpdate u = update(StreamUpdate::Usage);
    read_usage_counts(*usage, "prompt_tokens", "completion_tokens", u);
    out.push_back(std::move(u));
  }
  if (out.empty()) out.push_back(update(StreamUpdate::Ignored));
  return out;
}

}  // namespace anthro
