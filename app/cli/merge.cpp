// `anthro-wb merge`: results of one workload from several workers merged into one (cli.md).
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/session_options.h"
#include "session/merge.h"
#include "util/files.h"

namespace anthro::cli {

int run_merge(const std::vector<std::string>& argv) {
  Args args("merge", argv);
  auto output = args.value("--output");
  if (args.positional().size() < 2) args.fail("give two or more result files (bench or session) to merge");
  else if (!output) args.fail("give --output FILE: where the merged result is written");
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (!args.ok()) return usage_error("merge", args.error());

  auto merged = merge_result_files(args.positional());
  if (!merged) return error_exit("merge", merged.error());
  const std::string text = merged->text();
  if (auto written = write_file_atomic(*output, text + "\n"); !written) {
    std::cerr << "anthro-wb merge: --output: " << written.error().detail << "\n";
    return 2;
  }
  if (format == "json") {
    std::cout << text << "\n";
  } else if (auto* bench = std::get_if<BenchResult>(&merged->result)) {
    std::printf("results of %zu workers merged into %s\n", bench->workers.size(), output->c_str());
    print_bench_summary(*bench);
  } else {
    const auto& session = std::get<SessionResult>(merged->result);
    std::printf("%zu session results merged into %s: %zu requests; the connection's fields are %s's\n",
                session.workers.size(), output->c_str(), session.requests.size(), session.workers.front().file.c_str());
  }
  const auto& warnings = std::visit([](const auto& r) -> const std::vector<std::string>& { return r.warnings; }, merged->result);
  print_warnings("merge", warnings);  // the workers' own, carried: they do not fail the merge
  return 0;
}

}  // namespace anthro::cli
