// The probes of the latency checklist: each reads the observations (live, captured or both,
// in one shape) and judges its statistic against the item's thresholds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <functional>
#include <stdexcept>
#include <utility>

#include "diagnosis/diagnosis.h"
#include "diagnosis/probe_kit.h"
#include "metrics/stats.h"

namespace anthro {
namespace {

using namespace probe_kit;


// ---- the probes ----

void alpn(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, wrong = 0;
  std::string got;
  std::vector<EvidenceRef> refs;
  for (const auto& c : o.connections) {
    if (!c.offered_anthro || c.alpn.empty()) continue;  // lab connections have no ALPN
    ++n;
    if (c.alpn != "anthro-v1") {
      ++wrong;
      got = c.alpn;
      refs.push_back({c.name, std::nullopt, std::nullopt, std::nullopt});
    }
  }
  bool old_openssl = o.system.openssl_version && *o.system.openssl_version < 0x10002000UL;
  if (o.system.openssl_version) ++n;
  if (!j.enough(n)) return;
  j.show("connections without anthro-v1", static_cast<double>(wrong), "connections");
  if (wrong) j.flag(Verdict::Fail, Message("alpn.wrong", {{"wrong", count(wrong)}, {"got", got}}));
  if (old_openssl) j.flag(Verdict::Fail, Message("alpn.old_openssl", {{"openssl", o.system.openssl_text}}));
  keep_refs(r, refs);
  MessageText pass = {Message("alpn.pass")};
  if (!o.system.openssl_text.empty()) pass.push_back(Message("alpn.openssl_offers", {{"openssl", o.system.openssl_text}}));
  j.finish(pass);
}

void http_fallback(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, spoke_http = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& c : o.connections) {
    bool known = !c.alpn.empty() || !c.alpn_offered.empty();
    if (!known || c.probe_only) continue;
    ++n;
    // Without keys a TLS 1.3 answer is hidden, but a client that did not offer anthro-v1 and
    // offered HTTP shows itself in the ClientHello.
    auto http = [](const std::string& p) { return p == "http/1.1" || p == "h2"; };
    bool offered_http = std::any_of(c.alpn_offered.begin(), c.alpn_offered.end(), http);
    if (!c.offered_anthro && (http(c.alpn) || (c.alpn.empty() && offered_http))) {
      ++spoke_http;
      refs.push_back({c.name, std::nullopt, std::nullopt, std::nullopt});
    }
  }
  if (!j.enough(n)) return;
  j.show("HTTP connections", static_cast<double>(spoke_http), "connections");
  j.check("connections", static_cast<double>(spoke_http), Message("http_fallback.crossed"));
  keep_refs(r, refs);
  j.finish(Message("http_fallback.pass"));
}

// Streams that ended without RESPONSE or ERROR, and who cut them.
enum class Cut { None, Server, Client };
Cut cut_of(const Observations& o, const ObservedRequest& q) {
  switch (q.record().end) {
    case RequestEnd::ConnectionClosed: return Cut::Server;
    // HTTP has no CANCEL: an HTTP client that closed at its cancel point cancelled the only way
    // it can (the HTTP baseline's cancel probes, any OpenAI-compatible or Messages API target).
    case RequestEnd::ClientClosed:
      return q.anthro || !q.record().timeline.cancel_written ? Cut::Client : Cut::None;
    case RequestEnd::Open: {
      if (q.connection >= o.connections.size()) return Cut::None;
      const auto& c = o.connections[q.connection];
      // A stream that got nothing may be a REQUEST that crossed the server's close of an idle
      // connection, which clients resend: only a stream under way counts as cut.
      if (q.record().figures.tokens == 0) return Cut::None;
      if (c.server_closed_first) return Cut::Server;
      if (c.client_closed_first && !q.record().timeline.cancel_written) return Cut::Client;
      return Cut::None;
    }
    default: return Cut::None;
  }
}

// When the server cut each connection in `counted` (connection-reset's rule: it reset or closed
// the connection with a stream under way), earliest first: its close, else the cut stream's REQUEST.
std::vector<double> cut_times(const Observations& o, const std::vector<bool>& counted) {
  std::vector<std::optional<double>> at(o.connections.size());
  for (const auto& q : o.requests) {
    if (q.connection >= at.size() || !counted[q.connection] || cut_of(o, q) != Cut::Server) continue;
    at[q.connection] = o.connections[q.connection].closed.value_or(
        std::max(at[q.connection].value_or(0), q.record().timeline.request_written));
  }
  std::vector<double> cuts;
  for (const auto& t : at)
    if (t) cuts.push_back(*t);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// How many connections in `counted` were opened to replace one the server cut: each cut is
// replaced by the first connection opened after it that no earlier cut took. They are
// connection-reset's doing, not a client that does not reuse (checklists.md, connection-reuse).
std::size_t reopened_after_cuts(const Observations& o, const std::vector<bool>& counted) {
  std::vector<double> cuts = cut_times(o, counted), opened;
  for (std::size_t i = 0; i < o.connections.size(); ++i)
    if (counted[i] && o.connections[i].opened) opened.push_back(*o.connections[i].opened);
  std::sort(opened.begin(), opened.end());
  std::size_t next_cut = 0, pending = 0, reopened = 0;
  for (double t : opened) {
    for (; next_cut < cuts.size() && cuts[next_cut] < t; ++next_cut) ++pending;
    if (pending == 0) continue;
    --pending;
    ++reopened;
  }
  return reopened;
}

void connection_reuse(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<bool> used(o.connections.size());
  std::size_t requests = 0;
  for (const auto& q : o.requests) {
    if (!q.anthro || q.record().timeline.request_written <= 0) continue;
    ++requests;
    if (q.connection < used.size()) used[q.connection] = true;
  }
  if (!j.enough(requests)) return;
  std::size_t opened = std::count(used.begin(), used.end(), true);
  std::size_t reopened = reopened_after_cuts(o, used);
  std::size_t connections = opened - reopened;
  double reuse = 1.0 - static_cast<double>(connections) / static_cast<double>(requests);
  j.show("reuse", reuse, "");
  j.check("reuse", reuse, Message("connection_reuse.crossed", {{"connections", count(connections)}, {"requests", count(requests)}}));
  j.finish(Message("connection_reuse.pass",
                   {{"reuse", number(reuse)}, {"connections", count(connections)}, {"requests", count(requests)}}));
  if (reopened) add_reason(r, Message("connection_reuse.reopened", {{"reopened", count(reopened)}, {"opened", count(opened)}}));
}

void frame_decode_time(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> samples;
  for (const auto& q : o.requests) samples.insert(samples.end(), q.record().frame_decode_ms.begin(), q.record().frame_decode_ms.end());
  std::size_t powersave = std::count(o.system.governors.begin(), o.system.governors.end(), "powersave");
  bool live = o.live && !samples.empty();
  if (live && !j.enough(samples.size())) return;
  if (!live && o.system.probed) r.n = o.system.governors.size();
  if (!live && r.n == 0 && !j.enough(0)) return;
  if (live) {
    double p99 = percentile(samples, 99);
    j.show("p99 frame decode time", p99, "ms");
    j.check("p99", p99, Message("frame_decode_time.crossed"));
    r.samples = std::move(samples);
  }
  if (powersave)
    j.flag(Verdict::Warn, Message("frame_decode_time.powersave", {{"powersave", count(powersave)}, {"cpus", count(o.system.governors.size())}}));
  j.finish(live ? Message("frame_decode_time.pass", {{"p99", number(*r.statistic)}, {"frames", count(r.n)}})
                : Message("frame_decode_time.no_powersave"));
}

void gpu_context_wait(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> waits;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const auto& t = o.requests[i].record().server_timing;
    if (!t || !ordinary(o.requests[i])) continue;
    waits.push_back(t->context_wait_us / 1000.0);
    refs.push_back(ref_of(o, i, waits.back()));
  }
  if (!j.enough(waits.size())) return;
  double p95 = percentile(waits, 95);
  j.show("p95 context wait", p95, "ms");
  j.check("p95", p95, Message("gpu_context_wait.crossed"));
  if (r.verdict != Verdict::Fail) j.check("rebalance", p95, Message("gpu_context_wait.rebalance"));
  keep_refs(r, refs);
  r.samples = std::move(waits);
  j.finish(Message("probe.p95_ms", {{"p95", number(p95)}}));
}

void nic_drops(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  const auto& nic = o.system.nic;
  if (!j.enough(nic.size())) return;
  double seconds = std::max(nic.back().t - nic.front().t, 1e-3);
  double rate = static_cast<double>(nic.back().drops - std::min(nic.back().drops, nic.front().drops)) / seconds;
  j.show("drops", rate, "1/s");
  j.check("drops_per_s", rate, Message("nic_drops.crossed"));
  j.finish(Message("nic_drops.pass", {{"rate", number(rate)}, {"seconds", number(seconds)}}));
}

bool is_stream(const ObservedRequest& q) { return q.anthro && q.record().timeline.request_written > 0; }

void ring_buffer_stall(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, full = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    if (!is_stream(o.requests[i])) continue;
    ++n;
    if (ring_full(o, o.requests[i])) {
      ++full;
      refs.push_back(ref_of(o, i, static_cast<double>(o.requests[i].record().ring_high_water)));
    }
  }
  if (!j.enough(n)) return;
  j.show("streams with a full receive ring", static_cast<double>(full), "streams");
  j.check("zero_windows", static_cast<double>(full), Message("ring_buffer_stall.crossed"));
  keep_refs(r, refs);
  j.finish(Message("ring_buffer_stall.pass"));
}

