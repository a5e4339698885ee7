// One function per anthro-wb subcommand; each returns the process exit code of cli.md.
#pragma once

#include <string>
#include <vector>

namespace anthro::cli {

int run_demo(const std::vector<std::string>& args);

}  // namespace anthro::cli
