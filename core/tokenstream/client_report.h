// Token stream spec §5.1 row 2: a front end that decodes the binary token stream as text
// (`new TextDecoder().decode(chunk)`) and then parses it as JSON fails, and a browser app
// reports that failure. The workbench's client does the same in its text-decoding mode, and
// the endpoint and a capture recognise the report: that is how the mistake shows on the wire.
// The report is a POST to /v1/client-errors with a JSON body:
//   {"error":{"type":"json_parse_error","message":"..."},"content_type":"<media type>","context_id":"..."}
#pragma once

#include <string>
#include <string_view>

#include "util/bytes.h"

namespace anthro {

inline constexpr std::string_view kClientErrorsPath = "/v1/client-errors";

// What JSON.parse says of `body` read as UTF-8 text: the message of its first error (a token
// stream never parses: its first id's bytes are no JSON value).
std::string text_decoding_error(ByteView body);

// The report's body for a reply of context `context_id` whose parse failed with `error`.
std::string text_decoding_report(std::string_view error, std::string_view context_id);

// Is `body` such a report (parsed, never searched)?
bool is_text_decoding_report(std::string_view body);

}  // namespace anthro