void server_stall(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0;
  double worst = 0;
  std::vector<EvidenceRef> refs;
  const Threshold* t = item.threshold("max_gap");
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const auto& q = o.requests[i];
    if (!is_stream(q) || !q.record().figures.max_gap_ms) continue;
    ++n;
    double gap = *q.record().figures.max_gap_ms;
    if (ring_full(o, q)) continue;  // the client's window was shut: not the server's pause
    worst = std::max(worst, gap);
    if (t && t->crossed(gap)) refs.push_back(ref_of(o, i, gap));
  }
  if (!j.enough(n)) return;
  j.show("longest token gap with the window open", worst, "ms");
  if (!refs.empty()) j.check("max_gap", worst, Message("server_stall.crossed", {{"paused", count(refs.size())}}));
  keep_refs(r, refs);
  j.finish(Message("server_stall.pass", {{"worst", number(worst)}, {"streams", count(n)}}));
}

void count_cuts(const ChecklistItem& item, const Observations& o, ItemResult& r, Cut which, const std::string& what,
                const std::string& what_id, const std::string& pass_id) {
  Judge j(item, r);
  std::size_t n = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    if (o.requests[i].record().timeline.request_written <= 0) continue;
    ++n;
    if (cut_of(o, o.requests[i]) == which) refs.push_back(ref_of(o, i, static_cast<double>(o.requests[i].record().figures.tokens)));
  }
  if (!j.enough(n)) return;
  j.show(what, static_cast<double>(refs.size()), "streams");
  j.check("streams", static_cast<double>(refs.size()), Message(what_id));
  keep_refs(r, refs);
  j.finish(Message(pass_id));
}

