// Reports written by the CLI (the `report` command and the headless demo): only in builds with
// Qt, which draws the charts (ANTHRO_WITH_REPORT).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace anthro::cli {

// Renders `result_json` once per (format, path) of `outputs`, offscreen; gives the number of
// fields redacted.
Result<std::size_t> write_report_files(const std::string& result_json, const std::string& origin, const std::string& lang,
                                       bool redact_prompts, const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace anthro::cli
