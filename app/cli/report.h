// `anthro-wb report` and the demo's reports. They are drawn by anthro-wb-report
// (app/report/main.cpp), the one command-line program that links Qt, which draws the charts;
// anthro-wb runs it, and every other command starts without Qt's 20 MB of libraries.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace anthro::cli {

inline constexpr const char* kReportProgram = "anthro-wb-report";
inline constexpr const char* kReportPathVariable = "ANTHRO_REPORT_HELPER";  // overrides where it is looked for

// anthro-wb's `report`: anthro-wb-report with the same arguments; its exit code.
int run_report(const std::vector<std::string>& argv);
// anthro-wb-report's: renders RESULT.json as the options say.
int render_report(const std::vector<std::string>& argv);

}  // namespace anthro::cli
