// What test_http_codec feeds the HTTP baseline's parsers and readers: SSE streams in pieces (whole,
// fixed and seeded random chunks), the two APIs' streamed replies and requests, and what the
// assertions read back from them.
#pragma once

#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

#include "http/messages_api.h"
#include "http/sse.h"

namespace anthro::test {

using nlohmann::json;

struct Parsed {
  std::vector<SseEvent> events;
  std::vector<Error> errors;
  bool discarded_at_end = false;
};

// Feeds `stream` in pieces of `chunk` bytes (0 = whole).
Parsed parse_sse(std::string_view stream, std::size_t chunk = 0,
                 std::size_t max_line = SseParser::kDefaultMaxLine) {
  Parsed out;
  SseParser parser([&](const SseEvent& e) { out.events.push_back(e); },
                   [&](const Error& e) { out.errors.push_back(e); }, max_line);
  if (chunk == 0) chunk = stream.size() + 1;
  for (std::size_t i = 0; i < stream.size(); i += chunk) parser.feed(stream.substr(i, chunk));
  out.discarded_at_end = parser.finish();
  return out;
}

Parsed parse_sse_random(std::string_view stream, unsigned seed) {
  Parsed out;
  SseParser parser([&](const SseEvent& e) { out.events.push_back(e); });
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> size(0, 9);  // empty chunks are legal too
  while (!stream.empty()) {
    auto n = std::min(size(rng), stream.size());
    parser.feed(stream.substr(0, n));
    stream.remove_prefix(n);
  }
  out.discarded_at_end = parser.finish();
  return out;
}

std::vector<std::string> datas(const Parsed& p) {
  std::vector<std::string> out;
  for (const auto& e : p.events) out.push_back(e.data);
  return out;
}

std::string describe(const std::vector<SseEvent>& events) {
  std::string out;
  for (const auto& e : events) {
    out += e.event + "|" + e.data + "|" + e.id + "|" +
           (e.retry ? std::to_string(*e.retry) : std::string("-")) + "\n";
  }
  return out;
}

using Kinds = std::vector<StreamUpdate::Kind>;

template <class Reader>
std::vector<StreamUpdate> read_all(Reader& reader, const std::vector<SseEvent>& events) {
  std::vector<StreamUpdate> out;
  for (const auto& e : events)
    for (auto& u : reader.on_event(e)) out.push_back(std::move(u));
  return out;
}

Kinds kinds(const std::vector<StreamUpdate>& updates) {
  Kinds out;
  for (const auto& u : updates) out.push_back(u.kind);
  return out;
}

std::string visible_text(const std::vector<StreamUpdate>& updates) {
  std::string out;
  for (const auto& u : updates)
    if (u.kind == StreamUpdate::Token && u.visible_text) out += u.text;
  return out;
}

SseEvent sse_event(std::string name, std::string data) {
  SseEvent e;
  e.event = std::move(name);
  e.data = std::move(data);
  return e;
}

// Built with nlohmann: moc misreads escaped quotes inside raw string literals.
std::string input_json_delta() {
  return json({{"type", "input_json_delta"}, {"partial_json", "{\"a\":"}}).dump();
}

std::string tool_call_chunk() {
  json call = {{"index", 0}, {"function", {{"arguments", "{\"q\""}}}};
  json delta = {{"tool_calls", json::array({call})}};
  return json({{"choices", json::array({json({{"delta", delta}})})}}).dump();
}

// Pieces of a reply with 4-byte UTF-8 (U+1F600, U+1D11E), quotes, a backslash and newlines.
const std::vector<std::string> kPieces = {"Hello", " \xF0\x9F\x98\x80", "\xF0\x9D\x84\x9E \"q\"",
                                          "\\ line\nnext\r\n", "end"};

std::string joined_pieces() {
  std::string out;
  for (const auto& p : kPieces) out += p;
  return out;
}

std::string anthropic_reply() {
  AnthropicSseWriter w;
  std::string out =
      w.message_start("msg_01", "claude-test", 12) + w.content_block_start() + w.ping();
  for (const auto& p : kPieces) out += w.text_delta(p);
  return out + w.content_block_stop() + w.message_delta(StopReason::MaxTokens, 5) +
         w.message_stop();
}

std::string openai_reply(bool include_usage) {
  OpenAiSseWriter w("chatcmpl-1", "gpt-test", 1700000000, include_usage);
  std::string out = w.role_chunk();
  for (const auto& p : kPieces) out += w.text_delta(p);
  return out + w.finish(StopReason::MaxTokens) + w.usage(12, 5) + w.done();
}

RequestSpec sample_request() {
  RequestSpec spec;
  spec.model = "claude-test";
  spec.messages = {
      {"user", "Hi \xF0\x9F\x98\x80"}, {"assistant", "Hello"}, {"user", "More\nplease"}};
  spec.max_tokens = 4000000000u;  // above 16 bits: the v0.35.1 truncation bug must not return
  spec.stream = true;
  spec.system = "Be brief.";
  spec.temperature = 0.5;
  spec.api_key = "sk-very-secret";
  spec.metadata_json = R"({"user_id":"u-1"})";
  return spec;
}

void verify_same_request(const RequestSpec& got, const RequestSpec& want) {
  QCOMPARE(got.model, want.model);
  QCOMPARE(got.messages.size(), want.messages.size());
  for (std::size_t i = 0; i < want.messages.size(); ++i)
    QVERIFY(got.messages[i] == want.messages[i]);
  QCOMPARE(got.max_tokens, want.max_tokens);
  QCOMPARE(got.stream, want.stream);
  QCOMPARE(got.system, want.system);
  QCOMPARE(got.temperature, want.temperature);
  QVERIFY(!got.api_key);
}


}  // namespace anthro::test
