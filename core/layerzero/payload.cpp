#include "layerzero/payload.h"

#include <algorithm>

namespace anthro::lz {
namespace {

constexpr std::size_t kU8Max = 255;
constexpr const char* kInitForms = "9 + model id bytes, or 85 + model id, each + 1 + key bytes with constraint 0x40";

// Reads fields front to back; every read checks what is left, so hostile sizes only fail.
class Reader {
 public:
  explicit Reader(ByteView bytes) : rest_(bytes) {}
  bool u8(std::uint8_t& v) { return take(1, [&](const std::uint8_t* p) { v = *p; }); }
  bool u16(std::uint16_t& v) { return take(2, [&](const std::uint8_t* p) { v = load_u16(p); }); }
  bool u32(std::uint32_t& v) { return take(4, [&](const std::uint8_t* p) { v = load_u32(p); }); }
  bool u64(std::uint64_t& v) { return take(8, [&](const std::uint8_t* p) { v = load_u64(p); }); }
  bool text(std::size_t n, std::string& v) {
    return take(n, [&](const std::uint8_t* p) { v.assign(reinterpret_cast<const char*>(p), n); });
  }
  bool token(SessionToken& v) { return take(kTokenSize, [&](const std::uint8_t* p) { std::copy_n(p, kTokenSize, v.begin()); }); }
  std::string rest_text() {
    std::string v(as_text(rest_));
    rest_ = {};
    return v;
  }
  std::size_t left() const { return rest_.size(); }

