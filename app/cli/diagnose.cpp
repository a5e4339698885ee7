// `anthro-wb diagnose`: the latency checklist against a live target, a capture and this machine.
#include <sys/stat.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/metrics_out.h"
#include "cli/session_options.h"
#include "diagnosis/diagnose.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

// Options that only the live run reads; without a target they would be silently ignored.
const std::vector<std::string> kLiveOnly = {"--requests", "--concurrency", "--baseline", "--cancel-rate",
                                            "--hold-connections", "--seed", "--retry-naive",
                                            "--close-without-cancel", "--read-delay-ms", "--ring-kib"};

void read_live(Args& args, DiagnoseConfig& d) {
  LiveWorkloadConfig live;
  read_session_options(args, live.session, true);
  if (auto n = args.count("--requests", 1, 10000000)) live.requests = *n;
  if (auto n = args.count("--concurrency", 1, 10000)) live.concurrency = static_cast<unsigned>(*n);
  live.baseline = args.value_or("--baseline", "");
  LoadOptions load = read_load_options(args);
  live.cancel_rate = load.cancel_rate;
  live.retry_naive = load.retry_naive;
  live.hold_connections_s = load.hold_connections_s;
  live.seed = load.seed;
  read_own_client_options(args, live);
  d.live = std::move(live);
}

void read_checklist(Args& args, DiagnoseConfig& d) {
  if (auto file = args.value("--checklist")) {
    if (const Checklist* builtin = builtin_checklist(*file)) {
      d.checklist = *builtin;
    } else {
      auto loaded = load_checklist(*file);
      if (!loaded) return args.fail(loaded.error().detail);
      d.checklist = std::move(*loaded);
    }
  }
  for (const auto& spec : args.values("--threshold"))
    if (auto ok = apply_threshold(d.checklist, spec); !ok) args.fail("--threshold " + ok.error().detail);
}

}  // namespace

int run_diagnose(const std::vector<std::string>& argv) {
  Args args("diagnose", argv);
  DiagnoseConfig d;
  if (args.has("--target")) read_live(args, d);
  else
    for (const auto* names : {&kLiveOnly, &own_client_option_names()})
      for (const auto& name : *names)
        if (args.has(name)) args.fail(name + " shapes the live run: it needs --target URL");
  if (args.positional().size() > 1) args.fail("expects at most one capture file");
  if (args.positional().size() == 1) d.capture = args.positional()[0];
  d.keys.keylog_files = args.values("--keylog");
  d.keys.server_key_files = args.values("--server-key");
  d.threads = threads_option(args);
  const auto tools = args.values("--tool-schema"), handlers = args.values("--handler-schema");
  if (tools.size() != handlers.size()) args.fail("--tool-schema and --handler-schema come in pairs");
  for (std::size_t i = 0; i < std::min(tools.size(), handlers.size()); ++i) d.tool_schemas.emplace_back(tools[i], handlers[i]);
  if (args.has("--system") || args.has("--sysfs-root") || args.has("--procfs-root")) {
    SystemProbeConfig s;
    s.sysfs_root = args.value_or("--sysfs-root", s.sysfs_root);
    s.procfs_root = args.value_or("--procfs-root", s.procfs_root);
    // A missing tree would read as a machine with nothing to report.
    for (const auto& [option, root] : {std::pair{"--sysfs-root", s.sysfs_root}, std::pair{"--procfs-root", s.procfs_root}})
      if (struct stat st {}; ::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        args.fail(std::string(option) + " " + root + ": not a directory");
    s.run_chronyc = !args.has("--sysfs-root");  // a fake tree is not this machine's clock
    d.system = s;
  }
  read_checklist(args, d);
  MetricsOut metrics = read_metrics_out(args);
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  std::string fail_on = args.value_or("--fail-on", "fail");
  if (fail_on != "fail" && fail_on != "warn") args.fail("--fail-on \"" + fail_on + "\": expected fail or warn");
  std::string lang = args.value_or("--lang", "en");
  if (lang != "en" && lang != "zh_CN") args.fail("--lang \"" + lang + "\": expected en or zh_CN");
  if (!d.live && !d.capture && !d.system) args.fail("give a --target URL, a capture file, or --system");
  if (!args.ok()) return usage_error("diagnose", args.error());

  if (!args.has("--quiet"))
    d.on_progress = [lang](const MessageText& stage) { std::cerr << "diagnose: " << render(stage, lang) << "\n"; };
  auto result = run_diagnosis(d);
  if (!result) return error_exit("diagnose", result.error());
  std::string json = diagnosis_json(*result, lang, &d.checklist);
  if (auto path = args.value("--output")) {
    if (auto ok = write_file_atomic(*path, json + "\n"); !ok) return error_exit("diagnose", ok.error());
  }
  if (format == "json") std::cout << json << "\n";
  else std::cout << diagnosis_text(*result, d.checklist, lang);
  // What was diagnosed: the live target, else the capture, else this machine.
  const std::string subject = d.live ? d.live->session.target : d.capture ? *d.capture : std::string("system");
  bool sent = !metrics.wanted() ||
              send_metrics(metrics, "diagnose", {{"target", subject}}, diagnosis_prometheus(*result, {{"target", subject}}));
  Verdict worst = result->worst();
  bool failed = worst == Verdict::Fail || (fail_on == "warn" && worst == Verdict::Warn);
  return failed ? 1 : sent ? 0 : 2;
}

}  // namespace anthro::cli
