// The probes of the session-affinity checklist (session affinity spec §5.1–5.2,
// profiles/session-affinity.md): each reads the Messages API exchanges that carried
// X-Anthropic-* fields, live or captured, in the one shape of AffinityExchange.
#include <map>
#include <algorithm>

#include "affinity/exchange.h"
#include "affinity/format.h"
#include "diagnosis/probe_kit.h"
#include "metrics/stats.h"

// A named namespace, not an anonymous one: the folder is one unity TU.
namespace anthro::affinity_probes {

using namespace probe_kit;

// The requests of the checklist: those that spoke session affinity, with their index.
std::vector<std::size_t> affinity_requests(const Observations& o) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const auto* a = o.requests[i].record().extensions.find<AffinityExchange>(session_affinity_id());
    if (a && a->carried_affinity()) out.push_back(i);
  }
  return out;
}

const AffinityExchange& affinity_of(const Observations& o, std::size_t i) {
  return *o.requests[i].record().extensions.find<AffinityExchange>(session_affinity_id());
}

// A request sent again under a session id that a 409 had already replaced: the client kept
// the old id, and every resend is answered 409 again.
void loop_409(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  auto requests = affinity_requests(o);
  std::map<std::string, double> migrated;  // session id → when the first request answered 409 was written
  for (std::size_t i : requests) {
    const auto& x = affinity_of(o, i);
    if (o.requests[i].record().error_code == 409 && x.session_id_sent) {
      double t = o.requests[i].record().timeline.request_written;
      auto [it, fresh] = migrated.emplace(*x.session_id_sent, t);
      if (!fresh && t < it->second) it->second = t;
    }
  }
  std::size_t loops = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : requests) {
    const auto& x = affinity_of(o, i);
    auto it = x.session_id_sent ? migrated.find(*x.session_id_sent) : migrated.end();
    if (it == migrated.end() || o.requests[i].record().timeline.request_written <= it->second) continue;
    ++loops;
    refs.push_back(ref_of(o, i));
  }
  if (!j.enough(requests.size())) return;
  j.show("requests under a migrated id", static_cast<double>(loops), "requests");
  j.check("loop_requests", static_cast<double>(loops),
          "requests sent again under a session id a 409 had replaced (X-Anthropic-New-Session-ID ignored):");
  keep_refs(r, refs);
  j.finish(std::to_string(migrated.size()) + " sessions migrated (409); every client switched to the new id");
}

void hash_mismatch(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, refused = 0, disagree = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : affinity_requests(o)) {
    const auto& x = affinity_of(o, i);
    if (!answered(o, i)) continue;
    ++n;
    bool bad_request = o.requests[i].record().error_code == 400 && x.error_type == "invalid_context_hash";
    bool bad_reply = x.context_hash_agrees == false;
    refused += bad_request;
    disagree += bad_reply;
    if (bad_request || bad_reply) refs.push_back(ref_of(o, i));
  }
  if (!j.enough(n)) return;
  double rate = static_cast<double>(refs.size()) / static_cast<double>(n);
  j.show("hash mismatch rate", rate, "");
  j.check("rate", rate,
          std::to_string(refused) + " requests answered 400 invalid_context_hash and " + std::to_string(disagree) +
              " replies whose Context-Hash is not the conversation's, in " + std::to_string(n) + ": rate");
  keep_refs(r, refs);
  j.finish("client and server agree on every Context-Hash (" + std::to_string(n) + " exchanges)");
}

// TTFT of the requests that opened a session (a slot taken, perhaps by a collection) against
// those that continued one.
void slot_gc_ttft(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> opening, continuing;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : affinity_requests(o)) {
    const auto& ttft = o.requests[i].record().figures.ttft_ms;
    if (!answered_ok(o, i) || !ttft) continue;
    if (affinity_of(o, i).session_id_sent) continuing.push_back(*ttft);
    else {
      opening.push_back(*ttft);
      refs.push_back(ref_of(o, i, *ttft));
    }
  }
  // Both groups need the minimum: a median of a handful says nothing.
  std::size_t n = std::min(opening.size(), continuing.size());
  if (!j.enough(n)) return;
  double excess = percentile(opening, 50) - percentile(continuing, 50);
  j.show("TTFT of a session's first request above the others (median)", excess, "ms");
  j.check("excess_ms", excess,
          "a new session's first token waits for its context slot (median of " + std::to_string(opening.size()) +
              " against " + std::to_string(continuing.size()) + "):");
  keep_refs(r, refs);
  j.finish("a new session costs " + number(excess) + " ms of TTFT (the slot's cold load)");
}

