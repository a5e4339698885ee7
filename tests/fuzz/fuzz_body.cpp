// Frame bodies. Input: one byte (high nibble picks the frame type 1..5, low nibble is the
// frame flags), then the plaintext. REQUEST and RESPONSE bodies are read both ways (SAX and the
// whole document), which must agree. (Key logs: fuzz_keylog.)
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <variant>

#include <nlohmann/json.hpp>

#include "../body_answers.h"
#include "protocol/body.h"

using namespace anthro;
using anthro::test::body_answer;
using nlohmann::json;

namespace {

void check_redaction(const RequestBody& req) {
  std::string redacted = redact_request_json(req.json);
  json red = json::parse(redacted, nullptr, false);
  if (red.is_discarded() || !red.is_object()) __builtin_trap();
  if (!req.api_key) return;
  auto it = red.find("api_key");
  if (it == red.end() || *it != "***") __builtin_trap();

  // Look for the key's text only when it cannot occur anywhere else in the output: a long
  // run of [A-Za-z0-9_-] absent from the rest of the document. Then any match is a leak.
  json doc = json::parse(req.json);
  std::string key = doc["api_key"].get<std::string>();
  doc.erase("api_key");
  bool plain = key.size() >= 8;
  for (unsigned char c : key) plain = plain && (std::isalnum(c) || c == '_' || c == '-');
  if (plain && doc.dump().find(key) == std::string::npos &&
      redacted.find(key) != std::string::npos)
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto type = static_cast<FrameType>(1 + (data[0] >> 4) % 5);
  std::uint8_t flags = data[0] & 0x0F;
  ByteView plain(data + 1, size - 1);
  // The SAX reader and the whole document give every body one answer (or one error).
  if (type == FrameType::Request &&
      body_answer(parse_request(plain, flags)) != body_answer(parse_request_by_document(plain, flags)))
    __builtin_trap();
  if (type == FrameType::Response && body_answer(parse_response(plain)) != body_answer(parse_response_by_document(plain)))
    __builtin_trap();
  auto body = parse_body(type, flags, plain);
  if (!body) return 0;
  if (body_stream_id(*body) != load_u32(plain.data())) __builtin_trap();

  // The binary bodies keep every byte, so encoding what was parsed gives the input back.
  Bytes input(plain.begin(), plain.end());
  if (auto* req = std::get_if<RequestBody>(&*body)) check_redaction(*req);
  if (auto* t = std::get_if<TokenBody>(&*body))
    if (encode_token(t->stream_id, t->token_index, t->token_count, t->text) != input)
      __builtin_trap();
  if (auto* e = std::get_if<ErrorBody>(&*body))
    if (encode_error(e->stream_id, e->code, e->retry_after_ms, e->message_view()) != input)
      __builtin_trap();
  return 0;
}
