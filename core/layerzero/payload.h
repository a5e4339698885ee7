// The payloads of Layer Zero's payload types (../shared/spec/profiles/layer-zero.md), decoded
// and encoded. Decoders check their own bounds, so they are safe on a payload whatever its
// frame's checks said; JSON is carried as text and not parsed here.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "layerzero/session_token.h"

namespace anthro::lz {

// SESSION_INIT `constraints` bits (Layer Zero spec §2.2, §5.2).
inline constexpr std::uint32_t kConstraintTools = 0x02;
inline constexpr std::uint32_t kConstraintJsonOnly = 0x04;
inline constexpr std::uint32_t kConstraintDynamicFrameSize = 0x10;
// The profile's authentication: the INIT ends with u8 key length (1…255) and the API key.
inline constexpr std::uint32_t kConstraintApiKey = 0x40;

// Client buffer usage from which a server honouring kConstraintDynamicFrameSize sends
// MODEL_OUTPUT of at most kBackpressureChunk bytes (0xB3 ≈ 70 %).
inline constexpr std::uint8_t kBackpressureUsage = 0xB3;
inline constexpr std::size_t kBackpressureChunk = 512;
// The largest MODEL_OUTPUT payload a server may send under these constraints and usage.
std::size_t output_chunk_limit(std::uint32_t constraints, std::uint8_t client_buffer_usage);

struct TextPayload {  // USER_INPUT, MODEL_OUTPUT: UTF-8 (not checked here)
  std::string text;
  bool operator==(const TextPayload&) const = default;
};
struct ToolCall {
  std::string name;  // 1…255 bytes on the wire: u8 length
  std::string parameters_json;
  bool operator==(const ToolCall&) const = default;
};
struct ToolResult {
  std::uint32_t call_sequence_id = 0;  // of the TOOL_CALL it answers
  std::string result_json;
  bool operator==(const ToolResult&) const = default;
};
struct ClientHeartbeat {
  std::uint8_t buffer_usage = 0;  // 0 empty … 0xFF full
  bool operator==(const ClientHeartbeat&) const = default;
};
struct ServerHeartbeat {
  std::uint64_t server_time_ns = 0;
  bool operator==(const ServerHeartbeat&) const = default;
};
struct Terminate {
  std::uint16_t code = 0;
  std::optional<TerminateReason> reason() const { return terminate_reason_from_code(code); }
  bool operator==(const Terminate&) const = default;
};
struct ResumeFields {
  SessionToken token{};
  std::uint32_t last_server_sequence_id = 0;  // the last server data frame the client received
  std::uint64_t client_time_ns = 0;
  bool operator==(const ResumeFields&) const = default;
};
struct SessionInit {
  SessionTerms terms;
  std::optional<ResumeFields> resume;  // a fresh session has none
  std::optional<std::string> api_key;  // sent with kConstraintApiKey set, on every INIT of the session
  bool operator==(const SessionInit&) const = default;
};

// A SESSION_INIT's fixed fields (u8 model id length, u32 budget_ms, u32 constraints) and a
// resume's (the token, u32 last server sequence id, u64 client time).
inline constexpr std::size_t kSessionTermsFixed = 9, kResumeFields = 76;
// Where a SESSION_INIT's parts sit, read from its length, its model id length and its
// constraints; nullopt when the length fits none of the profile's forms.
struct InitLayout {
  std::size_t model_id_length = 0;
  bool resume = false;
  std::size_t key_length = 0;  // 0: no key
};
std::optional<InitLayout> session_init_layout(ByteView payload);
struct SessionAck {
  SessionToken token{};
  std::uint32_t last_client_sequence_id = 0;  // 0 on a fresh session
  std::uint64_t server_time_ns = 0;
  bool operator==(const SessionAck&) const = default;
};

using Payload = std::variant<TextPayload, ToolCall, ToolResult, ClientHeartbeat, ServerHeartbeat, Terminate,
                             SessionInit, SessionAck>;

// Refusals: "type" for a type outside the table, "length" for a payload its type cannot hold.
// HEARTBEAT's form follows `dir`; without one, its size decides (1: client, 8: server).
Result<Payload> decode_payload(PayloadType type, ByteView payload, std::optional<Direction> dir = std::nullopt);
Result<Payload> decode_payload(const DataFrame& frame, std::optional<Direction> dir = std::nullopt);

Result<TextPayload> decode_text(ByteView payload);
Result<ToolCall> decode_tool_call(ByteView payload);
Result<ToolResult> decode_tool_result(ByteView payload);
Result<ClientHeartbeat> decode_client_heartbeat(ByteView payload);
Result<ServerHeartbeat> decode_server_heartbeat(ByteView payload);
Result<Terminate> decode_terminate(ByteView payload);
Result<SessionInit> decode_session_init(ByteView payload);
Result<SessionAck> decode_session_ack(ByteView payload);

// The payload bytes. Only TOOL_CALL (a name of 1…255 bytes and non-empty JSON) and
// SESSION_INIT (a model id of at most 255 bytes) can fail, with reason "length".
Result<Bytes> encode_payload(const Payload& payload);
// Its payload type: text is USER_INPUT from the client and MODEL_OUTPUT from the server.
PayloadType payload_type_of(const Payload& payload, Direction sender);

}  // namespace anthro::lz
