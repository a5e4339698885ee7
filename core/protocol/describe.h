// One-line, secret-free descriptions of frames, shared by the CLI and the widgets.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "protocol/stream_decoder.h"

namespace anthro {

// The body in a line: redacted JSON for REQUEST, quoted text for tokens, and so on.
std::string describe_body(const Body& body);
// The frame's status: "ok", "no key", or the refusal reason with its detail.
std::string describe_status(const FrameEvent& event);

// One field of a frame for a detail tree and a hex view: its byte range in the frame.
struct FrameField {
  std::string name, value;
  std::size_t begin = 0, end = 0;
  int depth = 0;  // 0 for header / nonce / body / tag, 1 for their parts
};

// The fields of a frame as the index stores it: the 16 header bytes, the nonce, then the
// plaintext body where it was opened (else the ciphertext) and the tag. `body` is the parsed
// body when there is one.
std::vector<FrameField> frame_fields(ByteView frame, bool decrypted, const Body* body);

// Overwrites the value of every "api_key" member of a REQUEST's JSON text with '*' (spec §5:
// a hex view must not show it). JSON naming api_key in a way not found literally (escapes)
// is masked whole. True when anything was masked.
bool mask_secrets(std::span<std::uint8_t> json_text);

}  // namespace anthro
