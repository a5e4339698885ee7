// Session affinity's X-Anthropic-Context-Hash (../shared/spec/profiles/session-affinity.md): the
// first 16 hex digits of SHA-256 over the canonical JSON of the last three messages. The canonical
// form is JavaScript's JSON.stringify of the parsed body; Python's json.dumps default (ASCII
// escapes, floats as repr) is written beside it, because the two disagree exactly where clients in
// the two languages do.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anthro {

enum class HashSerialisation {
  Canonical,      // JSON.stringify: raw UTF-8, ECMAScript numbers
  PythonDefault,  // json.dumps(obj, separators=(",", ":")): \uXXXX from U+007F, floats as repr
};

// `value` written in one serialisation, compact; object members in their order.
std::string affinity_json(const nlohmann::ordered_json& value, HashSerialisation how);

// The messages that are hashed: the last three (all when fewer).
nlohmann::ordered_json hashed_messages(const nlohmann::ordered_json& messages);
// The Context-Hash of a messages array; "" for an empty one.
std::string context_hash(const nlohmann::ordered_json& messages, HashSerialisation how = HashSerialisation::Canonical);
// A response's hash: the request's messages with the reply appended as an assistant string.
std::string response_context_hash(const nlohmann::ordered_json& request_messages, std::string_view reply_text,
                                  HashSerialisation how = HashSerialisation::Canonical);

// Why the two serialisations of the hashed messages differ, for a person: each non-ASCII
// character (from U+007F) and each number whose spelling differs, with where it is.
struct HashDifference {
  std::string where;  // a JSON pointer into the messages array: "/2/content"
  std::string what;   // "U+5E2E '帮' written as \\u5e2e", "1.0: JavaScript 1, Python 1.0"
};

struct ContextHashReport {
  std::size_t messages = 0, hashed = 0;
  std::string canonical, canonical_hash;
  std::string python, python_hash;
  std::vector<HashDifference> differences;  // empty exactly when the hashes agree
  nlohmann::ordered_json all_messages;      // the whole array, for a response hash
  bool agree() const { return canonical_hash == python_hash; }
};

// Reads a messages array, or a request body holding one under "messages". Errors (reason
// "input") say where the text is not such a thing.
Result<ContextHashReport> context_hash_report(std::string_view json_text);
// A response's hash for the report's messages and a reply's text.
std::string response_context_hash(const ContextHashReport& report, std::string_view reply_text);

// `anthro-wb hash --format json`: kind "context_hash", the file, messages and hashed counts,
// canonical and python_default {serialized, hash}, variants_agree, differences [{where, what}],
// and response_hash when a reply is given.
std::string context_hash_json(const ContextHashReport& report, const std::string& file,
                              const std::optional<std::string>& reply_text);

}  // namespace anthro
