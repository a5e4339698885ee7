// One-line, secret-free descriptions of frames, shared by the CLI and the widgets.
#pragma once

#include <string>

#include "protocol/stream_decoder.h"

namespace anthro {

// The body in a line: redacted JSON for REQUEST, quoted text for tokens, and so on.
std::string describe_body(const Body& body);
// The frame's status: "ok", "no key", or the refusal reason with its detail.
std::string describe_status(const FrameEvent& event);

}  // namespace anthro