void connection_reset(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  count_cuts(item, o, r, Cut::Server, "streams cut before RESPONSE or ERROR", "connection_reset.crossed",
             "connection_reset.pass");
}

void cancel_not_sent(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  count_cuts(item, o, r, Cut::Client, "streams the client abandoned without CANCEL", "cancel_not_sent.crossed",
             "cancel_not_sent.pass");
}

// A cancel probe's reply that ended on its own after the CANCEL: the cancel took at least as
// long as the reply ran on, which tells a slow cancel only when that exceeds the threshold.
struct ShortReplies {
  std::size_t count = 0;
  std::size_t read_late = 0;  // ended behind a full receive ring: no bound on the cancel at all
  double longest_ms = 0;
  std::uint64_t most_tokens = 0, asked = 0;
};

// Why the cancel probes measured too little, and what would: a reply that outlasts the CANCEL.
Message short_replies_text(const ShortReplies& s, double threshold_ms) {
  Message asked = s.asked ? Message("cancel_latency.asked_up_to", {{"tokens", count(s.asked)}}) : Message("cancel_latency.asked_long");
  return Message("cancel_latency.short_replies", {{"count", count(s.count)},
                                                  {"longest", number(s.longest_ms)},
                                                  {"threshold", number(threshold_ms)},
                                                  {"asked", {asked}},
                                                  {"most_tokens", count(s.most_tokens)}});
}

