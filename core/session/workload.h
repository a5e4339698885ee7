// What each request of a run asks and how the client treats its answer, saved in session and
// bench results as `workload`: `merge` pools only results whose workloads are equal (cli.md).
// How many requests and how fast are each worker's own, so they are not part of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "metrics/slo.h"
#include "util/result.h"

namespace anthro {

struct SessionConfig;

struct Workload {
  std::string model;
  std::string prompt_sha256;  // of the system prompt, the messages, the metadata and bench's prompt list
  std::optional<std::uint32_t> max_tokens;
  bool stream = true;
  std::optional<std::uint32_t> cancel_after_tokens;
  bool close_without_cancel = false;
  double read_delay_ms = 0;
  double cancel_rate = 0;    // bench
  bool retry_naive = false;  // bench
  Slo slo;                   // bench: what goodput counts
};

// The session's part of the workload; bench sets its own members after.
Workload workload_of(const SessionConfig& config, const std::vector<std::string>& prompts = {});

nlohmann::json workload_json(const Workload& w);
// Errors (ErrorClass::Input) name the member: "workload.max_tokens: expected a whole number or null".
Result<Workload> workload_from_json(const nlohmann::json& j);
// The first member in which two workloads differ, as "max_tokens 64 vs 128"; nullopt when equal.
std::optional<std::string> workload_difference(const Workload& a, const Workload& b);

}  // namespace anthro
