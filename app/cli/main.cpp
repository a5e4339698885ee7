// anthro-wb: the command-line face of the workbench (../shared/spec/cli.md).
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
  const char* summary;
};

const Command commands[] = {
    {"endpoint", anthro::cli::run_endpoint, "runs the local anthro-v1 endpoint until SIGINT/SIGTERM"},
    {"session", anthro::cli::run_session_command, "live requests against a target, tokens streamed to stdout"},
    {"bench", anthro::cli::run_bench_command, "load generation against a target, with a latency summary"},
    {"decode", anthro::cli::run_decode, "frames of a capture file (pcap or pcapng), with keys"},
    {"analyze", anthro::cli::run_analyze, "per-connection, per-stream timing and TCP health of a capture file"},
    {"capture", anthro::cli::run_capture, "live capture with libpcap into pcapng, keys embedded"},
    {"diagnose", anthro::cli::run_diagnose, "the latency-diagnosis checklist: a live target, a capture, this machine"},
    {"rollout", anthro::cli::run_rollout_command, "a grayscale-rollout rehearsal: a plan's stages, gates judged, rollback rehearsed"},
#ifdef ANTHRO_WITH_REPORT
    {"report", anthro::cli::run_report, "renders a saved result as HTML, PDF, Markdown or JSON, redacted"},
#endif
    {"demo", anthro::cli::run_demo, "a lab conversation sealed, captured as bytes and decoded"},
};

// Subcommands of cli.md that later work brings; named so users know they exist.
struct Planned {
  const char* name;
  const char* why;
};
const Planned planned[] = {
#ifndef ANTHRO_WITH_REPORT
    {"report", "this build has no Qt (ANTHRO_BUILD_GUI=OFF), which draws the report's charts"},
#endif
    {"hash", "not in this build yet"},
    {"lint-schema", "not in this build yet"}};

void usage(std::ostream& out) {
  out << "usage: anthro-wb <command> [options]\n\ncommands:\n";
  for (const auto& c : commands) out << "  " << c.name << "\t" << c.summary << "\n";
  out << "\nnot in this build yet:";
  for (const auto& p : planned) out << " " << p.name;
  out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : commands)
    if (argv[1] == std::string(c.name)) return c.run(args);
  for (const auto& p : planned)
    if (argv[1] == std::string(p.name)) {
      std::cerr << "anthro-wb: '" << p.name << "': " << p.why << "\n";
      return 2;
    }
  std::cerr << "anthro-wb: unknown command '" << argv[1] << "'\n";
  usage(std::cerr);
  return 2;
}