void cancel_latency(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  const Threshold* timeout = item.threshold("timeout");
  const Threshold* p95_limit = item.threshold("p95");
  double limit_ms = timeout ? timeout->value : 1000, warn_ms = p95_limit ? p95_limit->value : 10;
  std::vector<double> latencies;
  std::vector<EvidenceRef> refs;
  std::size_t n = 0, unanswered = 0, at_least = 0;
  ShortReplies short_replies;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const RequestResult& s = o.requests[i].record();
    if (s.probe != item.id && s.probe != "cancel-latency") continue;
    if (!s.timeline.cancel_written) continue;
    if (s.end != RequestEnd::Response) continue;  // cut or refused: says nothing about cancel handling
    std::optional<double> ms = s.figures.cancel_latency_ms;
    if (!ms) {
      // Not cancelled: the cancel took longer than the reply ran on after it — unless the
      // client's ring was full, when the reply's end says when the client read it.
      if (ring_full(o, o.requests[i])) {
        ++short_replies.read_late;
        continue;
      }
      double after_ms = (*s.timeline.end - *s.timeline.cancel_written) * 1000;
      if (after_ms <= warn_ms) {
        ++short_replies.count;
        short_replies.longest_ms = std::max(short_replies.longest_ms, after_ms);
        short_replies.most_tokens = std::max(short_replies.most_tokens, s.figures.tokens);
        short_replies.asked = std::max<std::uint64_t>(short_replies.asked, s.max_tokens.value_or(0));
        continue;
      }
      ms = after_ms;
      ++at_least;
    }
    ++n;
    refs.push_back(ref_of(o, i, *ms));
    if (*ms > limit_ms) {
      ++unanswered;
      continue;
    }
    latencies.push_back(*ms);
  }
  if (!j.enough(n)) {
    if (short_replies.count)
      r.reason_text = {Message("probe.because", {{"what", r.reason_text}, {"why", {short_replies_text(short_replies, warn_ms)}}})};
    if (short_replies.read_late) add_reason(r, Message("cancel_latency.read_late", {{"count", count(short_replies.read_late)}}));
    return;
  }
  if (unanswered)
    j.flag(timeout ? timeout->verdict : Verdict::Fail,
           Message("cancel_latency.unanswered", {{"unanswered", count(unanswered)}, {"n", count(n)}, {"limit", number(limit_ms)}}));
  if (!latencies.empty()) {
    double p95 = percentile(latencies, 95);
    j.show("p95 cancel latency", p95, "ms");
    j.check("p95", p95, Message("cancel_latency.crossed"));
  }
  keep_refs(r, refs);
  r.samples = latencies;
  j.finish(Message("cancel_latency.pass", {{"p95", r.statistic ? number(*r.statistic) : std::string("-")}, {"n", count(n)}}));
  if (at_least) add_reason(r, Message("cancel_latency.at_least", {{"at_least", count(at_least)}, {"n", count(n)}}));
}

void retry_after_ignored(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  // Requests by connection, in the order they were sent.
  std::map<std::size_t, std::vector<std::size_t>> by_connection;
  for (std::size_t i = 0; i < o.requests.size(); ++i)
    if (o.requests[i].record().timeline.request_written > 0) by_connection[o.requests[i].connection].push_back(i);
  std::size_t n = 0;
  std::vector<EvidenceRef> refs;
  for (auto& [_, list] : by_connection) {
    std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return o.requests[a].record().timeline.request_written < o.requests[b].record().timeline.request_written;
    });
    for (std::size_t k = 0; k + 1 < list.size(); ++k) {
      const RequestResult& overloaded = o.requests[list[k]].record();
      if (overloaded.error_code != 429 || !overloaded.retry_after_ms || !overloaded.timeline.end) continue;
      ++n;
      double waited_ms = (o.requests[list[k + 1]].record().timeline.request_written - *overloaded.timeline.end) * 1000;
      // A millisecond of slack: the timer and the stamps are not the same instant.
      if (waited_ms + 1 < *overloaded.retry_after_ms) refs.push_back(ref_of(o, list[k + 1], *overloaded.retry_after_ms - waited_ms));
    }
  }
  if (!j.enough(n)) {
    // More of the same run cannot help: only a server that sheds load sends the 429 to time.
    if (n == 0)
      r.reason_text = {Message("retry_after_ignored.no_429")};
    return;
  }
  j.show("retries before retry_after_ms", static_cast<double>(refs.size()), "retries");
  j.check("early_retries", static_cast<double>(refs.size()), Message("retry_after_ignored.crossed", {{"n", count(n)}}));
  keep_refs(r, refs);
  j.finish(Message("retry_after_ignored.pass", {{"n", count(n)}}));
}

