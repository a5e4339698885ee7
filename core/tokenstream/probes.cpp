// The probes of the token-stream checklist (token stream spec §4.4, §5.1, §6;
// profiles/token-stream.md): each reads the token-stream exchanges, live or captured, in the one
// shape of TokenStreamExchange.
#include <map>

#include "diagnosis/probe_kit.h"
#include "tokenstream/context_id.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

namespace anthro::probe_kit {
namespace {

// The requests of the checklist: those that asked for the passthrough, with their index.
std::vector<std::size_t> token_stream_requests(const Observations& o) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < o.requests.size(); ++i)
    if (token_stream_of(o.requests[i].record()) && ordinary(o.requests[i])) out.push_back(i);
  return out;
}

const TokenStreamExchange& token_stream_of(const Observations& o, std::size_t i) { return *token_stream_of(o.requests[i].record()); }

// Requests whose given header the profile refuses, and how many of them the server answered
// with a 400 or 401; `fields` are the headers the item is about.
struct HeaderFaults {
  std::size_t n = 0, faulty = 0, refused = 0;
  std::string example;
  std::vector<EvidenceRef> refs;
};
HeaderFaults header_faults(const Observations& o, std::initializer_list<TokenStreamField> fields) {
  HeaderFaults h;
  for (std::size_t i : token_stream_requests(o)) {
    if (!answered(o, i)) continue;
    ++h.n;
    const auto& x = token_stream_of(o, i);
    if (std::find(fields.begin(), fields.end(), x.request_fault) == fields.end()) continue;
    ++h.faulty;
    int code = o.requests[i].record().error_code.value_or(200);
    h.refused += code == 400 || code == 401;
    if (h.example.empty()) h.example = to_string(x.request_fault) + std::string(" (context id \"") + x.context_id + "\")";
    h.refs.push_back(ref_of(o, i));
  }
  return h;
}

void judge_header(const ChecklistItem& item, const Observations& o, ItemResult& r,
                  std::initializer_list<TokenStreamField> fields, const char* pass_id) {
  Judge j(item, r);
  HeaderFaults h = header_faults(o, fields);
  if (!j.enough(h.n)) return;
  j.show("requests with a header the profile refuses", static_cast<double>(h.faulty), "requests");
  j.check("requests", static_cast<double>(h.faulty),
          Message("ts.header_refused", {{"example", h.example}, {"refused", count(h.refused)}}));
  keep_refs(r, std::move(h.refs));
  j.finish(Message(pass_id, {{"n", count(h.n)}}));
}

// Token stream spec §5.1 row 1: X-Claude-Token-Alignment missing or not 4.
void alignment_header(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  judge_header(item, o, r, {TokenStreamField::Alignment}, "ts.alignment_header.pass");
}

// Token stream spec §5.1 row 3, and the signed int64 or BigInt id of "where the seed contradicts
// itself" (the profile's own section): a context id that is no plain decimal u64, or whose
// tenant is not the request's.
void context_id(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  judge_header(item, o, r, {TokenStreamField::ContextId, TokenStreamField::TenantId},
               "ts.context_id.pass");
}

// Token stream spec §5.1 row 2: the binary body read as text. Only a client that says so shows it:
// its own mode, or the JSON parse error report it sends after the reply.
void text_decoding(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, reported = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : token_stream_requests(o)) {
    if (!answered_ok(o, i)) continue;
    ++n;
    if (!token_stream_of(o, i).text_decoding_reported) continue;
    ++reported;
    refs.push_back(ref_of(o, i));
  }
  if (!j.enough(n)) return;
  j.show("replies the client read as text", static_cast<double>(reported), "replies");
  j.check("replies", static_cast<double>(reported),
          Message("ts.text_decoding.crossed"));
  keep_refs(r, std::move(refs));
  j.finish(Message("ts.text_decoding.pass", {{"n", count(n)}}));
}

// Token stream spec §4.4 and §5.1 row 4: a 429 whose Retry-After (milliseconds) is above 1000 says
// the tenant's quota is spent; waiting and retrying does not help.
void quota_429(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, quota = 0, congestion = 0;
  std::uint64_t longest = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : token_stream_requests(o)) {
    if (!answered(o, i)) continue;
    ++n;
    const auto& wait = token_stream_of(o, i).retry_after_ms;
    if (!wait || o.requests[i].record().error_code != 429) continue;
    if (classify_retry_after_ms(*wait) != TokenStreamRetryCause::Quota) {
      ++congestion;
      continue;
    }
    ++quota;
    longest = std::max(longest, *wait);
    refs.push_back(ref_of(o, i, static_cast<double>(*wait)));
  }
  if (!j.enough(n)) return;
  double rate = static_cast<double>(quota) / static_cast<double>(n);
  j.show("429s of a spent quota (Retry-After > 1000 ms)", rate, "");
  j.check("rate", rate,
          Message("ts.quota_429.crossed", {{"quota", count(quota)}, {"n", count(n)}, {"longest", count(longest)}}));
  keep_refs(r, std::move(refs));
  j.finish(Message("ts.quota_429.pass", {{"congestion", count(congestion)}, {"n", count(n)}}));
}

