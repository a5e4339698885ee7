// `anthro-wb decode` and `anthro-wb analyze`: frames, timing and TCP health of a capture file.
#include <atomic>
#include <csignal>
#include <iostream>

#include "capture/analysis.h"
#include "capture/live_capture.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "diagnosis/diagnosis.h"

namespace anthro::cli {
namespace {

struct CaptureArgs {
  std::string file;
  CaptureKeySources keys;
  std::string format;
  AnalyzeOptions options;
};

std::optional<CaptureArgs> read_capture_args(const std::string& command, const std::vector<std::string>& argv,
                                             const std::string& machine_format, std::string& error) {
  Args args(command, argv);
  CaptureArgs c;
  c.keys.keylog_files = args.values("--keylog");
  c.keys.server_key_files = args.values("--server-key");
  c.format = args.value_or("--format", "text");
  if (command == "analyze") c.options.threads = threads_option(args);
  if (c.format != "text" && c.format != machine_format)
    args.fail("--format \"" + c.format + "\": expected text or " + machine_format);
  if (args.positional().size() != 1) args.fail("expects exactly one capture file (pcap or pcapng)");
  else c.file = args.positional()[0];
  if (!args.ok()) {
    error = args.error();
    return std::nullopt;
  }
  return c;
}

}  // namespace

int run_decode(const std::vector<std::string>& argv) {
  std::string error;
  auto a = read_capture_args("decode", argv, "jsonl", error);
  if (!a) return usage_error("decode", error);
  DecodeSink sink = [](const std::string& line) { std::cout << line << "\n"; };
  auto result = analyze_capture(a->file, a->keys, sink);
  if (!result) return error_exit("decode", result.error());
  for (const auto& w : result->warnings) std::cerr << "anthro-wb decode: warning: " << w << "\n";
  return 0;
}

int run_analyze(const std::vector<std::string>& argv) {
  std::string error;
  auto a = read_capture_args("analyze", argv, "json", error);
  if (!a) return usage_error("analyze", error);
  auto result = analyze_capture(a->file, a->keys, {}, a->options);
  if (!result) return error_exit("analyze", result.error());
  const Checklist& checklist = builtin_latency_checklist();
  if (a->format == "json") {
    write_analyze_json(*result, checklist, std::cout);
    std::cout << "\n";
  } else {
    std::cout << analyze_text(*result, diagnose_analysis(*result, checklist), checklist);
  }
  return 0;
}

}  // namespace anthro::cli

namespace anthro::cli {
namespace {
std::atomic<bool> g_stop{false};
void request_stop(int) { g_stop = true; }
}  // namespace

int run_capture(const std::vector<std::string>& argv) {
  Args args("capture", argv);
  LiveCaptureConfig c;
  c.interface = args.value_or("--interface", "");
  c.filter = args.value_or("--filter", "");
  c.output = args.value_or("--output", "");
  c.keylog_path = args.value_or("--keylog", "");
  if (auto d = args.number("--duration", NumberRange::Positive)) c.duration_s = *d;
  if (c.interface.empty()) args.fail("--interface is required (e.g. lo)");
  if (c.output.empty()) args.fail("--output FILE.pcapng is required");
  if (!args.positional().empty()) args.fail("unexpected argument \"" + args.positional()[0] + "\"");
  if (!args.ok()) return usage_error("capture", args.error());
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  auto stats = run_live_capture(c, g_stop, [&] { std::cerr << "capturing on " << c.interface << std::endl; });
  if (!stats) return error_exit("capture", stats.error());
  std::cout << stats->packets << " packets written to " << c.output << ", kernel drops " << stats->kernel_drops
            << ", interface drops " << stats->interface_drops
            << (stats->secrets_embedded ? ", keys embedded" : "") << "\n";
  return 0;
}

}  // namespace anthro::cli
