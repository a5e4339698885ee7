// anthro-wb hash: session affinity's Context-Hash of a messages file, canonical and Python's
// default.
#include <iostream>

#include "affinity/context_hash.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

void print_text(const ContextHashReport& r, const std::optional<std::string>& reply) {
  std::cout << r.messages << " messages, the last " << r.hashed << " hashed\n"
            << "canonical (JavaScript JSON.stringify)  " << (r.canonical_hash.empty() ? "(empty)" : r.canonical_hash) << "\n"
            << "python default (json.dumps)            " << (r.python_hash.empty() ? "(empty)" : r.python_hash)
            << (r.agree() ? "  same\n" : "  DIFFERS\n");
  for (const auto& d : r.differences) std::cout << "  " << d.where << ": " << d.what << "\n";
  if (reply) std::cout << "response hash with the reply appended   " << response_context_hash(r, *reply) << "\n";
  std::cout << "canonical JSON: " << r.canonical << "\n";
}

}  // namespace

int run_hash(const std::vector<std::string>& argv) {
  Args args("hash", argv);
  if (args.positional().size() != 1) args.fail("expects one messages file (MESSAGES.json)");
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (!args.ok()) return usage_error("hash", args.error());

  const std::string path = args.positional()[0];
  auto text = read_file(path, file_limit::kMessages);
  if (!text) return error_exit("hash", text.error());
  auto report = context_hash_report(*text);
  if (!report) return error_exit("hash", make_error(ErrorClass::Input, path + ": " + report.error().detail));
  auto reply = args.value("--reply");
  if (format == "json") std::cout << context_hash_json(*report, path, reply) << "\n";
  else print_text(*report, reply);
  return 0;
}

}  // namespace anthro::cli
