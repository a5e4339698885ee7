// `anthro-wb compare BASE CANDIDATE`: two results or captures judged against each other (cli.md);
// exit 0 no figure worse, 1 one is, 4 inconclusive (with what more is needed), 2 bad input.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "rollout/compare.h"
#include "util/files.h"

namespace anthro::cli {

int run_compare(const std::vector<std::string>& argv) {
  Args args("compare", argv);
  CaptureKeySources keys;
  keys.keylog_files = args.values("--keylog");
  keys.server_key_files = args.values("--server-key");
  CompareOptions options;
  if (auto m = args.number("--margin", NumberRange::NonNegative)) options.margin = options.rate_margin = *m;
  if (auto m = args.number("--rate-margin", NumberRange::NonNegative)) options.rate_margin = *m;
  if (options.margin >= 1 || options.rate_margin >= 1) args.fail("--margin and --rate-margin are fractions below 1 (0.05 = 5 %)");
  if (auto n = args.count("--seed")) options.seed = *n;
  const unsigned threads = threads_option(args);
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (args.positional().size() != 2) args.fail("expects two inputs, BASE and CANDIDATE (results or captures)");
  if (!args.ok()) return usage_error("compare", args.error());

  auto base = load_compare_input(args.positional()[0], keys, threads);
  if (!base) return error_exit("compare", base.error());
  auto candidate = load_compare_input(args.positional()[1], keys, threads);
  if (!candidate) return error_exit("compare", candidate.error());
  Comparison c = compare_results(*base, *candidate, options);
  if (auto path = args.value("--output"))
    if (auto ok = write_file_atomic(*path, comparison_json(c) + "\n"); !ok) return error_exit("compare", ok.error());
  if (format == "json") std::cout << comparison_json(c) << "\n";
  else std::cout << comparison_text(c);
  if (c.verdict == CompareVerdict::Inconclusive) std::cerr << "anthro-wb compare: inconclusive: need " << c.need << "\n";
  return comparison_exit_code(c);
}

}  // namespace anthro::cli