// Token stream spec §6: before full migration, fewer than 0.1 % of replies may take the degraded
// path.
void degraded_rate(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, degraded = 0, unannounced = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i : token_stream_requests(o)) {
    if (!answered_ok(o, i)) continue;
    ++n;
    const auto& x = token_stream_of(o, i);
    if (!x.degraded_at) continue;
    ++degraded;
    unannounced += !x.backpressure_announced;
    refs.push_back(ref_of(o, i));
  }
  if (!j.enough(n)) return;
  double rate = static_cast<double>(degraded) / static_cast<double>(n);
  j.show("replies with the degraded marker", rate, "");
  j.check("rate", rate,
          Message("ts.degraded_rate.crossed", {{"degraded", count(degraded)}, {"n", count(n)}, {"unannounced", count(unannounced)}}));
  keep_refs(r, std::move(refs));
  j.finish(Message("ts.degraded_rate.pass", {{"n", count(n)}}));
}

}  // namespace

}  // namespace anthro::probe_kit

namespace anthro {

namespace {

const MessageTemplate kTokenStreamMessages[] = {
    // Statistic names (ItemResult::statistic_name), shown through name_in.
    {"statistic.429s of a spent quota (Retry-After > 1000 ms)", "429s of a spent quota (Retry-After > 1000 ms)", "配额耗尽的 429（Retry-After > 1000 ms）"},
    {"statistic.replies the client read as text", "replies the client read as text", "客户端当作文本读取的回复"},
    {"statistic.replies with the degraded marker", "replies with the degraded marker", "带降级标记的回复"},
    {"statistic.requests with a header the profile refuses", "requests with a header the profile refuses", "带有该配置拒绝的请求头的请求"},
    {"ts.header_refused", "requests sent with a header the profile refuses, e.g. {example}, {refused} of them answered 400/401:",
     "发送了该配置拒绝的请求头的请求，例如 {example}，其中 {refused} 个得到 400/401 应答："},
    {"ts.alignment_header.pass", "every request sent X-Claude-Token-Alignment: 4 ({n} requests)",
     "每个请求都发送了 X-Claude-Token-Alignment: 4（{n} 个请求）"},
    {"ts.context_id.pass", "every X-Claude-Context-ID was a plain decimal u64 of the request's tenant ({n} requests)",
     "每个 X-Claude-Context-ID 都是属于该请求租户的十进制 u64（{n} 个请求）"},
    {"ts.text_decoding.crossed",
     "replies followed by the client's JSON parse error report (it decoded u32 ids with a TextDecoder):",
     "之后客户端报告了 JSON 解析错误的回复（它用 TextDecoder 解码了 u32 id）："},
    {"ts.text_decoding.pass", "no client reported reading a token stream as text ({n} replies)",
     "没有客户端报告把令牌流当作文本读取（{n} 个回复）"},
    {"ts.quota_429.crossed",
     "{quota} of {n} requests answered 429 with Retry-After up to {longest} ms (the tenant's quota, not GPU memory): rate",
     "{n} 个请求中有 {quota} 个得到 429，Retry-After 最长 {longest} ms（租户配额耗尽，而非 GPU 内存）：比率"},
    {"ts.quota_429.pass", "{congestion} 429s of GPU memory (Retry-After ≤ 1000 ms), none of a spent quota, in {n} requests",
     "{n} 个请求中有 {congestion} 个因 GPU 内存的 429（Retry-After ≤ 1000 ms），没有配额耗尽的 429"},
    {"ts.degraded_rate.crossed",
     "{degraded} of {n} replies carried the degraded marker 0xFFFFFFFE ({unannounced} without X-Claude-Backpressure): rate",
     "{n} 个回复中有 {degraded} 个带有降级标记 0xFFFFFFFE（{unannounced} 个没有 X-Claude-Backpressure）：比率"},
    {"ts.degraded_rate.pass", "no reply took the degraded path ({n} replies)", "没有回复走降级路径（{n} 个回复）"},
};

}  // namespace

void register_token_stream_probes() {
  using namespace probe_kit;
  register_messages(kTokenStreamMessages);
  const std::pair<const char*, Probe> kProbes[] = {
      {"ts-alignment-header", alignment_header}, {"ts-text-decoding", text_decoding},
      {"ts-context-id", context_id},             {"ts-quota-429", quota_429},
      {"ts-degraded-rate", degraded_rate},
  };
  for (const auto& [name, probe] : kProbes) register_probe(name, probe, token_stream_id());
}

}  // namespace anthro
