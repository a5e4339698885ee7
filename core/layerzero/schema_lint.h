// The layerzero-schema-linter of the Layer Zero spec §5.3 (profiles/layer-zero.md,
// `lz-tool-schema`): a tool's input_schema as the model side holds it and the client handler's own
// schema, walked side by side, every constraint on which they disagree named with where it sits. A
// call the model side refuses never reaches the handler, so the two must agree exactly: the
// comparison is literal (an absent keyword is not its default, `title` and `description` count)
// except where JSON Schema itself gives spelling no meaning: `type`, `enum` and `required` compare
// as sets, numbers by value (3 == 3.0), an absent `properties` or `required` as an empty one.
//
// `$ref` is never followed. Its text is compared as any keyword's; when both sides hold the same
// reference into their own document ("#/definitions/x", "#/$defs/x", "#"), its target is compared
// where it sits (`definitions`, `$defs` and `properties` are walked too, any other keyword compared
// by value), so nothing more is said.
// Any other reference (another file, a URL) is a difference of kind NotFollowed even when both
// sides agree: the linter cannot vouch for what it did not read.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "util/json.h"
#include "util/result.h"

namespace anthro {

// Deeper documents are refused before anything recursive touches them: the reader's limit.
inline constexpr std::size_t kMaxSchemaDepth = kMaxJsonDepth;

enum class SchemaDiffKind {
  MissingOnA,   // B has it, A does not
  MissingOnB,   // A has it, B does not
  Differs,      // both have it, with different values
  NotFollowed,  // the same `$ref` outside the document on both sides: not compared
};
// "missing_on_a", "missing_on_b", "differs", "not_followed"
const char* to_string(SchemaDiffKind kind);

struct SchemaDifference {
  // JSON pointer of the schema the keyword belongs to: "" the root, "/properties/symbol".
  std::string path;
  // "minLength", "enum", …; "required" is this field's membership of its parent's list (true or
  // false on each side); "" is the schema at `path` as a whole (a property or an item on one
  // side only, a boolean schema against another schema).
  std::string keyword;
  std::optional<nlohmann::json> a, b;  // each side's value, nullopt where that side lacks it
  SchemaDiffKind kind = SchemaDiffKind::Differs;
  std::vector<nlohmann::json> only_a, only_b;  // `type`, `enum`: the members one side alone has
};

// Every difference between schemas `a` and `b` (their file names `a_name`, `b_name` only name
// them in errors), sorted by path, then keyword. Errors (ErrorClass::Input, reason "schema") name
// the file and the JSON pointer: nesting deeper than kMaxSchemaDepth, a root that is not an
// object, a subschema (a member of `properties`, `definitions`, …, an element of `anyOf`, …)
// that is neither an object nor a boolean; or, naming both files, more differences than can be
// listed (their paths past 64 MiB: long names over many fields, hostile).
Result<std::vector<SchemaDifference>> lint_schemas(const nlohmann::json& a, const std::string& a_name,
                                                   const nlohmann::json& b, const std::string& b_name);

// `anthro-wb lint-schema`: the two files on lines "A: …" and "B: …", a table (field, keyword,
// A, B, verdict; long values cut) and a last line "N differences" ("0 differences: the schemas
// agree").
std::string schema_lint_text(const std::vector<SchemaDifference>& diffs, const std::string& a_name,
                             const std::string& b_name);
// `--format json`: {"kind": "schema_lint", "a", "b", "agree", "count", "differences": [{"path",
// "keyword", "kind", "a", "b" (each absent where that side lacks it), "only_a", "only_b" (set
// keywords)}]}.
std::string schema_lint_json(const std::vector<SchemaDifference>& diffs, const std::string& a_name,
                             const std::string& b_name);

}  // namespace anthro