void frame_drops(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::uint64_t drops = count_frame_drops(o).dropped;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const RequestResult& s = o.requests[i].record();
    if (std::uint64_t bad = s.token_gaps + s.token_duplicates + s.auth_failures) refs.push_back(ref_of(o, i, static_cast<double>(bad)));
  }
  if (!j.enough(o.frames)) return;
  double rate = static_cast<double>(drops) / static_cast<double>(o.frames);
  j.show("dropped frames", rate, "");
  j.check("rate", rate, Message("frame_drops.crossed", {{"drops", count(drops)}, {"frames", count(o.frames)}}));
  keep_refs(r, refs);
  j.finish(Message("frame_drops.pass", {{"frames", count(o.frames)}}));
}

void ttft_tail(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> ttft;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const auto& q = o.requests[i];
    if (!ordinary(q) || !q.record().figures.ttft_ms) continue;
    ttft.push_back(*q.record().figures.ttft_ms);
    refs.push_back(ref_of(o, i, ttft.back()));
  }
  if (!j.enough(ttft.size())) return;
  Summary s = summarize(ttft);
  j.show("p99 TTFT", s.p99, "ms");
  j.check("p99", s.p99, Message("ttft_tail.crossed"));
  if (s.p50 > 0) j.check("jitter", s.stddev / s.p50, Message("ttft_tail.jitter"));
  keep_refs(r, refs);
  r.samples = std::move(ttft);
  j.finish(Message("ttft_tail.pass", {{"p99", number(s.p99)}, {"jitter", number(s.p50 > 0 ? s.stddev / s.p50 : 0)}}));
}

void max_tokens_truncation(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, too_short = 0;
  std::uint64_t longest = 0, most_kept = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const RequestResult& s = o.requests[i].record();
    if (!s.max_tokens || *s.max_tokens <= 0xFFFF || s.end != RequestEnd::Response) continue;
    std::uint64_t kept = *s.max_tokens & 0xFFFF;
    std::uint64_t got = s.figures.usage_output_tokens.value_or(s.figures.tokens);
    // A reply that ended on its own within what 16 bits keep would have ended the same way
    // truncated: it tells nothing (checklists.md: the probe needs a reply longer than that).
    if (s.stop_reason != StopReason::MaxTokens && got <= kept) {
      ++too_short;
      longest = std::max(longest, got);
      most_kept = std::max(most_kept, kept);
      continue;
    }
    ++n;
    if (s.stop_reason == StopReason::MaxTokens && got == kept) refs.push_back(ref_of(o, i, static_cast<double>(got)));
  }
  if (!j.enough(n)) {
    if (too_short)
      r.reason_text = {Message("max_tokens_truncation.too_short",
                               {{"count", count(too_short)}, {"longest", count(longest)}, {"kept", count(most_kept)}})};
    return;
  }
  j.show("truncated requests", static_cast<double>(refs.size()), "probes");
  j.check("truncated", static_cast<double>(refs.size()), Message("max_tokens_truncation.crossed"));
  keep_refs(r, refs);
  j.finish(Message("max_tokens_truncation.pass"));
}

// A candidate stream that is whole: what it says can be compared with the baseline's.
bool whole(const RequestResult& s) {
  return s.end == RequestEnd::Response && s.token_gaps == 0 && s.token_duplicates == 0 && s.auth_failures == 0;
}

void utf8_mismatch(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& pair : o.utf8_pairs) {
    if (!pair.baseline || !pair.candidate) continue;
    const RequestResult& base = o.requests[*pair.baseline].record();
    const RequestResult& cand = o.requests[*pair.candidate].record();
    if (cand.invalid_utf8_frames) {
      ++n;
      refs.push_back(ref_of(o, *pair.candidate, static_cast<double>(cand.invalid_utf8_frames)));
    } else if (whole(cand) && base.end == RequestEnd::Response) {
      ++n;
      if (cand.text != base.text) refs.push_back(ref_of(o, *pair.candidate, 1));
    }
  }
  if (o.utf8_pairs.empty()) {  // a capture: any token text that is not UTF-8
    for (std::size_t i = 0; i < o.requests.size(); ++i) {
      const RequestResult& s = o.requests[i].record();
      if (!is_stream(o.requests[i]) || s.end == RequestEnd::Open) continue;
      ++n;
      if (s.invalid_utf8_frames) refs.push_back(ref_of(o, i, static_cast<double>(s.invalid_utf8_frames)));
    }
  }
  if (!j.enough(n)) return;
  j.show("mismatches", static_cast<double>(refs.size()), o.utf8_pairs.empty() ? "streams" : "pairs");
  j.check("mismatches", static_cast<double>(refs.size()), Message("utf8_mismatch.crossed"));
  keep_refs(r, refs);
  j.finish(Message(o.utf8_pairs.empty() ? "utf8_mismatch.pass_streams" : "utf8_mismatch.pass_pairs", {{"n", count(n)}}));
}

