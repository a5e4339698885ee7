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
                  std::initializer_list<TokenStreamField> fields, const std::string& pass) {
  Judge j(item, r);
  HeaderFaults h = header_faults(o, fields);
  if (!j.enough(h.n)) return;
  j.show("requests with a header the profile refuses", static_cast<double>(h.faulty), "requests");
  j.check("requests", static_cast<double>(h.faulty),
          "requests sent with a header the profile refuses, e.g. " + h.example + ", " + std::to_string(h.refused) +
              " of them answered 400/401:");
  keep_refs(r, std::move(h.refs));
  j.finish(pass + " (" + std::to_string(h.n) + " requests)");
}

// Token stream spec §5.1 row 1: X-Claude-Token-Alignment missing or not 4.
void alignment_header(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  judge_header(item, o, r, {TokenStreamField::Alignment}, "every request sent X-Claude-Token-Alignment: 4");
}

// Token stream spec §5.1 row 3, and the signed int64 or BigInt id of "where the seed contradicts
// itself" (the profile's own section): a context id that is no plain decimal u64, or whose
// tenant is not the request's.
void context_id(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  judge_header(item, o, r, {TokenStreamField::ContextId, TokenStreamField::TenantId},
               "every X-Claude-Context-ID was a plain decimal u64 of the request's tenant");
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
          "replies followed by the client's JSON parse error report (it decoded u32 ids with a TextDecoder):");
  keep_refs(r, std::move(refs));
  j.finish("no client reported reading a token stream as text (" + std::to_string(n) + " replies)");
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
          std::to_string(quota) + " of " + std::to_string(n) + " requests answered 429 with Retry-After up to " +
              std::to_string(longest) + " ms (the tenant's quota, not GPU memory): rate");
  keep_refs(r, std::move(refs));
  j.finish(std::to_string(congestion) + " 429s of GPU memory (Retry-After ≤ 1000 ms), none of a spent quota, in " +
           std::to_string(n) + " requests");
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
          std::to_string(degraded) + " of " + std::to_string(n) + " replies carried the degraded marker 0xFFFFFFFE (" +
              std::to_string(unannounced) + " without X-Claude-Backpressure): rate");
  keep_refs(r, std::move(refs));
  j.finish("no reply took the degraded path (" + std::to_string(n) + " replies)");
}

}  // namespace

}  // namespace anthro::probe_kit

namespace anthro {

void register_token_stream_probes() {
  using namespace probe_kit;
  const std::pair<const char*, Probe> kProbes[] = {
      {"ts-alignment-header", alignment_header}, {"ts-text-decoding", text_decoding},
      {"ts-context-id", context_id},             {"ts-quota-429", quota_429},
      {"ts-degraded-rate", degraded_rate},
  };
  for (const auto& [name, probe] : kProbes) register_probe(name, probe, token_stream_id());
}

}  // namespace anthro
