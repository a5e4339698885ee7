// anthro-wb lint-schema: Layer Zero's tool-schema linter, every constraint two JSON Schemas
// disagree on.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "layerzero/schema_lint.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro::cli {
namespace {

Result<nlohmann::json> read_schema(const std::string& path) {
  auto text = read_file(path, file_limit::kSchema);
  if (!text) return text.error();
  auto doc = parse_json(*text);
  if (!doc) return make_error(ErrorClass::Input, path + ": " + doc.error().detail);
  return doc;
}

}  // namespace

int run_lint_schema(const std::vector<std::string>& argv) {
  Args args("lint-schema", argv);
  if (args.positional().size() != 2) args.fail("expects two schema files (A.json B.json)");
  std::string format = args.value_or("--format", args.has("--json") ? "json" : "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (args.has("--json") && format != "json") args.fail("--json and --format " + format + " disagree");
  if (!args.ok()) return usage_error("lint-schema", args.error());

  const std::string a_name = args.positional()[0], b_name = args.positional()[1];
  auto a = read_schema(a_name);
  if (!a) return error_exit("lint-schema", a.error());
  auto b = read_schema(b_name);
  if (!b) return error_exit("lint-schema", b.error());
  auto diffs = lint_schemas(*a, a_name, *b, b_name);
  if (!diffs) return error_exit("lint-schema", diffs.error());
  if (format == "json") std::cout << schema_lint_json(*diffs, a_name, b_name) << "\n";
  else std::cout << schema_lint_text(*diffs, a_name, b_name);
  return diffs->empty() ? 0 : 1;  // cli.md: 1, the work ran and the check failed
}

}  // namespace anthro::cli
