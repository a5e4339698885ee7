// Messages in a result's JSON, next to the English text they render (cli.md: `evidence` stays,
// `evidence_messages` is added): [{"id": ..., "args": {name: value or nested messages}}].
#pragma once

#include "util/json.h"
#include "util/message.h"

namespace anthro {

nlohmann::json messages_json(const MessageText& text);
// Read back; anything not of that shape is dropped (the English text still stands).
MessageText messages_from_json(const nlohmann::json& j);
// A result's `key` as a person reads it in `lang`: its `key_messages` rendered, else its
// English `key` string.
std::string rendered_text(const nlohmann::json& object, const std::string& key, std::string_view lang);

}  // namespace anthro
