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
          Message("sa.loop_409.crossed"));
  keep_refs(r, refs);
  j.finish(Message("sa.loop_409.pass", {{"migrated", count(migrated.size())}}));
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
          Message("sa.hash_mismatch.crossed", {{"refused", count(refused)}, {"disagree", count(disagree)}, {"n", count(n)}}));
  keep_refs(r, refs);
  j.finish(Message("sa.hash_mismatch.pass", {{"n", count(n)}}));
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
          Message("sa.slot_gc_ttft.crossed", {{"opening", count(opening.size())}, {"continuing", count(continuing.size())}}));
  keep_refs(r, refs);
  j.finish(Message("sa.slot_gc_ttft.pass", {{"excess", number(excess)}}));
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
          Message("sa.header_dropped.crossed", {{"missing", count(missing)}, {"changed", count(changed)}}));
  keep_refs(r, refs);
  j.finish(Message("sa.header_dropped.pass", {{"n", count(n)}}));
}

// The counts of X-Anthropic-Token-Count (each chunk's extension summed, the trailer's total)
// against the tokens the stream carried.
void token_count_misparse(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0;
  std::optional<Message> example;
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
    auto counted = [](const std::optional<std::uint64_t>& c) { return c ? MessageText{Message("plain", {{"text", count(*c)}})} : MessageText{Message("sa.absent")}; };
    if (!example)
      example = Message("sa.token_count_misparse.example",
                        {{"tokens", count(tokens)}, {"chunks", counted(x.chunk_token_count)}, {"trailer", counted(x.trailer_token_count)}});
  }
  if (!j.enough(n)) return;
  j.show("replies whose token count is not the stream's", static_cast<double>(refs.size()), "replies");
  j.check("replies", static_cast<double>(refs.size()),
          Message("sa.token_count_misparse.crossed", {{"example", example ? MessageText{*example} : MessageText{}}}));
  keep_refs(r, refs);
  j.finish(Message("sa.token_count_misparse.pass", {{"n", count(n)}}));
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
  j.check("sessions", static_cast<double>(shared), Message("sa.session_id_shared.crossed"));
  keep_refs(r, refs);
  j.finish(Message("sa.session_id_shared.pass", {{"n", count(uses.size())}}));
}

}  // namespace anthro::affinity_probes

namespace anthro {

namespace {

const MessageTemplate kAffinityMessages[] = {
    // Statistic names (ItemResult::statistic_name), shown through name_in.
    {"statistic.TTFT of a session's first request above the others (median)", "TTFT of a session's first request above the others (median)", "会话首个请求的 TTFT 高出其余请求（中位数）"},
    {"statistic.hash mismatch rate", "hash mismatch rate", "哈希不一致率"},
    {"statistic.replies whose token count is not the stream's", "replies whose token count is not the stream's", "令牌计数与流不符的回复"},
    {"statistic.replies without the request's session", "replies without the request's session", "缺少请求会话的回复"},
    {"statistic.requests under a migrated id", "requests under a migrated id", "使用已迁移 id 的请求"},
    {"statistic.session ids in flight on two connections at once", "session ids in flight on two connections at once", "同时在两个连接上使用的会话 id"},
    {"sa.absent", "absent", "缺失"},
    {"sa.loop_409.crossed", "requests sent again under a session id a 409 had replaced (X-Anthropic-New-Session-ID ignored):",
     "以已被 409 替换的会话 id 重发的请求（忽略了 X-Anthropic-New-Session-ID）："},
    {"sa.loop_409.pass", "{migrated} sessions migrated (409); every client switched to the new id",
     "{migrated} 个会话已迁移（409）；每个客户端都换用了新 id"},
    {"sa.hash_mismatch.crossed",
     "{refused} requests answered 400 invalid_context_hash and {disagree} replies whose Context-Hash is not the "
     "conversation's, in {n}: rate",
     "{n} 个中有 {refused} 个请求得到 400 invalid_context_hash，{disagree} 个回复的 Context-Hash 与会话不符：比率"},
    {"sa.hash_mismatch.pass", "client and server agree on every Context-Hash ({n} exchanges)",
     "客户端与服务器在每个 Context-Hash 上一致（{n} 次交换）"},
    {"sa.slot_gc_ttft.crossed", "a new session's first token waits for its context slot (median of {opening} against {continuing}):",
     "新会话的首个令牌要等待其上下文槽（{opening} 个对 {continuing} 个的中位数）："},
    {"sa.slot_gc_ttft.pass", "a new session costs {excess} ms of TTFT (the slot's cold load)", "新会话使 TTFT 增加 {excess} ms（槽的冷加载）"},
    {"sa.header_dropped.crossed",
     "{missing} replies without X-Anthropic-Session-ID and {changed} under another session than the request named: replies",
     "{missing} 个回复缺少 X-Anthropic-Session-ID，{changed} 个属于与请求所指不同的会话：回复数"},
    {"sa.header_dropped.pass", "every reply carried the request's session ({n} replies)", "每个回复都带有请求的会话（{n} 个回复）"},
    {"sa.token_count_misparse.example", "e.g. {tokens} tokens streamed, chunk extensions {chunks}, trailer {trailer}",
     "例如流式传输了 {tokens} 个令牌，块扩展 {chunks}，尾部 {trailer}"},
    {"sa.token_count_misparse.crossed", "X-Anthropic-Token-Count disagrees with the stream ({example}): replies",
     "X-Anthropic-Token-Count 与流不一致（{example}）：回复数"},
    {"sa.token_count_misparse.pass", "X-Anthropic-Token-Count agrees with the tokens streamed in {n} replies",
     "{n} 个回复中 X-Anthropic-Token-Count 与流式令牌数一致"},
    {"sa.session_id_shared.crossed", "session ids used by several connections at the same time:", "同时被多个连接使用的会话 id："},
    {"sa.session_id_shared.pass", "no session id was in use on two connections at once ({n} sessions)",
     "没有会话 id 同时在两个连接上使用（{n} 个会话）"},
};

}  // namespace

void register_session_affinity_probes() {
  using namespace affinity_probes;
  register_messages(kAffinityMessages);
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
