// anthro-wb's side of `report`: finding and running anthro-wb-report (cli/report.h).
#include <iostream>

#include "cli/args.h"
#include "cli/report.h"
#include "util/private_program.h"

namespace anthro::cli {

int run_report(const std::vector<std::string>& argv) {
  auto program = find_private_program(kReportProgram, kReportPathVariable, "report renderer", "report-helper");
  if (!program) return error_exit("report", program.error());
  auto code = run_program(*program, argv, "report-helper");
  if (!code) return error_exit("report", code.error());
  return *code;
}

}  // namespace anthro::cli
