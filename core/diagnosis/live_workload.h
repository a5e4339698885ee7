// The standard live workload of checklists.md: streaming requests over a few reused
// connections with varied prompts (4-byte UTF-8 included), plus probe streams marked with
// REQUEST metadata {"anthro_probe": ID}: cancel probes, a max_tokens probe and the utf8 pair
// (the same prompt over the HTTP baseline and anthro-v1). Client faults come from the options.
#pragma once

#include <any>
#include <map>

#include <atomic>
#include <functional>

#include "diagnosis/checklist.h"
#include "diagnosis/observations.h"
#include "session/bench.h"
#include "session/session.h"

namespace anthro {

struct LiveWorkloadConfig {
  SessionConfig session;  // target, trust, API key, client faults (close_without_cancel, read delay, ring)
  std::string baseline;   // HTTP baseline for the utf8 pair; empty: the target's own (https://host:port/v1/messages)
  std::uint64_t requests = 200;  // ordinary requests, probes not counted
  unsigned concurrency = 4;      // one connection each, reused
  double cancel_rate = 0;        // fraction of ordinary requests that send CANCEL after 5 tokens
  bool retry_naive = false;      // retry a 429 at once
  double hold_connections_s = 0;
  unsigned cancel_probes = 5;
  bool max_tokens_probe = true;
  bool utf8_pair = true;
  std::uint64_t seed = 1;
  // A format's own workload instead of the standard one (register_live_workload): fit_workload
  // sets it for a checklist with that format's probes. `own_options` holds a format's client
  // settings (its session terms and client faults, say), its defaults when absent.
  std::optional<ProfileId> own_workload;
  std::map<ProfileId, std::any> own_options;
  std::function<void(const MessageText& line)> on_progress;  // about once a second, in any language
  // Each ordinary or probe request as it ends: `done` of the plan's `total` (the standard
  // workload's; a format's own may not call it).
  std::function<void(std::uint64_t done, std::uint64_t total)> on_requests;
  const std::atomic<bool>* stop = nullptr;  // set: no further request starts
};

// The probe ids the workload marks its probe streams with.
inline constexpr const char* kProbeCancel = "cancel-latency";
inline constexpr const char* kProbeMaxTokens = "max-tokens-truncation";
inline constexpr const char* kProbeUtf8 = "utf8-mismatch";
inline constexpr std::uint32_t kMaxTokensProbe = 65538;  // > 65535: a 16-bit server keeps 2
// A cancel probe asks for a reply this long, so that one can still be running when a slow cancel
// would show (checklists.md cancel-latency: up to its 1 s limit at any usual token rate).
inline constexpr std::uint32_t kCancelProbeTokens = 4096;

// Fits the workload to a checklist: only the probe streams its items use, and the client of the
// format whose probes its items name (probe_kit::probe_owner). run_diagnosis calls it.
void fit_workload(const Checklist& checklist, LiveWorkloadConfig& live);

// Errors: a bad target or trust setting (usage); network failures are in the observations.
Result<Observations> run_live_workload(const LiveWorkloadConfig& config);
// A format's own live workload (config.own_workload), registered from its folder.
using LiveWorkload = Result<Observations> (*)(const LiveWorkloadConfig& config);
void register_live_workload(ProfileId id, LiveWorkload run);

// The pieces of the workload that a rollout stage reuses.
// The ordinary prompts, cycled by request number.
const std::string& workload_prompt(std::uint64_t index);
std::vector<ChatMessage> user_message(const std::string& text);
// The probe request feeding checklist item `id`, for the items that have one.
std::optional<RequestOptions> probe_for_item(std::string_view id);
// A bench's connections ("live#N") and requests as observations of `target`.
Observations observe_bench(BenchResult bench, const std::string& target);
// Sends the utf8 probe's prompt over `baseline_url` and pairs its answer with the probe's
// anthro-v1 answer already in `o` (a warning in `o` when it cannot).
void pair_utf8_probe(const SessionConfig& session, const std::string& baseline_url, Observations& o);

}  // namespace anthro
