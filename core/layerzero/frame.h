// Layer Zero's DataFrame (../shared/spec/profiles/layer-zero.md): an 8-byte header
// (u32 sequence_id, u8 payload_type, u24 payload_len), the payload, and a CRC-32C of both. The
// receiver's checks in the spec's order, first failure wins: incomplete, checksum, type,
// length, sequence. Every input is hostile: nothing here throws or reads out of bounds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "util/bytes.h"
#include "util/result.h"
#include "util/vocabulary.h"

namespace anthro::lz {

inline constexpr std::size_t kHeaderSize = 8;
inline constexpr std::size_t kCrcSize = 4;
inline constexpr std::size_t kFrameOverhead = kHeaderSize + kCrcSize;
inline constexpr std::uint32_t kMaxPayload = 0x00FFFFFF;  // 16 MiB − 1, all a u24 holds
inline constexpr std::size_t kMaxFrame = kFrameOverhead + kMaxPayload;
inline constexpr std::size_t kMaxOutputChunk = 4096;

enum class PayloadType : std::uint8_t {
  UserInput = 0x01,
  ModelOutput = 0x02,
  ToolCall = 0x03,
  ToolResult = 0x04,
  Heartbeat = 0x05,
  Terminate = 0x06,
  SessionInit = 0x10,
  SessionAck = 0x11,
};
// "USER_INPUT", "SESSION_ACK", ...; "UNKNOWN" for a value outside the table.
const char* to_string(PayloadType type);
bool is_known_payload_type(std::uint8_t type);
// SESSION_INIT and SESSION_ACK carry sequence_id 0 and do not advance the count.
inline bool is_session_frame(PayloadType t) { return t == PayloadType::SessionInit || t == PayloadType::SessionAck; }

// TERMINATE's u16 reasons. `Incomplete` is no wire code: the stream ended inside a frame, so
// there is nobody left to tell.
enum class TerminateReason : std::uint16_t {
  Normal = 0,
  Checksum = 1,
  Type = 2,
  Length = 3,
  Sequence = 4,
  StateHash = 5,
  Expired = 6,
  ClockSkew = 7,
  BudgetExceeded = 8,
  Unauthorized = 9,  // a key required and not given, or wrong (the profile's authentication)
  Incomplete = 0xFFFF,
};
// "normal", "checksum", "type", "length", "sequence", "state-hash", "expired", "clock-skew",
// "budget-exceeded", "unauthorized", "incomplete": the names of the spec's vectors.
const char* to_string(TerminateReason reason);
std::optional<TerminateReason> parse_terminate_reason(std::string_view name);
// A TERMINATE payload's code (0…9); nullopt for any other value, 0xFFFF included.
std::optional<TerminateReason> terminate_reason_from_code(std::uint16_t code);

struct FrameHeader {
  std::uint32_t sequence_id = 0;
  PayloadType type = PayloadType::UserInput;
  std::uint32_t payload_length = 0;  // u24 on the wire

  std::size_t frame_size() const { return kFrameOverhead + payload_length; }
  bool operator==(const FrameHeader&) const = default;
};
// `bytes` holds at least kHeaderSize bytes.
FrameHeader parse_header(const std::uint8_t* bytes);

struct DataFrame {
  std::uint32_t sequence_id = 0;
  PayloadType type = PayloadType::UserInput;  // any u8, so refused frames can be built too
  Bytes payload;
  bool operator==(const DataFrame&) const = default;
};

// The whole frame, CRC included. Fails (reason "length") for a payload beyond kMaxPayload.
Result<Bytes> encode_frame(std::uint32_t sequence_id, PayloadType type, ByteView payload);
Result<Bytes> encode_frame(const DataFrame& frame);
// Appends the frame to `out`; false, with `out` unchanged, for a payload beyond kMaxPayload.
bool append_frame(Bytes& out, std::uint32_t sequence_id, PayloadType type, ByteView payload);

struct FrameRefusal {
  TerminateReason reason = TerminateReason::Incomplete;
  std::string detail;
  std::uint64_t offset = 0;  // of the frame's first byte in its stream (0 for a lone frame)
};

// The table's length rule for a payload of `type`. The direction matters for HEARTBEAT only
// (c→s 1 byte, s→c 8); unknown (nullopt), either size passes. False for an unknown type.
bool length_allowed(PayloadType type, ByteView payload, std::optional<Direction> dir);
// Sequence rule: 0 for SESSION_INIT/ACK, else `previous` + 1 (data frames of a direction count
// from 1 and continue across resumes, so `previous` is the last one received in it).
bool sequence_allowed(const FrameHeader& header, std::uint32_t previous);
// Why a frame breaks the sequence rule, for its refusal.
std::string sequence_detail(const FrameHeader& h, std::uint32_t previous);

struct DecodedFrame {
  DataFrame frame;
  std::size_t size = 0;  // bytes the frame took from the input
};
using FrameOutcome = Result<DecodedFrame, FrameRefusal>;

// The frame at the start of `bytes` (later bytes are not read) with every check in the spec's
// order. Without `previous` only SESSION_INIT/ACK's zero is checked of the sequence rule.
FrameOutcome decode_frame(ByteView bytes, std::optional<Direction> dir = std::nullopt,
                          std::optional<std::uint32_t> previous = std::nullopt);
// The checks of one frame in place, with nothing copied: the first failure, if any. `frame`
// is meant to be exactly header.frame_size() bytes; any other size is `incomplete`.
std::optional<FrameRefusal> check_frame(ByteView frame, std::optional<Direction> dir,
                                        std::optional<std::uint32_t> previous);

}  // namespace anthro::lz
