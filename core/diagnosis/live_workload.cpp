#include "diagnosis/live_workload.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "diagnosis/probe_kit.h"
#include "session/bench.h"
#include "session/http_rider.h"
#include "session/target.h"
#include "util/json.h"

namespace anthro {
namespace {

// Varied prompts, 4-byte UTF-8 among them (the simulated model's replies carry it anyway).
const std::vector<std::string>& prompts() {
  static const std::vector<std::string> list = {
      "Why does TCP slow start hurt short requests?",
      "总结一下长尾延迟的常见原因。",
      "Write two lines about rockets 🚀 and latency ⏱️.",
      "¿Qué cambia entre HTTP/1.1 y HTTP/2?",
      "Explain AEAD nonces to an SRE 🔐.",
      "Какие метрики важны для стриминга токенов?",
  };
  return list;
}

std::string probe_metadata(const char* id) { return dump_json(nlohmann::json{{"anthro_probe", id}}); }

std::vector<ChatMessage> user(const std::string& text) { return user_message(text); }

const std::string kUtf8Prompt = "Reply with emoji 😀🧪 and CJK 漢字: is 4-byte UTF-8 intact?";
const std::string kLongReplyPrompt =
    "Write a long, detailed essay (at least 2,000 words) on how streaming APIs handle cancellation.";

// The probe streams, each marked with the item it feeds.
std::vector<RequestOptions> probe_requests(const LiveWorkloadConfig& c) {
  std::vector<RequestOptions> probes;
  for (unsigned i = 0; i < c.cancel_probes; ++i) probes.push_back(*probe_for_item(kProbeCancel));
  if (c.max_tokens_probe) probes.push_back(*probe_for_item(kProbeMaxTokens));
  if (c.utf8_pair) probes.push_back(*probe_for_item(kProbeUtf8));
  return probes;
}

// The requests in the order they are sent: ordinary ones with the probes spread among them.
std::vector<RequestOptions> make_plan(const LiveWorkloadConfig& c) {
  std::vector<RequestOptions> probes = probe_requests(c);
  // Probes evenly spread; a client that closes without CANCEL abandons as many ordinary
  // requests as there are cancel probes, evenly spread too.
  std::size_t total = c.requests + probes.size();
  std::vector<bool> probe_at(total, false), abandon_at(c.requests, false);
  for (std::size_t k = 0; k < probes.size(); ++k) probe_at[(k + 1) * total / (probes.size() + 1)] = true;
  std::size_t abandon = c.session.close_without_cancel ? std::max(c.cancel_probes, 1u) : 0;
  for (std::size_t a = 0; a < abandon && c.requests; ++a) abandon_at[(a + 1) * c.requests / (abandon + 1)] = true;
  std::vector<RequestOptions> plan;
  std::size_t next_probe = 0, ordinary = 0;
  for (std::size_t i = 0; i < total; ++i) {
    if (probe_at[i] && next_probe < probes.size()) {
      plan.push_back(probes[next_probe++]);
      continue;
    }
    RequestOptions o;
    o.messages = user(prompts()[ordinary % prompts().size()]);
    if (ordinary < abandon_at.size() && abandon_at[ordinary]) {
      o.cancel_after_tokens = 5;
      o.close_without_cancel = true;
    }
    ++ordinary;
    plan.push_back(std::move(o));
  }
  while (next_probe < probes.size()) plan.push_back(probes[next_probe++]);
  return plan;
}

std::optional<std::size_t> utf8_probe_answer(const Observations& o) {
  for (std::size_t i = 0; i < o.requests.size(); ++i)
    if (o.requests[i].anthro && o.requests[i].record().probe == kProbeUtf8 && o.requests[i].record().end == RequestEnd::Response)
      return i;
  return std::nullopt;
}

// The HTTP baseline for the utf8 pair: given, or the target's own TLS port (ALPN http/1.1).
std::string baseline_url(const LiveWorkloadConfig& c, const Target& t) {
  return c.baseline.empty() ? http_baseline_url(t) : c.baseline;
}

PerProfile<LiveWorkload>& own_workloads() {
  static PerProfile<LiveWorkload> table("register_live_workload");
  return table;
}

}  // namespace

void register_live_workload(ProfileId id, LiveWorkload run) {
  if (!run) throw std::logic_error("register_live_workload: no workload");
  own_workloads().add(id, run);
}

Result<Observations> run_live_workload(const LiveWorkloadConfig& config) {
  if (config.own_workload) {
    const LiveWorkload* run = own_workloads().find(*config.own_workload);
    if (!run) return make_error(ErrorClass::Usage, std::string(profile(*config.own_workload).display_name) + " has no live workload");
    return (*run)(config);
  }
  auto target = parse_target(config.session.target);
  if (!target) return target.error();
  std::vector<RequestOptions> plan = make_plan(config);

  BenchConfig b;
  b.session = config.session;
  b.session.close_without_cancel = false;  // the plan decides every cancel point
  b.session.cancel_after_tokens.reset();
  b.session.stream = true;
  b.concurrency = std::max(config.concurrency, 1u);
  b.requests = plan.size();
  b.cancel_rate = config.cancel_rate;
  b.retry_naive = config.retry_naive;
  b.hold_connections_s = config.hold_connections_s;
  b.seed = config.seed;
  b.stop = config.stop;
  if (config.on_progress)
    b.on_progress = [&config](const BenchProgress& p) {
      config.on_progress({Message("diagnose.bench", {{"requests", std::to_string(p.requests)},
                                                     {"errors", std::to_string(p.errors)},
                                                     {"connections", std::to_string(p.connections)},
                                                     {"tokens_per_s", message_printf("%.0f", p.tokens_per_s)}})});
    };
  if (config.on_requests)
    b.on_record = [&config, done = std::uint64_t(0), total = std::uint64_t(plan.size())](const BenchRecord&) mutable {
      config.on_requests(++done, total);
    };
  b.plan = [&plan](std::uint64_t index) { return plan[index % plan.size()]; };
  auto bench = run_bench(b);
  if (!bench) return bench.error();
  std::vector<std::string> run_warnings = bench->warnings;  // a key log not written

  Observations o = observe_bench(std::move(*bench), config.session.target);
  for (auto& w : run_warnings) o.warnings.push_back(plain_text(std::move(w)));
  if (config.utf8_pair && target->profile == ProfileId::AnthroV1) {
    std::string url = baseline_url(config, *target);
    if (url.empty())
      o.warnings.push_back({Message("warning.no_baseline", {{"target", config.session.target}})});
    else
      pair_utf8_probe(config.session, url, o);
  }
  return o;
}

void pair_utf8_probe(const SessionConfig& session, const std::string& url, Observations& o) {
  std::optional<std::size_t> candidate = utf8_probe_answer(o);
  SessionConfig s = session;
  s.target = url;
  s.messages = user(kUtf8Prompt);
  s.metadata_json = probe_metadata(kProbeUtf8);
  s.repeat = 1;
  s.cancel_after_tokens.reset();
  s.close_without_cancel = false;
  s.read_delay_ms = 0;
  s.ring_kib.reset();
  auto result = run_session(s);
  if (!result) {
    o.warnings.push_back({Message("warning.baseline_failed", {{"url", url}, {"error", result.error().detail}})});
    return;
  }
  ObservedConnection c;
  c.name = "live-baseline";
  c.alpn = result->alpn;
  c.probe_only = true;
  o.connections.push_back(std::move(c));
  if (result->error || result->requests.empty()) {
    o.warnings.push_back(result->error ? MessageText{Message("warning.baseline_failed", {{"url", url}, {"error", *result->error}})}
                                        : MessageText{Message("warning.baseline_no_request", {{"url", url}})});
    return;
  }
  ObservedRequest q;
  q.connection = o.connections.size() - 1;
  q.anthro = false;
  q.own(std::move(result->requests.front()));
  o.requests.push_back(std::move(q));
  o.utf8_pairs.push_back({o.requests.size() - 1, candidate});
}

const std::string& workload_prompt(std::uint64_t index) { return prompts()[index % prompts().size()]; }

std::vector<ChatMessage> user_message(const std::string& text) { return {ChatMessage{"user", text}}; }

std::optional<RequestOptions> probe_for_item(std::string_view id) {
  RequestOptions p;
  if (id == kProbeCancel) {
    p.metadata_json = probe_metadata(kProbeCancel);
    p.messages = user(kLongReplyPrompt);
    p.max_tokens = kCancelProbeTokens;
    p.cancel_after_tokens = 5;
  } else if (id == kProbeMaxTokens) {
    p.metadata_json = probe_metadata(kProbeMaxTokens);
    p.max_tokens = kMaxTokensProbe;
  } else if (id == kProbeUtf8) {
    p.metadata_json = probe_metadata(kProbeUtf8);
    p.messages = user(kUtf8Prompt);
  } else {
    return std::nullopt;
  }
  return p;
}

Observations observe_bench(BenchResult bench, const std::string& target_url) {
  Observations o;
  o.live = true;
  o.target = target_url;
  auto target = parse_target(target_url);
  bool anthro = target && target->profile == ProfileId::AnthroV1;
  for (std::size_t i = 0; i < bench.connection_log.size(); ++i) {
    const BenchConnection& log = bench.connection_log[i];
    ObservedConnection c;
    c.name = "live#" + std::to_string(i + 1);
    c.alpn = log.alpn;
    c.offered_anthro = anthro;
    c.anthro = anthro && !log.error;
    c.opened = log.opened;
    c.closed = log.closed;
    o.connections.push_back(std::move(c));
  }
  for (auto& rec : bench.records) {
    ObservedRequest q;
    q.connection = rec.connection;
    q.anthro = anthro;
    q.own(std::move(rec.result));
    if (anthro) {
      o.frames += q.record().timeline.tokens.size() + (q.record().end == RequestEnd::Response || q.record().end == RequestEnd::Error) +
                  q.record().auth_failures;
      o.frames_refused += q.record().auth_failures;
    }
    o.requests.push_back(std::move(q));
  }
  return o;
}

namespace {

bool has_probe(const Checklist& c, std::string_view probe) {
  return std::any_of(c.items.begin(), c.items.end(), [&](const ChecklistItem& i) { return i.probe == probe; });
}

}  // namespace

// The workload a checklist needs: the probe streams of its items only, and the client of the
// format whose probes it has (a format riding on the HTTP requests: its live rider; a format's
// own workload).
void fit_workload(const Checklist& c, LiveWorkloadConfig& live) {
  if (!has_probe(c, kProbeCancel)) live.cancel_probes = 0;
  if (!has_probe(c, kProbeMaxTokens)) live.max_tokens_probe = false;
  if (!has_probe(c, kProbeUtf8)) live.utf8_pair = false;
  for (const ChecklistItem& i : c.items) {
    auto owner = probe_kit::probe_owner(i.probe);
    if (owner && own_workloads().find(*owner)) live.own_workload = owner;
    if (owner && live_http_riders().find(*owner)) live.session.riders.try_emplace(*owner);  // its defaults unless set
  }
}

}  // namespace anthro