 private:
  template <class F>
  bool take(std::size_t n, F&& read) {
    if (rest_.size() < n) return false;
    read(rest_.data());
    rest_ = rest_.subspan(n);
    return true;
  }
  ByteView rest_;
};

Error length_error(PayloadType type, ByteView payload, const char* expected) {
  return make_error(ErrorClass::Input, to_string(TerminateReason::Length),
                    std::string("a ") + std::to_string(payload.size()) + "-byte " + to_string(type) + " payload: " + expected);
}

bool read_terms(Reader& r, SessionTerms& t) {
  std::uint8_t id_length = 0;
  return r.u8(id_length) && r.text(id_length, t.model_id) && r.u32(t.budget_ms) && r.u32(t.constraints);
}

bool read_resume(Reader& r, ResumeFields& f) {
  return r.token(f.token) && r.u32(f.last_server_sequence_id) && r.u64(f.client_time_ns);
}

void append_token(Bytes& out, const SessionToken& token) { out.insert(out.end(), token.begin(), token.end()); }

Error too_long(const char* what, std::size_t size) {
  return make_error(ErrorClass::Usage, to_string(TerminateReason::Length),
                    std::string("a ") + what + " of " + std::to_string(size) + " bytes does not fit its u8 length");
}

Result<Bytes> encode(const TextPayload& p) {
  const ByteView text = as_bytes(p.text);
  return Bytes(text.begin(), text.end());
}

Result<Bytes> encode(const ToolCall& p) {
  if (p.name.empty() || p.name.size() > kU8Max) return too_long("tool name (1 to 255)", p.name.size());
  if (p.parameters_json.empty()) return make_error(ErrorClass::Usage, to_string(TerminateReason::Length), "a TOOL_CALL needs its JSON parameters");
  Bytes out{static_cast<std::uint8_t>(p.name.size())};
  append(out, as_bytes(p.name));
  append(out, as_bytes(p.parameters_json));
  return out;
}

Result<Bytes> encode(const ToolResult& p) {
  Bytes out;
  append_u32(out, p.call_sequence_id);
  append(out, as_bytes(p.result_json));
  return out;
}

Result<Bytes> encode(const ClientHeartbeat& p) { return Bytes{p.buffer_usage}; }

Result<Bytes> encode(const ServerHeartbeat& p) {
  Bytes out;
  append_u64(out, p.server_time_ns);
  return out;
}

Result<Bytes> encode(const Terminate& p) {
  Bytes out;
  append_u16(out, p.code);
  return out;
}

Result<Bytes> encode(const SessionInit& p) {
  if (p.terms.model_id.size() > kU8Max) return too_long("model id", p.terms.model_id.size());
  if (p.api_key && (p.api_key->empty() || p.api_key->size() > kU8Max)) return too_long("API key (1 to 255)", p.api_key->size());
  Bytes out{static_cast<std::uint8_t>(p.terms.model_id.size())};
  append(out, as_bytes(p.terms.model_id));
  append_u32(out, p.terms.budget_ms);
  append_u32(out, p.api_key ? p.terms.constraints | kConstraintApiKey : p.terms.constraints & ~kConstraintApiKey);
  if (p.resume) {
    append_token(out, p.resume->token);
    append_u32(out, p.resume->last_server_sequence_id);
    append_u64(out, p.resume->client_time_ns);
  }
  if (p.api_key) {
    out.push_back(static_cast<std::uint8_t>(p.api_key->size()));
    append(out, as_bytes(*p.api_key));
  }
  return out;
}

Result<Bytes> encode(const SessionAck& p) {
  Bytes out;
  append_token(out, p.token);
  append_u32(out, p.last_client_sequence_id);
  append_u64(out, p.server_time_ns);
  return out;
}

template <class T>
Result<Payload> widen(Result<T> r) {
  if (!r) return r.error();
  return Payload(std::move(*r));
}

Result<Payload> decode_heartbeat(ByteView payload, std::optional<Direction> dir) {
  const bool client = dir ? *dir == Direction::ClientToServer : payload.size() == 1;
  return client ? widen(decode_client_heartbeat(payload)) : widen(decode_server_heartbeat(payload));
}

}  // namespace

std::size_t output_chunk_limit(std::uint32_t constraints, std::uint8_t client_buffer_usage) {
  const bool relief = (constraints & kConstraintDynamicFrameSize) && client_buffer_usage >= kBackpressureUsage;
  return relief ? kBackpressureChunk : kMaxOutputChunk;
}

Result<TextPayload> decode_text(ByteView payload) { return TextPayload{std::string(as_text(payload))}; }

Result<ToolCall> decode_tool_call(ByteView payload) {
  Reader r(payload);
  std::uint8_t name_length = 0;
  ToolCall call;
  if (!r.u8(name_length) || !r.text(name_length, call.name) || r.left() == 0)
    return length_error(PayloadType::ToolCall, payload, "u8 name length, the name, then JSON parameters");
  call.parameters_json = r.rest_text();
  return call;
}

Result<ToolResult> decode_tool_result(ByteView payload) {
  Reader r(payload);
  ToolResult result;
  if (!r.u32(result.call_sequence_id)) return length_error(PayloadType::ToolResult, payload, "at least 4 bytes");
  result.result_json = r.rest_text();
  return result;
}

Result<ClientHeartbeat> decode_client_heartbeat(ByteView payload) {
  if (payload.size() != 1) return length_error(PayloadType::Heartbeat, payload, "exactly 1 byte from the client");
  return ClientHeartbeat{payload[0]};
}

Result<ServerHeartbeat> decode_server_heartbeat(ByteView payload) {
  if (payload.size() != 8) return length_error(PayloadType::Heartbeat, payload, "exactly 8 bytes from the server");
  return ServerHeartbeat{load_u64(payload.data())};
}

Result<Terminate> decode_terminate(ByteView payload) {
  if (payload.size() != 2) return length_error(PayloadType::Terminate, payload, "exactly 2 bytes");
  return Terminate{load_u16(payload.data())};
}

std::optional<InitLayout> session_init_layout(ByteView payload) {
  if (payload.empty() || payload.size() < kSessionTermsFixed + payload[0]) return std::nullopt;
  const std::size_t id = payload[0], terms = kSessionTermsFixed + id, rest = payload.size() - terms;
  const std::uint32_t constraints = load_u32(payload.data() + terms - 4);
  if (!(constraints & kConstraintApiKey)) {
    if (rest != 0 && rest != kResumeFields) return std::nullopt;
    return InitLayout{id, rest == kResumeFields, 0};
  }
  // The key's u8 length follows the resume fields when there are any. A payload that reads both
  // ways is taken as a resume: a fresh one needs a key of 77+ bytes with one exact byte at 75,
  // while a resume read as fresh would need only its token's first byte to match (1 in 256).
  auto key_at = [&](std::size_t at) -> std::size_t {
    if (rest <= at) return 0;
    const std::size_t key = payload[terms + at];
    return rest == at + 1 + key ? key : 0;
  };
  if (std::size_t key = key_at(kResumeFields)) return InitLayout{id, true, key};
  if (std::size_t key = key_at(0)) return InitLayout{id, false, key};
  return std::nullopt;
}

Result<SessionInit> decode_session_init(ByteView payload) {
  auto layout = session_init_layout(payload);
  if (!layout) return length_error(PayloadType::SessionInit, payload, kInitForms);
  Reader r(payload);
  SessionInit init;
  std::uint8_t key_length = 0;
  // The layout checked every length, so no read below can fall short.
  read_terms(r, init.terms);
  if (layout->resume) read_resume(r, init.resume.emplace());
  if (layout->key_length && r.u8(key_length)) r.text(key_length, init.api_key.emplace());
  return init;
}

Result<SessionAck> decode_session_ack(ByteView payload) {
  Reader r(payload);
  SessionAck ack;
  if (!r.token(ack.token) || !r.u32(ack.last_client_sequence_id) || !r.u64(ack.server_time_ns) || r.left() != 0)
    return length_error(PayloadType::SessionAck, payload, "exactly 76 bytes");
  return ack;
}

Result<Payload> decode_payload(PayloadType type, ByteView payload, std::optional<Direction> dir) {
  switch (type) {
    case PayloadType::UserInput:
    case PayloadType::ModelOutput: return widen(decode_text(payload));
    case PayloadType::ToolCall: return widen(decode_tool_call(payload));
    case PayloadType::ToolResult: return widen(decode_tool_result(payload));
    case PayloadType::Heartbeat: return decode_heartbeat(payload, dir);
    case PayloadType::Terminate: return widen(decode_terminate(payload));
    case PayloadType::SessionInit: return widen(decode_session_init(payload));
    case PayloadType::SessionAck: return widen(decode_session_ack(payload));
  }
  return make_error(ErrorClass::Input, to_string(TerminateReason::Type),
                    "payload type " + std::to_string(static_cast<unsigned>(type)) + " is not in the table");
}

Result<Payload> decode_payload(const DataFrame& frame, std::optional<Direction> dir) {
  return decode_payload(frame.type, frame.payload, dir);
}

Result<Bytes> encode_payload(const Payload& payload) {
  return std::visit([](const auto& p) { return encode(p); }, payload);
}

PayloadType payload_type_of(const Payload& payload, Direction sender) {
  struct Visitor {
    Direction sender;
    PayloadType operator()(const TextPayload&) const {
      return sender == Direction::ClientToServer ? PayloadType::UserInput : PayloadType::ModelOutput;
    }
    PayloadType operator()(const ToolCall&) const { return PayloadType::ToolCall; }
    PayloadType operator()(const ToolResult&) const { return PayloadType::ToolResult; }
    PayloadType operator()(const ClientHeartbeat&) const { return PayloadType::Heartbeat; }
    PayloadType operator()(const ServerHeartbeat&) const { return PayloadType::Heartbeat; }
    PayloadType operator()(const Terminate&) const { return PayloadType::Terminate; }
    PayloadType operator()(const SessionInit&) const { return PayloadType::SessionInit; }
    PayloadType operator()(const SessionAck&) const { return PayloadType::SessionAck; }
  };
  return std::visit(Visitor{sender}, payload);
}

}  // namespace anthro::lz
