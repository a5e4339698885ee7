// Helpers the HTTP baseline's readers and writers share: messages_api.cpp (requests,
// non-streaming replies), stream_events.cpp (SSE) and reply_recorder.cpp (error bodies).
// Internal to core/http.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/body.h"
#include "util/json.h"

namespace anthro::http_detail {

using nlohmann::json;
using nlohmann::ordered_json;

// Output is ordered_json, so members keep the order the real APIs write them in; it is written
// by dump_json (util/json.h), which turns invalid UTF-8 (a token cut mid-character upstream)
// into U+FFFD.

inline std::string string_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::optional<std::uint64_t> count_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

// Real API: Anthropic also has stop_sequence, tool_use, pause_turn and refusal, and OpenAI
// tool_calls and content_filter; all end the turn as far as timing is concerned. Neither API
// has "cancelled": it is anthro-v1's (spec §5), written as is so a reply round-trips.
inline StopReason stop_from_anthropic(std::string_view s) {
  if (s == "max_tokens") return StopReason::MaxTokens;
  if (s == "cancelled") return StopReason::Cancelled;
  return StopReason::EndTurn;
}

inline StopReason stop_from_openai(std::string_view s) {
  if (s == "length") return StopReason::MaxTokens;
  if (s == "cancelled") return StopReason::Cancelled;
  return StopReason::EndTurn;
}

inline const char* openai_finish_reason(StopReason r) {
  switch (r) {
    case StopReason::EndTurn: return "stop";
    case StopReason::MaxTokens: return "length";
    case StopReason::Cancelled: return "cancelled";
  }
  return "stop";
}

// The error and usage objects: the same shapes in a reply body and in a stream.

inline ordered_json anthropic_error(std::string_view type, std::string_view message) {
  return {{"type", "error"},
          {"error", {{"type", std::string(type)}, {"message", std::string(message)}}}};
}

inline ordered_json openai_error(std::string_view type, std::string_view message) {
  return {{"error",
           {{"message", std::string(message)},
            {"type", std::string(type)},
            {"param", nullptr},
            {"code", nullptr}}}};
}

inline ordered_json openai_usage(std::uint64_t input_tokens, std::uint64_t output_tokens) {
  return {{"prompt_tokens", input_tokens},
          {"completion_tokens", output_tokens},
          {"total_tokens", input_tokens + output_tokens}};
}

// The tool asks for one choice (n = 1), so only the first is read.
inline const json* first_choice(const json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return nullptr;
  return choices->front().is_object() ? &choices->front() : nullptr;
}

}  // namespace anthro::http_detail
