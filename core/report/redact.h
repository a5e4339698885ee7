// Secrets never leave the workbench in a report: API keys, Authorization headers, key log
// secrets and private keys are found by parsing (field names; PEM blocks, key log lines and
// header lines inside strings) and replaced, and each replacement is logged by its JSON path.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace anthro {

// Redacts `doc` in place; with `prompts`, prompt and answer texts become "[N bytes, sha256 …]".
// Returns what was redacted, one entry per field ("/connections/0/streams/3/text: prompt text").
std::vector<std::string> redact_result(nlohmann::json& doc, bool prompts);

// One string's secrets replaced (PEM private keys, key log secrets, bearer tokens, header
// values); `what` collects the kinds found.
std::string redact_text(const std::string& text, std::vector<std::string>& what);

}  // namespace anthro
