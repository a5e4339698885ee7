// cli.md `diagnose`: the checklist walked against any mix of a live run, a capture and this
// machine. The CLI, the GUI's Diagnosis page and the tests all call run_diagnosis.
#pragma once

#include <atomic>
#include <functional>
#include <optional>

#include "diagnosis/diagnosis.h"
#include "diagnosis/live_workload.h"
#include "diagnosis/system_probes.h"

namespace anthro {

struct DiagnoseConfig {
  Checklist checklist = builtin_latency_checklist();
  std::optional<LiveWorkloadConfig> live;
  std::optional<std::string> capture;
  CaptureKeySources keys;
  unsigned threads = 0;  // reading the capture (AnalyzeOptions::threads)
  std::optional<SystemProbeConfig> system;
  // lz-tool-schema's pairs of files: a tool's input_schema and its handler's schema.
  std::vector<std::pair<std::string, std::string>> tool_schemas;
  std::function<void(const MessageText& stage)> on_progress;  // "live: 120/207 requests", ... in any language
  std::function<void(std::uint64_t done, std::uint64_t total)> on_requests;  // the live workload's (LiveWorkloadConfig)
  const std::atomic<bool>* stop = nullptr;                    // set: stops as soon as it can
};

// Errors: no source given, a bad target (usage), a target that cannot be reached (network,
// reason "unreachable": the address and the OS's reason; reach_target), an unreadable capture
// or key file (input), cancelled (reason "cancelled").
Result<Diagnosis> run_diagnosis(const DiagnoseConfig& config);

}  // namespace anthro