void connection_duration(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> seconds;
  std::vector<EvidenceRef> refs;
  for (const auto& c : o.connections) {
    if (!c.anthro || !c.opened || !c.closed) continue;
    seconds.push_back(*c.closed - *c.opened);
    refs.push_back({c.name, std::nullopt, std::nullopt, seconds.back()});
  }
  if (!j.enough(seconds.size())) return;
  double p95 = percentile(seconds, 95);
  j.show("p95 connection duration", p95, "s");
  j.check("p95", p95, Message("connection_duration.crossed"));
  keep_refs(r, refs);
  r.samples = std::move(seconds);
  j.finish(Message("connection_duration.pass", {{"p95", number(p95)}, {"n", count(r.n)}}));
}

void cancel_rate(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t n = 0, cancels = 0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    const auto& q = o.requests[i];
    if (!ordinary(q) || !q.anthro) continue;
    ++n;
    if (q.record().timeline.cancel_written) {
      ++cancels;
      refs.push_back(ref_of(o, i, 1));
    }
  }
  if (!j.enough(n)) return;
  double rate = static_cast<double>(cancels) / static_cast<double>(n);
  j.show("cancel rate", rate, "");
  j.check("rate", rate, Message("cancel_rate.crossed", {{"cancels", count(cancels)}, {"n", count(n)}}));
  keep_refs(r, refs);
  j.finish(Message("cancel_rate.pass", {{"cancels", count(cancels)}, {"n", count(n)}, {"rate", pct(rate)}}));
}

const std::map<std::string, Probe>& probes() {
  static const std::map<std::string, Probe> table = {
      {"alpn", alpn},
      {"http-fallback", http_fallback},
      {"connection-reuse", connection_reuse},
      {"frame-decode-time", frame_decode_time},
      {"gpu-context-wait", gpu_context_wait},
      {"nic-drops", nic_drops},
      {"ring-buffer-stall", ring_buffer_stall},
      {"server-stall", server_stall},
      {"connection-reset", connection_reset},
      {"cancel-not-sent", cancel_not_sent},
      {"cancel-latency", cancel_latency},
      {"retry-after-ignored", retry_after_ignored},
      {"frame-drops", frame_drops},
      {"ttft-tail", ttft_tail},
      {"max-tokens-truncation", max_tokens_truncation},
      {"utf8-mismatch", utf8_mismatch},
      {"connection-duration", connection_duration},
      {"cancel-rate", cancel_rate},
  };
  return table;
}

bool given(const Observations& o, ProbeSource s) {
  switch (s) {
    case ProbeSource::Live: return o.live;
    case ProbeSource::Capture: return o.capture;
    case ProbeSource::System: return o.system.probed;
  }
  return false;
}

// What an item that reads anthro-v1 alone measures, for the reason it gives when the run spoke
// none (an HTTP target, OpenAI-compatible or Messages API, or a capture of one).
// (Each `anthro_only.<probe>` message in the catalogue.)
bool anthro_only(const std::string& probe) {
  static const char* const items[] = {"alpn",           "connection-reuse", "frame-decode-time",   "ring-buffer-stall",
                                      "server-stall",   "cancel-latency",   "frame-drops",         "utf8-mismatch",
                                      "connection-duration", "cancel-rate"};
  return std::find(std::begin(items), std::end(items), probe) != std::end(items);
}

