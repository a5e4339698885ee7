// JSON in and out for every file, frame and body: a writer that never throws and a reader
// that refuses nesting deeper than any real document (nlohmann writes, copies and compares
// recursively, so a deep document would overflow the stack).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anthro {

inline constexpr std::size_t kMaxJsonDepth = 64;

// Invalid UTF-8 in a string (a crafted ALPN name, a file name, a peer's error text) is written
// as U+FFFD instead of throwing.
template <class Json>
std::string dump_json(const Json& doc, int indent = -1) {
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// `text` (valid UTF-8) escaped for a JSON string, without its quotes, as nlohmann::json and
// JavaScript's JSON.stringify both escape it: `"` `\\` and \b \f \n \r \t short, the other
// controls as lowercase \u00xx, everything else as it is. Without the general serializer's
// re-validation of every byte.
void append_json_escaped(std::string& out, std::string_view text);

// The byte offset of the first '[' or '{' nested deeper than `max_depth`, if any.
std::optional<std::size_t> json_too_deep_at(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// Parses any JSON value. Errors (ErrorClass::Input, reason "json") read
// "nested deeper than 64 levels at byte N" or "not valid JSON at byte N: WHY", for the caller
// to prefix with the file or body.
Result<nlohmann::json> parse_json(std::string_view text);
// The same, with nlohmann's parser callback seeing every event (e.g. to count duplicate keys,
// which the parsed object no longer shows).
Result<nlohmann::json> parse_json(std::string_view text, const nlohmann::json::parser_callback_t& callback);
Result<nlohmann::ordered_json> parse_ordered_json(std::string_view text);
// For a peer's text that is shown as JSON when it is JSON: the value, or null.
nlohmann::json parse_or_null(std::string_view text);

}  // namespace anthro