// A 200 to a request that spoke affinity, without the session id the server must answer with,
// or with another id than the one sent: something between dropped the X-Anthropic-* fields.
void header_dropped(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, missing = 0, changed = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : affinity_requests(o)) {
    if (!answered_ok(o, i)) continue;
    ++n;
    const auto& x = affinity_of(o, i);
    bool lost = !x.session_id;
    bool other = x.session_id && x.session_id_sent && *x.session_id != *x.session_id_sent;
    missing += lost;
    changed += other;
    if (lost || other) refs.push_back(ref_of(o, i));
  }
  if (!j.enough(n)) return;
  j.show("replies without the request's session", static_cast<double>(refs.size()), "replies");
  j.check("replies", static_cast<double>(refs.size()),
          std::to_string(missing) + " replies without X-Anthropic-Session-ID and " + std::to_string(changed) +
              " under another session than the request named: replies");
  keep_refs(r, refs);
  j.finish("every reply carried the request's session (" + std::to_string(n) + " replies)");
}

// The counts of X-Anthropic-Token-Count (each chunk's extension summed, the trailer's total)
// against the tokens the stream carried.
void token_count_misparse(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0;
  std::string example;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : affinity_requests(o)) {
    const auto& x = affinity_of(o, i);
    if (!answered_ok(o, i) || (!x.chunk_token_count && !x.trailer_token_count)) continue;
    ++n;
    std::uint64_t tokens = o.requests[i].record().figures.tokens;
    bool chunks_off = x.chunk_token_count && *x.chunk_token_count != tokens;
    bool trailer_off = x.trailer_token_count && *x.trailer_token_count != tokens;
    if (!chunks_off && !trailer_off) continue;
    refs.push_back(ref_of(o, i));
    if (example.empty())
      example = "e.g. " + std::to_string(tokens) + " tokens streamed, chunk extensions " +
                (x.chunk_token_count ? std::to_string(*x.chunk_token_count) : "absent") + ", trailer " +
                (x.trailer_token_count ? std::to_string(*x.trailer_token_count) : "absent");
  }
  if (!j.enough(n)) return;
  j.show("replies whose token count is not the stream's", static_cast<double>(refs.size()), "replies");
  j.check("replies", static_cast<double>(refs.size()), "X-Anthropic-Token-Count disagrees with the stream (" + example + "): replies");
  keep_refs(r, refs);
  j.finish("X-Anthropic-Token-Count agrees with the tokens streamed in " + std::to_string(n) + " replies");
}

// One session id in flight on two connections at once (a serverless global, a batch sharing
// one id): the instance mixes the conversations.
void session_id_shared(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  struct Use {
    double from, to;
    std::size_t connection, request;
  };
  std::map<std::string, std::vector<Use>> uses;
  std::size_t n = 0;
  for (std::size_t i : affinity_requests(o)) {
    const auto& x = affinity_of(o, i);
    const auto& t = o.requests[i].record().timeline;
    if (!x.session_id_sent || !t.end) continue;
    ++n;
    uses[*x.session_id_sent].push_back({t.request_written, *t.end, o.requests[i].connection, i});
  }
  std::size_t shared = 0;
  std::vector<EvidenceRef> refs;
  for (auto& [id, list] : uses) {
    std::sort(list.begin(), list.end(), [](const Use& a, const Use& b) { return a.from < b.from; });
    bool concurrent = false;
    for (std::size_t k = 1; k < list.size() && !concurrent; ++k)
      for (std::size_t m = 0; m < k && !concurrent; ++m)
        concurrent = list[m].connection != list[k].connection && list[k].from < list[m].to;
    if (!concurrent) continue;
    ++shared;
    refs.push_back(ref_of(o, list.front().request));
  }
  if (!j.enough(n)) return;
  j.show("session ids in flight on two connections at once", static_cast<double>(shared), "sessions");
  j.check("sessions", static_cast<double>(shared), "session ids used by several connections at the same time:");
  keep_refs(r, refs);
  j.finish("no session id was in use on two connections at once (" + std::to_string(uses.size()) + " sessions)");
}

}  // namespace anthro::affinity_probes

namespace anthro {

void register_session_affinity_probes() {
  using namespace affinity_probes;
  const std::pair<const char*, probe_kit::Probe> kProbes[] = {
      {"sa-409-loop", loop_409},
      {"sa-hash-mismatch", hash_mismatch},
      {"sa-slot-gc-ttft", slot_gc_ttft},
      {"sa-header-dropped", header_dropped},
      {"sa-token-count-misparse", token_count_misparse},
      {"sa-session-id-shared", session_id_shared},
  };
  for (const auto& [name, probe] : kProbes) probe_kit::register_probe(name, probe, session_affinity_id());
}

}  // namespace anthro
