// The live workload of the layer-zero checklist: sessions of one prompt each through the Layer
// Zero client, a few at a time, every connection traced as the client wrote and read it and the
// traces linked into sessions as a capture's are (layerzero/trace.h).
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "layerzero/workload.h"

#include "layerzero/format.h"
#include "layerzero/live.h"
#include "session/target.h"

namespace anthro {

namespace {

struct SessionRuns {
  std::mutex m;
  std::vector<lz::ConnectionTrace> traces;
  std::vector<MessageText> warnings;
  std::size_t done = 0;
  std::shared_ptr<KeyLogSink> keylog;  // one for every session's TLS connections
};

void run_sessions(const LiveWorkloadConfig& config, const Target& target, std::atomic<std::size_t>& next,
                  std::size_t sessions, SessionRuns& runs) {
  for (std::size_t i = next++; i < sessions; i = next++) {
    if (config.stop && config.stop->load()) return;
    lz::LzClientConfig c = layer_zero_client_config(lz::client_options(config), config.session, target);
    c.keylog = runs.keylog;
    c.prompt = workload_prompt(i);
    c.name = "lz-" + std::to_string(i + 1);
    auto result = lz::run_lz_prompt(c);
    std::lock_guard lock(runs.m);
    ++runs.done;
    if (!result) {
      runs.warnings.push_back({Message("lz.warning.session", {{"session", c.name}, {"error", result.error().detail}})});
      continue;
    }
    for (auto& t : result->trace) runs.traces.push_back(std::move(t));
    if (config.on_progress)
      config.on_progress({Message("lz.progress.sessions", {{"done", std::to_string(runs.done)}, {"total", std::to_string(sessions)}})});
  }
}

}  // namespace

Result<Observations> lz::run_layer_zero_workload(const LiveWorkloadConfig& config) {
  auto target = parse_own_target(config.session.target, lz::profile_id());
  if (!target) return target.error();
  const std::size_t sessions = std::max<std::uint64_t>(config.requests, 1);
  const std::size_t workers = std::clamp<std::size_t>(config.concurrency, 1, sessions);
  std::atomic<std::size_t> next{0};
  SessionRuns runs;
  if (!config.session.keylog_path.empty()) runs.keylog = std::make_shared<KeyLogSink>(config.session.keylog_path);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] { run_sessions(config, *target, next, sessions, runs); });
  for (auto& t : threads) t.join();

  Observations o;
  o.live = true;
  o.target = config.session.target;
  o.warnings = std::move(runs.warnings);
  if (runs.keylog)
    if (auto problem = runs.keylog->error()) o.warnings.push_back(plain_text(*problem));  // a key log not written stops nothing
  lz::set_trace(o.records, lz::link_sessions(std::move(runs.traces)));
  for (const auto& c : lz::trace_of(o.records).connections) {
    ObservedConnection seen;
    seen.name = c.name;
    seen.alpn = target->tls ? "layer-zero" : "";
    seen.opened = c.opened;
    seen.closed = c.closed;
    o.connections.push_back(std::move(seen));
  }
  return o;
}

lz::LzClientConfig& lz::client_options(LiveWorkloadConfig& config) {
  std::any& options = config.own_options[lz::profile_id()];
  if (!std::any_cast<LzClientConfig>(&options)) options = default_client_config();
  return *std::any_cast<LzClientConfig>(&options);
}

lz::LzClientConfig lz::client_options(const LiveWorkloadConfig& config) {
  auto it = config.own_options.find(lz::profile_id());
  const auto* set = it == config.own_options.end() ? nullptr : std::any_cast<LzClientConfig>(&it->second);
  return set ? *set : default_client_config();
}

}  // namespace anthro
