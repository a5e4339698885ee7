#include "layerzero/frame.h"

#include <algorithm>
#include <cstdio>

#include "crypto/hash.h"
#include "layerzero/payload.h"

namespace anthro::lz {
namespace {

constexpr std::size_t kHeartbeatClient = 1, kHeartbeatServer = 8;
constexpr std::size_t kTerminateSize = 2;
constexpr std::size_t kToolResultMin = 4;
constexpr std::size_t kAckSize = 76;

struct ReasonName {
  TerminateReason reason;
  const char* name;
};
constexpr ReasonName kReasonNames[] = {
    {TerminateReason::Normal, "normal"},         {TerminateReason::Checksum, "checksum"},
    {TerminateReason::Type, "type"},             {TerminateReason::Length, "length"},
    {TerminateReason::Sequence, "sequence"},     {TerminateReason::StateHash, "state-hash"},
    {TerminateReason::Expired, "expired"},       {TerminateReason::ClockSkew, "clock-skew"},
    {TerminateReason::BudgetExceeded, "budget-exceeded"}, {TerminateReason::Unauthorized, "unauthorized"},
    {TerminateReason::Incomplete, "incomplete"},
};

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::uint32_t load_u24(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 8 | p[2];
}

void write_header(std::uint8_t* out, std::uint32_t sequence_id, PayloadType type, std::uint32_t length) {
  store_u32(out, sequence_id);
  out[4] = static_cast<std::uint8_t>(type);
  out[5] = static_cast<std::uint8_t>(length >> 16);
  store_u16(out + 6, static_cast<std::uint16_t>(length));
}

bool heartbeat_length(std::size_t n, std::optional<Direction> dir) {
  if (!dir) return n == kHeartbeatClient || n == kHeartbeatServer;
  return n == (*dir == Direction::ClientToServer ? kHeartbeatClient : kHeartbeatServer);
}

// The first byte of TOOL_CALL and SESSION_INIT is a length the rest must hold.
std::size_t prefixed(ByteView payload) { return payload.empty() ? 0 : payload[0]; }


FrameRefusal refusal(TerminateReason reason, std::string detail) { return {reason, std::move(detail), 0}; }

std::string length_detail(const FrameHeader& h, std::optional<Direction> dir) {
  std::string text = "a " + std::to_string(h.payload_length) + "-byte " + to_string(h.type) + " payload";
  if (dir) text += std::string(" sent ") + to_string(*dir);
  return text + " breaks the table's length rule";
}

std::optional<FrameRefusal> check_crc(ByteView frame, std::size_t body) {
  const std::uint32_t computed = crc32c(frame.first(body));
  const std::uint32_t carried = load_u32(frame.data() + body);
  if (computed == carried) return std::nullopt;
  return refusal(TerminateReason::Checksum, "the frame carries CRC-32C " + hex32(carried) + ", its bytes give " + hex32(computed));
}

}  // namespace

const char* to_string(PayloadType type) {
  switch (type) {
    case PayloadType::UserInput: return "USER_INPUT";
    case PayloadType::ModelOutput: return "MODEL_OUTPUT";
    case PayloadType::ToolCall: return "TOOL_CALL";
    case PayloadType::ToolResult: return "TOOL_RESULT";
    case PayloadType::Heartbeat: return "HEARTBEAT";
    case PayloadType::Terminate: return "TERMINATE";
    case PayloadType::SessionInit: return "SESSION_INIT";
    case PayloadType::SessionAck: return "SESSION_ACK";
  }
  return "UNKNOWN";
}

bool is_known_payload_type(std::uint8_t type) {
  switch (static_cast<PayloadType>(type)) {
    case PayloadType::UserInput:
    case PayloadType::ModelOutput:
    case PayloadType::ToolCall:
    case PayloadType::ToolResult:
    case PayloadType::Heartbeat:
    case PayloadType::Terminate:
    case PayloadType::SessionInit:
    case PayloadType::SessionAck: return true;
  }
  return false;
}

const char* to_string(TerminateReason reason) {
  for (const auto& r : kReasonNames)
    if (r.reason == reason) return r.name;
  return "unknown";
}

std::optional<TerminateReason> parse_terminate_reason(std::string_view name) {
  for (const auto& r : kReasonNames)
    if (name == r.name) return r.reason;
  return std::nullopt;
}

std::optional<TerminateReason> terminate_reason_from_code(std::uint16_t code) {
  if (code > static_cast<std::uint16_t>(TerminateReason::Unauthorized)) return std::nullopt;
  return static_cast<TerminateReason>(code);
}

FrameHeader parse_header(const std::uint8_t* bytes) {
  return {load_u32(bytes), static_cast<PayloadType>(bytes[4]), load_u24(bytes + 5)};
}

bool append_frame(Bytes& out, std::uint32_t sequence_id, PayloadType type, ByteView payload) {
  if (payload.size() > kMaxPayload) return false;
  const std::size_t start = out.size();
  out.resize(start + kHeaderSize);
  write_header(out.data() + start, sequence_id, type, static_cast<std::uint32_t>(payload.size()));
  append(out, payload);
  append_u32(out, crc32c(ByteView(out).subspan(start)));
  return true;
}

Result<Bytes> encode_frame(std::uint32_t sequence_id, PayloadType type, ByteView payload) {
  Bytes out;
  out.reserve(kFrameOverhead + std::min<std::size_t>(payload.size(), kMaxPayload));
  if (!append_frame(out, sequence_id, type, payload))
    return make_error(ErrorClass::Usage, "length", "a payload of " + std::to_string(payload.size()) + " bytes exceeds the u24 length field");
  return out;
}

Result<Bytes> encode_frame(const DataFrame& frame) { return encode_frame(frame.sequence_id, frame.type, frame.payload); }

bool length_allowed(PayloadType type, ByteView payload, std::optional<Direction> dir) {
  const std::size_t n = payload.size();
  switch (type) {
    case PayloadType::UserInput: return true;
    case PayloadType::ModelOutput: return n <= kMaxOutputChunk;
    case PayloadType::ToolCall: return n >= 2 + prefixed(payload);  // an empty payload has no name length: 0 < 2
    case PayloadType::ToolResult: return n >= kToolResultMin;
    case PayloadType::Heartbeat: return heartbeat_length(n, dir);
    case PayloadType::Terminate: return n == kTerminateSize;
    case PayloadType::SessionInit: return session_init_layout(payload).has_value();
    case PayloadType::SessionAck: return n == kAckSize;
  }
  return false;
}

std::string sequence_detail(const FrameHeader& h, std::uint32_t previous) {
  std::string text = "sequence_id " + std::to_string(h.sequence_id) + " on " + to_string(h.type);
  if (is_session_frame(h.type)) return text + ", which carries 0";
  return text + " after " + std::to_string(previous) + ", not " + std::to_string(std::uint64_t{previous} + 1);
}

bool sequence_allowed(const FrameHeader& header, std::uint32_t previous) {
  if (is_session_frame(header.type)) return header.sequence_id == 0;
  // In 64 bits, so that 0xFFFFFFFF has no successor instead of wrapping to 0.
  return std::uint64_t{header.sequence_id} == std::uint64_t{previous} + 1;
}

std::optional<FrameRefusal> check_frame(ByteView frame, std::optional<Direction> dir,
                                        std::optional<std::uint32_t> previous) {
  if (frame.size() < kHeaderSize) return refusal(TerminateReason::Incomplete, "fewer bytes than a header");
  const FrameHeader h = parse_header(frame.data());
  if (frame.size() != h.frame_size())
    return refusal(TerminateReason::Incomplete, std::to_string(frame.size()) + " bytes of a " + std::to_string(h.frame_size()) + "-byte frame");
  if (auto bad = check_crc(frame, kHeaderSize + h.payload_length)) return bad;
  if (!is_known_payload_type(static_cast<std::uint8_t>(h.type)))
    return refusal(TerminateReason::Type, "payload type " + std::to_string(static_cast<unsigned>(h.type)) + " is not in the table");
  if (!length_allowed(h.type, frame.subspan(kHeaderSize, h.payload_length), dir))
    return refusal(TerminateReason::Length, length_detail(h, dir));
  const bool session = is_session_frame(h.type);
  if ((session || previous) && !sequence_allowed(h, previous.value_or(0)))
    return refusal(TerminateReason::Sequence, sequence_detail(h, previous.value_or(0)));
  return std::nullopt;
}

FrameOutcome decode_frame(ByteView bytes, std::optional<Direction> dir, std::optional<std::uint32_t> previous) {
  if (bytes.size() < kHeaderSize)
    return refusal(TerminateReason::Incomplete, std::to_string(bytes.size()) + " bytes, fewer than a header");
  const FrameHeader h = parse_header(bytes.data());
  if (bytes.size() < h.frame_size())
    return refusal(TerminateReason::Incomplete, std::to_string(bytes.size()) + " bytes of a " + std::to_string(h.frame_size()) + "-byte frame");
  const ByteView frame = bytes.first(h.frame_size());
  if (auto bad = check_frame(frame, dir, previous)) return std::move(*bad);
  const ByteView payload = frame.subspan(kHeaderSize, h.payload_length);
  return DecodedFrame{DataFrame{h.sequence_id, h.type, Bytes(payload.begin(), payload.end())}, frame.size()};
}

}  // namespace anthro::lz
