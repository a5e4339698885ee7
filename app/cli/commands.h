// One function per anthro-wb subcommand; each returns the process exit code of cli.md.
#pragma once

#include <string>
#include <vector>

namespace anthro {
struct BenchResult;
}

namespace anthro::cli {

int run_demo(const std::vector<std::string>& args);
int run_endpoint(const std::vector<std::string>& args);
int run_session_command(const std::vector<std::string>& args);
int run_bench_command(const std::vector<std::string>& args);
int run_decode(const std::vector<std::string>& args);
int run_analyze(const std::vector<std::string>& args);
int run_capture(const std::vector<std::string>& args);
int run_diagnose(const std::vector<std::string>& args);
int run_rollout_command(const std::vector<std::string>& args);
int run_compare(const std::vector<std::string>& args);
int run_hash(const std::vector<std::string>& args);
int run_lint_schema(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);  // only in builds with Qt (ANTHRO_WITH_REPORT)
int run_merge(const std::vector<std::string>& args);

// bench's summary table, which merge prints for a merged bench too.
void print_bench_summary(const BenchResult& result);

}  // namespace anthro::cli
