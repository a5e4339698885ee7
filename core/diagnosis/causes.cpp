// Which flagged items another flagged item explains (issue 38: "say why a verdict is what it
// is"). A link is drawn only from the requests behind both items, never from the verdicts alone:
// a slow tail and a slow context wait in the same run are linked when the context wait is most
// of the tail's TTFT, not because both happen to warn.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/diagnosis.h"
#include "diagnosis/probe_kit.h"
#include "metrics/stats.h"

namespace anthro {
namespace {

using namespace probe_kit;

// The share of a request's TTFT the server says it spent waiting for a GPU context.
std::optional<double> context_wait_share(const RequestResult& r) {
  if (!r.server_timing || !r.figures.ttft_ms || *r.figures.ttft_ms <= 0) return std::nullopt;
  return std::min(1.0, r.server_timing->context_wait_us / 1000.0 / *r.figures.ttft_ms);
}

// ttft-tail ← gpu-context-wait: the context wait is most of the TTFT of the tail (p99 and up).
std::optional<Message> tail_is_context_wait(const Observations& o) {
  std::vector<double> ttft;
  for (const auto& q : o.requests)
    if (ordinary(q) && q.record().figures.ttft_ms) ttft.push_back(*q.record().figures.ttft_ms);
  if (ttft.empty()) return std::nullopt;
  double p99 = percentile(ttft, 99);
  std::vector<double> shares;
  for (const auto& q : o.requests)
    if (ordinary(q) && q.record().figures.ttft_ms && *q.record().figures.ttft_ms >= p99)
      if (auto share = context_wait_share(q.record())) shares.push_back(*share);
  if (shares.empty()) return std::nullopt;
  double median = percentile(shares, 50);
  if (median < 0.5) return std::nullopt;
  return Message("cause.tail_is_context_wait", {{"share", pct(median)}, {"requests", count(shares.size())}});
}

// cancel-latency ← ring-buffer-stall: the slow cancels were on streams whose receive ring was
// full, so the cancelled RESPONSE waited behind unread tokens.
std::optional<Message> cancels_waited_on_full_ring(const Observations& o, double slow_ms) {
  std::size_t slow = 0, behind = 0;
  for (const auto& q : o.requests) {
    const RequestResult& s = q.record();
    if (s.probe != "cancel-latency" || !s.timeline.cancel_written || !s.timeline.end) continue;
    double ms = s.figures.cancel_latency_ms.value_or((*s.timeline.end - *s.timeline.cancel_written) * 1000);
    if (ms <= slow_ms) continue;
    ++slow;
    if (ring_full(o, q)) ++behind;
  }
  if (behind == 0 || behind * 2 < slow) return std::nullopt;
  return Message("cause.cancels_behind_full_ring", {{"behind", count(behind)}, {"slow", count(slow)}});
}

bool flagged(const ItemResult* r) { return r && (r->verdict == Verdict::Warn || r->verdict == Verdict::Fail); }

void link(Diagnosis& d, const char* effect, const char* cause, const std::optional<Message>& why) {
  auto found = std::find_if(d.items.begin(), d.items.end(), [&](const ItemResult& r) { return r.id == effect; });
  if (found == d.items.end() || !flagged(&*found) || !flagged(d.item(cause)) || !why) return;
  found->caused_by = CauseLink{cause, render(*why), {*why}};
}

}  // namespace

void link_causes(Diagnosis& d, const Checklist& checklist, const Observations& o) {
  if (flagged(d.item("ttft-tail")) && flagged(d.item("gpu-context-wait")))
    link(d, "ttft-tail", "gpu-context-wait", tail_is_context_wait(o));
  const ChecklistItem* cancel = checklist.item("cancel-latency");
  const Threshold* slow = cancel ? cancel->threshold("p95") : nullptr;
  if (slow && flagged(d.item("cancel-latency")) && flagged(d.item("ring-buffer-stall")))
    link(d, "cancel-latency", "ring-buffer-stall", cancels_waited_on_full_ring(o, slow->value));
}

}  // namespace anthro
