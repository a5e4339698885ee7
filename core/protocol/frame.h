// The frame of spec §4: header, the checks in their order, sealing and opening.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "crypto/aead.h"
#include "protocol/blob.h"

namespace anthro {

inline constexpr std::size_t kHeaderSize = 16;
inline constexpr std::uint8_t kFrameVersion = 0x01;
inline constexpr std::uint32_t kMinPayload = kNonceSize + 4 + kTagSize;  // 32
inline constexpr std::uint32_t kMaxPayload = 0x00FFFFFF;
inline constexpr std::size_t kMaxFrame = kHeaderSize + kMaxPayload;

enum class FrameType : std::uint8_t {
  Request = 0x01, Response = 0x02, StreamToken = 0x03, Cancel = 0x04, Error = 0x05
};
// "REQUEST", "STREAM_TOKEN", ...; "UNKNOWN" for other values.
const char* to_string(FrameType type);
inline bool is_known_frame_type(std::uint8_t type) { return type >= 0x01 && type <= 0x05; }

// The reasons of spec §4, in the order they are checked.
enum class FrameReason : std::uint8_t {
  Version, Type, Flags, Reserved, Length, Token, Incomplete, Authentication, Body
};
const char* to_string(FrameReason reason);
// Header reasons (version … token) are connection errors for a live peer.
inline bool is_header_reason(FrameReason r) { return r <= FrameReason::Token; }

// What a live peer does after refusing a frame (spec §4 "After a refusal").
enum class LiveAction {
  ProtocolErrorAndClose,  // ERROR code 1 on stream 0, then close
  DropAndCount,           // drop silently; 16 in a row is a protocol error
  BadRequestOnStream,     // ERROR 400 on the frame's stream
  ReportAndSkip,          // the connection goes on
  Close,                  // the peer's bytes ended inside a frame
};
inline constexpr unsigned kMaxConsecutiveAuthDrops = 16;
LiveAction live_action(FrameReason reason, FrameType type);

struct FrameHeader {
  std::uint8_t version = kFrameVersion;
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::uint8_t reserved = 0;
  std::uint32_t payload_length = 0;
  std::uint64_t token = 0;

  FrameType frame_type() const { return static_cast<FrameType>(type); }
  std::size_t frame_size() const { return kHeaderSize + payload_length; }
  bool operator==(const FrameHeader&) const = default;
};

FrameHeader parse_header(const std::uint8_t* bytes);
void write_header(const FrameHeader& header, std::uint8_t* out);

// What the receiver knows of the negotiation; unknown parts are not checked.
struct HeaderContext {
  std::optional<std::uint64_t> token;
  std::optional<std::uint8_t> granted_flags;
};

struct FrameRefusal {
  FrameReason reason;
  std::string detail;
};

// The first header check (version … token) that fails, in that order; `length` also fails when
// the payload is too short. Inline, and without check_header's message: every frame passes it.
inline std::optional<FrameReason> header_fault(const FrameHeader& h, const HeaderContext& ctx) {
  if (h.version != kFrameVersion) return FrameReason::Version;
  if (!is_known_frame_type(h.type)) return FrameReason::Type;
  if ((h.flags & kFlagsReserved) || (ctx.granted_flags && (h.flags & ~*ctx.granted_flags))) return FrameReason::Flags;
  if (h.reserved != 0) return FrameReason::Reserved;
  if (h.payload_length > kMaxPayload || h.payload_length < kMinPayload) return FrameReason::Length;
  if (ctx.token && h.token != *ctx.token) return FrameReason::Token;
  return std::nullopt;
}
// A header's refusal for the fault header_fault found, with the message that says why.
FrameRefusal header_refusal(FrameReason fault, const FrameHeader& header, const HeaderContext& ctx);
inline std::optional<FrameRefusal> check_header(const FrameHeader& header, const HeaderContext& ctx) {
  if (auto fault = header_fault(header, ctx)) return header_refusal(*fault, header, ctx);
  return std::nullopt;
}
// A header whose length field is usable, so a passive decoder can skip the frame.
inline bool length_is_valid(const FrameHeader& h) {
  return h.payload_length >= kMinPayload && h.payload_length <= kMaxPayload;
}

// Appends one sealed frame to `out`: header, nonce, ciphertext, tag.
void seal_frame(Aead& aead, FrameType type, std::uint8_t flags, std::uint64_t token,
                const std::array<std::uint8_t, kNonceSize>& nonce, ByteView plaintext, Bytes& out);
Bytes seal_frame(Aead& aead, FrameType type, std::uint8_t flags, std::uint64_t token,
                 const std::array<std::uint8_t, kNonceSize>& nonce, ByteView plaintext);

// Opens a complete frame (header checks are the caller's); false when the tag fails.
bool open_frame(Aead& aead, ByteView frame, Bytes& plaintext);

// The full check of one complete frame in spec order, for tools and tests:
// header, `incomplete`, `authentication`; the body is judged separately.
struct OpenedFrame {
  FrameHeader header;
  Bytes plaintext;
};
std::variant<OpenedFrame, FrameRefusal> check_and_open(ByteView frame, const HeaderContext& ctx,
                                                       Aead& aead);

}  // namespace anthro