// An item its probe left with nothing measured says why, where more of the same run would never
// settle it (docs/guide.md: an inconclusive item says what would), instead of "need N more".
void explain_nothing_measured(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  std::size_t sent = 0, anthro = 0, ok = 0;
  for (std::size_t i = 0; i < o.requests.size(); ++i) {
    if (o.requests[i].record().timeline.request_written <= 0) continue;
    ++sent;
    anthro += o.requests[i].anthro;
    ok += answered_ok(o, i);
  }
  if (sent == 0) return;
  if (anthro_only(item.probe) && anthro == 0) {
    r.reason_text = {Message("probe.anthro_only", {{"what", {Message("anthro_only." + item.probe)}}, {"sent", count(sent)}})};
  } else if (item.probe == "gpu-context-wait" && ok > 0) {
    r.reason_text = {Message("gpu_context_wait.no_timing", {{"ok", count(ok)}})};
  }
}

}  // namespace

namespace {

ItemResult judge_item(const ChecklistItem& item, const Observations& o) {
  ItemResult r;
  r.id = item.id;
  r.threshold_text = threshold_messages(item);
  r.threshold = render(r.threshold_text);
  if (item.probe == "manual") {
    r.verdict = Verdict::Manual;
    r.reason_text = {Message("probe.manual")};
    return r;
  }
  for (ProbeSource s : item.sources)
    if (given(o, s)) r.sources.push_back(s);
  if (r.sources.empty()) {
    MessageText would;  // "live or capture"
    for (auto s = item.sources.rbegin(); s != item.sources.rend(); ++s) {
      Message name("source." + std::string(to_string(*s)));
      would = would.empty() ? MessageText{name} : MessageText{Message("list.or", {{"first", {name}}, {"rest", would}})};
    }
    r.verdict = Verdict::Inconclusive;
    r.need_more = std::max<std::size_t>(item.min_n, 1);
    r.reason_text = {Message("probe.not_measured", {{"sources", would}})};
    return r;
  }
  (*find_probe(item.probe))(item, o, r);  // the checklist's reader refused any other name
  if (r.verdict == Verdict::Inconclusive && r.n == 0) explain_nothing_measured(item, o, r);
  return r;
}

}  // namespace

ItemResult evaluate_item(const ChecklistItem& item, const Observations& o) {
  ItemResult r = judge_item(item, o);
  r.reason = render(r.reason_text);
  return r;
}

namespace {

std::map<std::string, Probe>& registered_probes() {
  static std::map<std::string, Probe> table;
  return table;
}

std::map<std::string, ProfileId, std::less<>>& probe_owners() {
  static std::map<std::string, ProfileId, std::less<>> table;
  return table;
}

}  // namespace

const Probe* probe_kit::find_probe(std::string_view name) {
  (void)profiles();  // the built-in formats registered theirs
  for (const auto* table : {&probes(), &std::as_const(registered_probes())})
    if (auto it = table->find(std::string(name)); it != table->end()) return &it->second;
  return nullptr;
}

void probe_kit::register_probe(const std::string& name, Probe probe, ProfileId owner) {
  const bool taken = name.empty() || name == "manual" || registered_probes().count(name) || probes().count(name);
  if (taken) throw std::logic_error("register_probe: \"" + name + "\" is taken");
  registered_probes().emplace(name, std::move(probe));
  probe_owners().emplace(name, owner);
}

std::optional<ProfileId> probe_kit::probe_owner(std::string_view name) {
  (void)profiles();
  auto it = probe_owners().find(name);
  return it == probe_owners().end() ? std::nullopt : std::optional<ProfileId>(it->second);
}

Verdict Diagnosis::worst() const {
  Verdict w = Verdict::Pass;
  for (const auto& i : items)
    if (severity(i.verdict) > severity(w)) w = i.verdict;
  return w;
}

const ItemResult* Diagnosis::item(std::string_view id) const {
  for (const auto& i : items)
    if (i.id == id) return &i;
  return nullptr;
}

Diagnosis evaluate(const Checklist& checklist, Observations o) {
  Diagnosis d;
  d.checklist_id = checklist.id;
  d.checklist_origin = checklist.origin;
  for (ProbeSource s : {ProbeSource::Live, ProbeSource::Capture, ProbeSource::System})
    if (given(o, s)) d.sources.push_back(s);
  for (const auto& item : checklist.items) d.items.push_back(evaluate_item(item, o));
  link_causes(d, checklist, o);
  d.warnings = o.warnings;
  for (const auto& p : o.system.problems) d.warnings.push_back({Message("warning.system", {{"problem", p}})});
  d.observations = std::move(o);
  return d;
}

}  // namespace anthro
