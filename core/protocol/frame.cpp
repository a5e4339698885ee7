#include "protocol/frame.h"

#include <cstring>
#include <variant>

namespace anthro {

const char* to_string(FrameType type) {
  switch (type) {
    case FrameType::Request: return "REQUEST";
    case FrameType::Response: return "RESPONSE";
    case FrameType::StreamToken: return "STREAM_TOKEN";
    case FrameType::Cancel: return "CANCEL";
    case FrameType::Error: return "ERROR";
  }
  return "UNKNOWN";
}

const char* to_string(FrameReason reason) {
  switch (reason) {
    case FrameReason::Version: return "version";
    case FrameReason::Type: return "type";
    case FrameReason::Flags: return "flags";
    case FrameReason::Reserved: return "reserved";
    case FrameReason::Length: return "length";
    case FrameReason::Token: return "token";
    case FrameReason::Incomplete: return "incomplete";
    case FrameReason::Authentication: return "authentication";
    case FrameReason::Body: return "body";
  }
  return "?";
}

LiveAction live_action(FrameReason reason, FrameType type) {
  if (is_header_reason(reason)) return LiveAction::ProtocolErrorAndClose;
  switch (reason) {
    case FrameReason::Incomplete: return LiveAction::Close;
    case FrameReason::Authentication: return LiveAction::DropAndCount;
    default: return type == FrameType::Request ? LiveAction::BadRequestOnStream : LiveAction::ReportAndSkip;
  }
}

FrameHeader parse_header(const std::uint8_t* p) {
  FrameHeader h;
  h.version = p[0];
  h.type = p[1];
  h.flags = p[2];
  h.reserved = p[3];
  h.payload_length = load_u32(p + 4);
  h.token = load_u64(p + 8);
  return h;
}

void write_header(const FrameHeader& h, std::uint8_t* p) {
  p[0] = h.version;
  p[1] = h.type;
  p[2] = h.flags;
  p[3] = h.reserved;
  store_u32(p + 4, h.payload_length);
  store_u64(p + 8, h.token);
}

namespace {

std::string hex8(std::uint8_t v) { return "0x" + to_hex({&v, 1}); }

}  // namespace

FrameRefusal header_refusal(FrameReason fault, const FrameHeader& h, const HeaderContext& ctx) {
  switch (fault) {
    case FrameReason::Version: return {fault, "frame version " + hex8(h.version) + ", expected 0x01"};
    case FrameReason::Type: return {fault, "unknown frame type " + hex8(h.type)};
    case FrameReason::Flags:
      if (h.flags & kFlagsReserved) return {fault, "flags " + hex8(h.flags) + " set reserved bits 3-7"};
      return {fault, "flags " + hex8(h.flags) + " set a bit not granted (" + hex8(ctx.granted_flags.value_or(0)) + ")"};
    case FrameReason::Reserved: return {fault, "reserved byte is " + hex8(h.reserved)};
    case FrameReason::Length:
      if (h.payload_length > kMaxPayload)
        return {fault, "payload_length " + std::to_string(h.payload_length) + " has a non-zero top byte (max 16777215)"};
      return {fault, "payload_length " + std::to_string(h.payload_length) + " is below the minimum 32"};
    case FrameReason::Token:
      return {fault, "connection_token " + token_hex(h.token) + " is not the negotiated " + token_hex(ctx.token.value_or(0))};
    default: return {fault, to_string(fault)};
  }
}

void seal_frame(Aead& aead, FrameType type, std::uint8_t flags, std::uint64_t token,
                const std::array<std::uint8_t, kNonceSize>& nonce, ByteView plaintext, Bytes& out) {
  FrameHeader h;
  h.type = static_cast<std::uint8_t>(type);
  h.flags = flags;
  h.payload_length = static_cast<std::uint32_t>(kNonceSize + plaintext.size() + kTagSize);
  h.token = token;
  std::size_t start = out.size();
  out.resize(start + h.frame_size());
  std::uint8_t* p = out.data() + start;
  write_header(h, p);
  std::memcpy(p + kHeaderSize, nonce.data(), kNonceSize);
  aead.seal(nonce.data(), {p, kHeaderSize}, plaintext, p + kHeaderSize + kNonceSize);
}

Bytes seal_frame(Aead& aead, FrameType type, std::uint8_t flags, std::uint64_t token,
                 const std::array<std::uint8_t, kNonceSize>& nonce, ByteView plaintext) {
  Bytes out;
  seal_frame(aead, type, flags, token, nonce, plaintext, out);
  return out;
}

bool open_frame(Aead& aead, ByteView frame, Bytes& plaintext) {
  if (frame.size() < kHeaderSize + kNonceSize + kTagSize) return false;
  const std::uint8_t* nonce = frame.data() + kHeaderSize;
  ByteView sealed = frame.subspan(kHeaderSize + kNonceSize);
  plaintext.resize(sealed.size() - kTagSize);
  return aead.open(nonce, frame.first(kHeaderSize), sealed, plaintext.data());
}

std::variant<OpenedFrame, FrameRefusal> check_and_open(ByteView frame, const HeaderContext& ctx,
                                                       Aead& aead) {
  if (frame.size() < kHeaderSize)
    return FrameRefusal{FrameReason::Incomplete, "only " + std::to_string(frame.size()) +
                                                     " of the 16 header bytes"};
  OpenedFrame opened{parse_header(frame.data()), {}};
  if (auto refusal = check_header(opened.header, ctx)) return *refusal;
  if (frame.size() < opened.header.frame_size())
    return FrameRefusal{FrameReason::Incomplete, std::to_string(frame.size()) + " of " +
                                                     std::to_string(opened.header.frame_size()) +
                                                     " frame bytes"};
  if (!open_frame(aead, frame.first(opened.header.frame_size()), opened.plaintext))
    return FrameRefusal{FrameReason::Authentication, "the AEAD tag does not verify"};
  return opened;
}

}  // namespace anthro
