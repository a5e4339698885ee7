// The endpoint's handling of one decrypted REQUEST, without sockets: parse_body as the read
// loop calls it, then decide_request (api_key, refusals, the simulated model's plan).
// Input: selector byte, then the REQUEST plaintext (stream_id, JSON).
// Selector: bit 0 the frame's streaming flag, bit 1 require kApiKey, bit 2 the max-tokens-u16
// fault, bit 3 the overload fault, bit 4 a 64-byte prompt limit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "endpoint/server_state.h"

using namespace anthro;
using nlohmann::json;

namespace {

constexpr char kApiKey[] = "sk-ant-fuzz-0123456789abcdef";
constexpr std::uint32_t kDefaultMaxTokens = 1024;

ServerState& state_for(std::uint8_t sel) {
  static std::unique_ptr<ServerState> states[16];
  auto& s = states[(sel >> 1) & 15];
  if (!s) {
    EndpointConfig c;
    if (sel & 0x02) c.required_api_key = kApiKey;
    c.model.faults.max_tokens_u16 = sel & 0x04;
    if (sel & 0x08) c.model.faults.overload_rate = 0.5;
    if (sel & 0x10) c.max_prompt_bytes = 64;
    Key32 server_private{};
    server_private[0] = 1;
    s = std::make_unique<ServerState>(c, server_private);
  }
  s->request_number = 0;  // the same input decides the same way every run
  return *s;
}

// The top-level api_key as a JSON parser reads it, whatever the raw text looks like.
bool carries_key(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_object()) __builtin_trap();  // parse_body accepted it as an object
  auto it = doc.find("api_key");
  return it != doc.end() && it->is_string() && it->get<std::string>() == kApiKey;
}

// What the endpoint sends back must be a body its peers parse: the ERROR, or the RESPONSE.
void check_reply(std::uint32_t stream_id, const RequestDecision& d, const RequestBody& req) {
  if (d.refusal) {
    auto back = parse_error(encode_error(stream_id, d.refusal->code, d.refusal->retry_after_ms, d.refusal->message));
    if (!back || back->code != d.refusal->code || back->message_view() != d.refusal->message) __builtin_trap();
    return;
  }
  ResponseSpec spec;
  spec.id = "msg_fuzz";
  spec.model = req.model;
  spec.stop_reason = d.plan.stop_reason;
  std::string content;
  for (const auto& t : d.plan.tokens) content += t.text;
  if (!req.stream) spec.content = content;
  spec.output_tokens = d.plan.tokens.size();
  auto back = parse_response(encode_response(stream_id, spec));
  if (!back || back->model != req.model || back->content != spec.content) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::uint8_t sel = data[0];
  std::uint8_t flags = sel & kFlagStreaming;
  ByteView plain(data + 1, size - 1);
  auto body = parse_body(FrameType::Request, flags, plain);
  if (!body) {
    // The read loop answers 400 with this detail: it must say something.
    if (body.error().detail.empty()) __builtin_trap();
    return 0;
  }
  const auto& req = std::get<RequestBody>(*body);
  ServerState& state = state_for(sel);
  RequestDecision d = decide_request(state, req, kDefaultMaxTokens);

  // The key check reads the parsed top-level member, nothing else: the key elsewhere (metadata,
  // another value, after a decoy api_key) never passes, and the key itself, escaped or not, does.
  if (!state.config.required_api_key.empty()) {
    bool refused_401 = d.refusal && d.refusal->code == 401;
    if (refused_401 == carries_key(req.json)) __builtin_trap();
  }
  if (!d.refusal) {
    std::uint32_t cap = req.effective_max_tokens(kDefaultMaxTokens);
    if (state.config.model.faults.max_tokens_u16) cap &= 0xFFFF;
    if (d.plan.tokens.size() > cap) __builtin_trap();
  } else if (d.refusal->message.empty()) {
    __builtin_trap();
  }
  check_reply(req.stream_id, d, req);
  return 0;
}
