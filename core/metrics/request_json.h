// The one JSON form of a request record: cli.md `session` requests[], `analyze` streams[] and
// `bench` records. Internal to core: it exposes nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "metrics/request_result.h"
#include "util/bytes.h"
#include "util/result.h"

namespace anthro {

// An optional as JSON: its value, or null.
template <class T>
nlohmann::json json_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

struct RequestJsonParts {
  bool text = true;          // the answer text (hex when it is not UTF-8)
  bool itl_samples = false;  // every ITL sample, as "itl_ms"
};

nlohmann::json request_json(const RequestResult& r, RequestJsonParts parts = {});

// A request read back from its JSON (a saved result): its fields and figures as written (of
// its timeline only sent_s), and the members it does not know (formats' parts) kept as read,
// so request_json writes the same object again. `parts`: what the record must carry. Errors
// (ErrorClass::Input) name the member: "ttft_ms: expected a number or null".
Result<RequestResult> request_from_json(const nlohmann::json& j, RequestJsonParts parts = {});

// As one line of text, with `text` standing for r.text (a capture's texts may wait in a
// temporary file). Valid UTF-8 is escaped directly: texts are most of analyze's output.
std::string request_json_line(const RequestResult& r, std::string_view text, bool itl_samples = false);
// The same appended to `out` (a document's piece of many lines).
void append_request_json_line(std::string& out, const RequestResult& r, std::string_view text, bool itl_samples = false);

// {"text": ...} for valid UTF-8, else {"text": null, "invalid_utf8": true, "text_hex": ...}.
nlohmann::json text_fields(ByteView text, bool invalid);

// Summary statistics as JSON, NaN (no samples) as null.
nlohmann::json summary_json(const struct Summary& s);

}  // namespace anthro
