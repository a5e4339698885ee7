// Layer Zero frames as the capture inspector's rows and `decode`'s lines show them:
// the header, the CRC-32C carried and computed, and the payload read by the codec's own
// decoders (layerzero/payload.h). Every byte is hostile: a frame cut short, refused or of an
// unknown type gives the fields its bytes hold and no more.
//
// The SessionToken (SESSION_INIT on a resume, SESSION_ACK) is a bearer credential: whoever
// holds it resumes the session until it expires. As anthro-v1's api_key is masked in the
// index's bytes and fields, the token's bytes are masked in the bytes the index keeps, and
// fields and JSON name it by its length and a SHA-256 fingerprint only — the form report
// redaction gives a secret it removed — so two frames can still be matched by their token.
// Internal to core: it exposes nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layerzero/trace.h"
#include "protocol/describe.h"

namespace anthro {

// [begin, end) of the SessionToken in a frame's bytes, when its header and length place one there.
std::optional<std::pair<std::size_t, std::size_t>> lz_token_range(ByteView frame);
// [begin, end) of the API key a SESSION_INIT carries (constraint 0x40): masked wherever the token is.
std::optional<std::pair<std::size_t, std::size_t>> lz_api_key_range(ByteView frame);
// The first 8 bytes of the token's SHA-256, big-endian: what identifies it without it.
std::uint64_t lz_token_fingerprint(ByteView token);
// "64 bytes, sha256 0123456789abcdef…"
std::string lz_token_text(std::uint64_t fingerprint);
// The CRC-32C of a whole frame's header and payload; nullopt for bytes that are no whole frame.
std::optional<std::uint32_t> lz_computed_crc(ByteView frame);
// The payload type's name as the spec spells it, when the frame has a header and the type is
// in the table.
std::optional<lz::PayloadType> lz_known_type(ByteView frame);

// A frame as the index keeps it (token masked), with what was computed before the masking.
struct LzFrameFacts {
  ByteView bytes;
  Direction dir = Direction::ClientToServer;
  std::optional<std::uint32_t> computed_crc;
  std::optional<std::uint64_t> token_fingerprint;
};

// The header, CRC and payload fields with their byte ranges in `bytes`.
std::vector<FrameField> lz_frame_fields(const LzFrameFacts& f);
// One line: what the payload says ("model \"m\", budget 5000 ms, constraints 0x10", the text…).
std::string lz_summary(const LzFrameFacts& f);
// A TOOL_CALL's parameters or a TOOL_RESULT's result, indented when it parses; else empty.
std::string lz_pretty_json(const LzFrameFacts& f);

// decode's line for a frame or refusal (kind "layer_zero"), from the wire bytes (token unmasked
// here, so its fingerprint is computed; its bytes are never written).
nlohmann::json lz_frame_json(const std::string& conn, const lz::WireFrame& frame);

}  // namespace anthro
