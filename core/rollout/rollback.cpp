// The stage-5 rollback rehearsal: load on the candidate, then every candidate session switched
// back to the baseline while the load goes on; the time it takes and what it leaves behind.
#include <chrono>
#include <thread>

#include "diagnosis/live_workload.h"
#include "rollout/rollout.h"
#include "session/bench.h"
#include "session/target.h"
#include "util/process_fds.h"

namespace anthro {
namespace {

using Clock = std::chrono::steady_clock;

BenchConfig endless_load(const SessionConfig& session, const std::string& target, unsigned connections,
                         const std::atomic<bool>* stop) {
  BenchConfig b;
  b.session = session;
  b.session.target = target;
  b.session.stream = true;
  b.concurrency = std::max(connections, 1u);
  b.requests = UINT64_MAX;
  b.stop = stop;
  b.plan = [](std::uint64_t index) {
    RequestOptions o;
    o.messages = user_message(workload_prompt(index));
    return o;
  };
  return b;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

RollbackRehearsal rehearse_rollback(const SessionConfig& session, const std::string& baseline,
                                    const std::string& candidate, unsigned connections, double load_s) {
  RollbackRehearsal r;
  auto target = parse_target(candidate);
  r.fds_before = open_fd_count();
  std::atomic<bool> stop_candidate{false}, stop_baseline{false};
  Result<BenchResult> on_candidate = make_error(ErrorClass::Network, "not run"), on_baseline = on_candidate;
  std::thread candidate_load([&] { on_candidate = run_bench(endless_load(session, candidate, connections, &stop_candidate)); });
  sleep_s(load_s);
  std::set<std::uint64_t> sessions = target ? sockets_to_port(target->port) : std::set<std::uint64_t>{};
  r.sessions = static_cast<unsigned>(sessions.size());

  // The switch: no new request goes to the candidate, the load moves to the baseline, and the
  // candidate's sessions drain (requests in flight finish) and close.
  auto switched = Clock::now();
  stop_candidate = true;
  std::thread baseline_load([&] { on_baseline = run_bench(endless_load(session, baseline, connections, &stop_baseline)); });
  candidate_load.join();
  r.seconds = std::chrono::duration<double>(Clock::now() - switched).count();
  r.candidate_sockets_after = static_cast<int>(still_open(sessions));
  sleep_s(std::max(0.5, load_s / 2));  // the baseline carries the load on its own for a while
  stop_baseline = true;
  baseline_load.join();
  if (on_baseline) {
    r.requests_after = on_baseline->records.size();
    for (const auto& rec : on_baseline->records) r.failed_after += rec.result.end != RequestEnd::Response;
  }
  r.fds_after = settled_fd_count(r.fds_before);
  return r;
}

}  // namespace anthro
