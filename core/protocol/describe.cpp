#include "protocol/describe.h"

#include <algorithm>
#include <cstdio>

#include "util/json.h"

namespace anthro {

std::string describe_body(const Body& body) {
  return std::visit(
      [](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, RequestBody>) {
          return redact_request_json(b.json);
        } else if constexpr (std::is_same_v<T, ResponseBody>) {
          return "stop_reason=" + std::string(to_string(b.stop_reason)) +
                 " output_tokens=" + std::to_string(b.output_tokens);
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          std::string text = b.invalid_utf8 ? "hex " + to_hex(b.text) + " (invalid_utf8)"
                                            : "\"" + std::string(b.text_view()) + "\"";
          // The token's index in its stream, and how many tokens the frame carries when not one.
          std::string where = "token " + std::to_string(b.token_index);
          if (b.token_count != 1) where += " (" + std::to_string(b.token_count) + " tokens)";
          return where + " " + text;
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          static const char* names[] = {"user", "deadline", "shutdown"};
          return std::string("reason=") + names[static_cast<int>(b.reason())];
        } else {
          return "code=" + std::to_string(b.code) + " retry_after_ms=" + std::to_string(b.retry_after_ms) +
                 " " + (b.invalid_utf8 ? "hex " + to_hex(b.message) : std::string(b.message_view()));
        }
      },
      body);
}

std::string describe_status(const FrameEvent& e) {
  if (e.refusal) return std::string(to_string(*e.refusal)) + ": " + e.detail;
  if (e.no_key) return "no key";
  return "ok";
}

namespace {

std::string number(std::uint64_t v) { return std::to_string(v); }

// How many members named api_key the JSON has at any depth, counted after unescaping (so
// "api_\u006bey" counts); nullopt when it is not JSON (or nested too deep to read).
std::optional<std::size_t> api_key_members(std::string_view text) {
  using nlohmann::json;
  std::size_t n = 0;
  json::parser_callback_t count = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && parsed == "api_key") ++n;
    return true;
  };
  if (!parse_json(text, count)) return std::nullopt;
  return n;
}

void body_fields(const Body& body, std::size_t at, std::size_t end, std::vector<FrameField>& out) {
  out.push_back({"stream_id", number(body_stream_id(body)), at, at + 4, 1});
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, RequestBody>) {
          out.push_back({"json", redact_request_json(b.json), at + 4, end, 1});
        } else if constexpr (std::is_same_v<T, ResponseBody>) {
          out.push_back({"json", b.json, at + 4, end, 1});
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          out.push_back({"token_index", number(b.token_index), at + 4, at + 8, 1});
          out.push_back({"token_count", number(b.token_count), at + 8, at + 10, 1});
          out.push_back({"text", b.invalid_utf8 ? to_hex(b.text) + " (invalid UTF-8)" : std::string(b.text_view()),
                         at + 10, end, 1});
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          static const char* names[] = {"user", "deadline", "shutdown"};
          out.push_back({"reason", number(b.raw_reason) + " (" + names[static_cast<int>(b.reason())] + ")", at + 4,
                         at + 6, 1});
        } else {
          out.push_back({"code", number(b.code), at + 4, at + 6, 1});
          out.push_back({"retry_after_ms", number(b.retry_after_ms), at + 6, at + 10, 1});
          out.push_back({"message", b.invalid_utf8 ? to_hex(b.message) : std::string(b.message_view()), at + 10, end, 1});
        }
      },
      body);
}

}  // namespace

std::vector<FrameField> frame_fields(ByteView frame, bool decrypted, const Body* body) {
  std::vector<FrameField> out;
  if (frame.size() < kHeaderSize) {
    out.push_back({"bytes", to_hex(frame), 0, frame.size(), 0});
    return out;
  }
  FrameHeader h = parse_header(frame.data());
  char flags[8];
  std::snprintf(flags, sizeof flags, "0x%02x", h.flags);
  out.push_back({"header", "", 0, kHeaderSize, 0});
  out.push_back({"version", number(h.version), 0, 1, 1});
  out.push_back({"type", number(h.type) + " (" + to_string(h.frame_type()) + ")", 1, 2, 1});
  out.push_back({"flags", flags, 2, 3, 1});
  out.push_back({"reserved", number(h.reserved), 3, 4, 1});
  out.push_back({"payload_length", number(h.payload_length), 4, 8, 1});
  out.push_back({"connection_token", token_hex(h.token), 8, 16, 1});
  const std::size_t size = frame.size();
  if (size < kHeaderSize + kNonceSize) return out;
  out.push_back({"nonce", to_hex(frame.subspan(kHeaderSize, kNonceSize)), kHeaderSize, kHeaderSize + kNonceSize, 0});
  const std::size_t body_at = kHeaderSize + kNonceSize;
  const std::size_t tag_at = size >= body_at + kTagSize ? size - kTagSize : size;
  if (!decrypted) {
    out.push_back({"ciphertext", "not decrypted", body_at, tag_at, 0});
  } else {
    out.push_back({"body", "", body_at, tag_at, 0});
    if (body) body_fields(*body, body_at, tag_at, out);
  }
  if (tag_at < size) out.push_back({"tag", to_hex(frame.subspan(tag_at)), tag_at, size, 0});
  return out;
}

bool mask_secrets(std::span<std::uint8_t> json_text) {
  std::string_view text(reinterpret_cast<const char*>(json_text.data()), json_text.size());
  std::size_t masked_members = 0;
  constexpr std::string_view key = "\"api_key\"";
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    std::size_t i = at + key.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (i >= text.size() || text[i] != ':') continue;  // "api_key" as a value, not a member name
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (i >= text.size() || text[i] != '"') continue;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) json_text[i++] = '*';
      json_text[i] = '*';
    }
    ++masked_members;
  }
  // Without a backslash every member name is literal, and without "api_key" none is one: no
  // parse needed (a REQUEST frame's row is indexed at this cost).
  if (text.find('\\') == std::string_view::npos && text.find(key) == std::string_view::npos) return false;
  // A member named through escapes (\u0061pi_key) has no literal to find: when the parse counts
  // more api_keys than were masked, or the text is no JSON but may hide one, nothing is shown.
  auto members = api_key_members(text);
  bool hidden = members ? *members > masked_members : text.find("\\u") != std::string_view::npos;
  if (hidden) std::fill(json_text.begin(), json_text.end(), '*');
  return hidden || masked_members > 0;
}

}  // namespace anthro
