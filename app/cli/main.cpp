// anthro-wb: the command-line face of the workbench (../shared/spec/cli.md).
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_table.h"
#include "cli/commands.h"

namespace {

// Which function runs each command of the command table (its options, summary and help live
// there).
struct Dispatch {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

const Dispatch commands[] = {
    {"endpoint", anthro::cli::run_endpoint},
    {"session", anthro::cli::run_session_command},
    {"bench", anthro::cli::run_bench_command},
    {"decode", anthro::cli::run_decode},
    {"analyze", anthro::cli::run_analyze},
    {"capture", anthro::cli::run_capture},
    {"diagnose", anthro::cli::run_diagnose},
    {"rollout", anthro::cli::run_rollout_command},
    {"compare", anthro::cli::run_compare},
#ifdef ANTHRO_WITH_REPORT
    {"report", anthro::cli::run_report},
#endif
    {"hash", anthro::cli::run_hash},
    {"lint-schema", anthro::cli::run_lint_schema},
    {"merge", anthro::cli::run_merge},
    {"demo", anthro::cli::run_demo},
};

// Subcommands of cli.md this build lacks; named so users know they exist.
struct Planned {
  const char* name;
  const char* why;
};
const std::vector<Planned> planned = {
#ifndef ANTHRO_WITH_REPORT
    {"report", "this build has no Qt (ANTHRO_BUILD_GUI=OFF), which draws the report's charts"},
#endif
};

void usage(std::ostream& out) {
  out << "Usage: anthro-wb <command> [options]\n\ncommands:\n";
  // Two spaces at least between a name and its summary, as help2man reads a list (anthro-wb(1)).
  std::size_t width = 0;
  for (const auto& c : commands) width = std::max(width, std::strlen(c.name) + 2);
  for (const auto& c : commands) {
    std::string name = c.name;
    out << "  " << name << std::string(width - name.size(), ' ') << anthro::cli::command_spec(name).summary << "\n";
  }
  out << "\n'anthro-wb <command> --help' lists the command's options.\n";
  if (planned.empty()) return;
  out << "not in this build:";
  for (const auto& p : planned) out << " " << p.name;
  out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Hidden: what bash completion offers (installer/anthro-wb.bash-completion asks for it).
  if (argc >= 2 && !std::strcmp(argv[1], "--complete")) {
    std::vector<std::string> names;
    for (const auto& c : commands) names.emplace_back(c.name);
    for (const auto& word : anthro::cli::complete(std::vector<std::string>(argv + 2, argv + argc), names))
      std::cout << word << "\n";
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : commands)
    if (argv[1] == std::string(c.name)) {
      const auto& spec = anthro::cli::command_spec(c.name);
      if (anthro::cli::asks_for_help(args, spec.options)) {
        std::cout << anthro::cli::command_help(spec);
        return 0;
      }
      // The last resort: every bad input should be refused where it is read, with where it
      // is wrong; whatever still throws ends as cli.md's one line and exit 2, not std::terminate.
      try {
        return c.run(args);
      } catch (const std::exception& e) {
        std::cerr << "anthro-wb " << c.name << ": internal error: " << e.what() << "\n";
        return 2;
      }
    }
  for (const auto& p : planned)
    if (argv[1] == std::string(p.name)) {
      std::cerr << "anthro-wb: '" << p.name << "': " << p.why << "\n";
      return 2;
    }
  std::cerr << "anthro-wb: unknown command '" << argv[1] << "'\n";
  usage(std::cerr);
  return 2;
}
