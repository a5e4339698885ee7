// JSON pieces shared by the capture pass (decode lines) and analyze's output. Internal to
// core/capture.
#pragma once

#include <nlohmann/json.hpp>

#include "util/bytes.h"

namespace anthro {

// {"text": ...} for valid UTF-8, else {"text": null, "invalid_utf8": true, "text_hex": ...}.
nlohmann::json text_fields(ByteView text, bool invalid);

}  // namespace anthro
