// Session affinity's GPU instance as the local endpoint emulates it, adding to the Messages
// API's own replies (endpoint/http_rider.h, HttpRoute::judge): a request carrying a session
// field is judged by the context slots (409 with a new id when its session moved, 400 with the
// expected hash when its Context-Hash is not the server's, the TTFT its slot's loading and
// collections cost); a served one's reply carries its session and the response's Context-Hash,
// each chunk's token count as a chunk extension and the total in a trailer (what survives
// proxies that drop extensions). /metrics adds the slots' gauges. A plain request takes the old
// path, so one port serves a rollout's baseline and candidate.
#include "affinity/serve.h"

#include <chrono>
#include <memory>
#include <random>

#include "affinity/context_hash.h"
#include "affinity/format.h"
#include "endpoint/http_rider.h"
#include "endpoint/server_state.h"
#include "metrics/prometheus_text.h"
#include "model/faults.h"
#include "profile/format_options.h"
#include "util/json.h"

namespace anthro {
namespace affinity_serve {

// The embedded endpoint's slots: only requests carrying session fields use them, and a
// rehearsal's conversations fill about a tenth.
constexpr std::size_t kEmbeddedSlots = 256;

ProfileId served_id() { return session_affinity_id(); }

// What an endpoint emulating the instance keeps (ServerState::formats), behind a shared_ptr:
// std::any copies, the slots do not.
struct Instance {
  Instance(const AffinityConfig& config, std::uint64_t seed) : slots(config), rng(seed) {}
  SessionSlots slots;   // loop thread only; its gauges from any thread
  std::mt19937_64 rng;  // the session-migrate fault; loop thread only
};

Instance* instance(const ServerState& state) {
  auto it = state.formats.find(served_id());
  if (it == state.formats.end()) return nullptr;
  const auto* held = std::any_cast<std::shared_ptr<Instance>>(&it->second);
  return held ? held->get() : nullptr;
}

// The slot-gc fault: every new session's slot is won by a collection of MS.
AffinityConfig with_faults(AffinityConfig a, const Faults& faults) {
  if (auto ms = own_fault_number(faults, "slot-gc")) {
    a.collect_for_every_new_session = true;
    a.gc_pause_ms = *ms;
  }
  return a;
}

std::any make_instance(const EndpointConfig& config) {
  const AffinityConfig* options = emulated_affinity(config);
  if (!options || !options->enabled()) return {};
  return std::make_shared<Instance>(with_faults(*options, config.model.faults), config.model.seed);
}

// A served request's part of its reply: its session, the messages the response's Context-Hash
// starts from, the tokens counted so far.
class SessionFields : public ReplyFields {
 public:
  SessionFields(std::string session_id, nlohmann::ordered_json messages, HashSerialisation how, bool estimated)
      : session_id_(std::move(session_id)), messages_(std::move(messages)), how_(how), estimated_(estimated) {}

  ReplyHeaders head(std::string_view text, bool streamed) const override {
    ReplyHeaders fields{{"x-anthropic-session-id", session_id_},
                        {"x-anthropic-context-hash", response_context_hash(messages_, text, how_)}};
    if (streamed) fields.emplace_back("trailer", "X-Anthropic-Token-Count");
    return fields;
  }

  std::string chunk_extension(std::string_view text, std::size_t tokens) override {
    // The token-count-estimate fault counts a chunk's text as ⌈bytes/4⌉ tokens.
    const std::uint64_t counted = estimated_ ? (text.size() + 3) / 4 : tokens;
    total_ += counted;
    return "x-anthropic-token-count=" + std::to_string(counted);
  }

  ReplyHeaders trailer() const override { return {{"X-Anthropic-Token-Count", std::to_string(total_)}}; }

 private:
  std::string session_id_;
  nlohmann::ordered_json messages_;
  HashSerialisation how_;  // Python's under the hash-python fault
  bool estimated_;         // the token-count-estimate fault
  std::uint64_t total_ = 0;
};

std::optional<std::string> header_if_present(const net::HttpRequest& req, const std::string& name) {
  auto it = req.headers.find(name);
  return it == req.headers.end() ? std::nullopt : std::optional<std::string>(it->second);
}

// Seconds on the steady clock, for the sessions' lifetimes.
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Whether the instance treats the request as a session's: it carries a session field that
// reached the instance (the strip-affinity-headers fault is a hop that removes them, so the
// request takes the old, sessionless path and its reply carries none).
bool carries_session(const net::HttpRequest& req, const Faults& faults) {
  if (faults.own.contains("strip-affinity-headers")) return false;
  return req.headers.count("x-anthropic-session-id") || req.headers.count("x-anthropic-context-hash");
}

// The instance's answer to a session it does not serve: moved (409, the id to resend under) or
// a Context-Hash not its own (400, the hash it expected).
RequestJudgement refused(const net::HttpRequest& req, const AffinityDecision& d) {
  using Refusal = RequestJudgement::Refusal;
  RequestJudgement j;
  if (d.verdict == AffinityVerdict::Migrated)
    j.refusal = Refusal{409, "session_migrated",
                        "session " + req.header("x-anthropic-session-id") +
                            " migrated or its context slot was collected: resend the whole history as " + d.session_id,
                        {{"x-anthropic-new-session-id", d.session_id}}};
  else
    j.refusal = Refusal{400, "invalid_context_hash",
                        "X-Anthropic-Context-Hash " + req.header("x-anthropic-context-hash") + " is not the server's " +
                            d.expected_hash + " of the last 3 messages",
                        {{"x-anthropic-expected-hash", d.expected_hash}}};
  return j;
}

RequestJudgement judge(const net::HttpRequest& req, ServerState& state) {
  Instance* emulated = instance(state);
  const Faults& faults = state.config.model.faults;
  if (!emulated || !carries_session(req, faults)) return {};
  auto body = parse_ordered_json(req.body);  // parsed before, by the API
  nlohmann::ordered_json messages = body && body->is_object() ? body->value("messages", nlohmann::ordered_json::array())
                                                              : nlohmann::ordered_json::array();
  const HashSerialisation how =
      faults.own.contains("hash-python") ? HashSerialisation::PythonDefault : HashSerialisation::Canonical;
  AffinityDecision d = emulated->slots.admit(header_if_present(req, "x-anthropic-session-id"),
                                             header_if_present(req, "x-anthropic-context-hash"),
                                             context_hash(messages, how), messages.size() > 1, steady_seconds());
  if (d.verdict != AffinityVerdict::Serve) return refused(req, d);
  RequestJudgement j;
  j.fields = std::make_unique<SessionFields>(d.session_id, std::move(messages), how,
                                             faults.own.contains("token-count-estimate"));
  j.extra_ttft_ms = d.extra_ttft_ms;
  // The session-migrate fault: the instance gives the slot up once this reply is written, so
  // the session's next request finds it gone.
  const double migrate = own_fault_rate(faults, "session-migrate");
  if (migrate > 0 && std::uniform_real_distribution<double>(0, 1)(emulated->rng) < migrate)
    emulated->slots.evict(d.session_id);
  return j;
}

std::string slot_gauges(const ServerState& state) {
  const Instance* emulated = instance(state);
  if (!emulated) return {};
  PrometheusText out;
  auto gauge = [&](const char* name, MetricType type, const char* help, double value) {
    out.family(name, type, help);
    out.sample(name, value);
  };
  gauge("anthropic_gpu_context_slots_used", MetricType::Gauge, "Context slots holding a session.",
        static_cast<double>(emulated->slots.used()));
  gauge("anthropic_gpu_context_slots", MetricType::Gauge, "Context slots of the instance.",
        static_cast<double>(emulated->slots.config().slot_count));
  gauge("anthropic_gpu_context_gc_count", MetricType::Counter,
        "Sessions whose slot was collected (idle, or taken for a new session).",
        static_cast<double>(emulated->slots.gc_count()));
  return out.text();
}

std::optional<std::string> no_argument(std::string_view) { return std::nullopt; }

}  // namespace affinity_serve

// Its faults are registered before any other format's, so the fault list reads as it always did.
void register_served_session_affinity() {
  using namespace affinity_serve;
  register_fault("session-migrate", "RATE", check_fault_rate);
  register_fault("hash-python", "", no_argument);
  register_fault("slot-gc", "MS", check_fault_ms);
  register_fault("strip-affinity-headers", "", no_argument);
  register_fault("token-count-estimate", "", no_argument);
  register_http_route(served_id(), HttpRoute{.make_state = make_instance, .takes = nullptr, .serve = nullptr,
                                             .embedded = [](EndpointConfig& c) { emulate_affinity(c).slot_count = kEmbeddedSlots; },
                                             .judge = judge, .metrics = slot_gauges});
}

AffinityConfig& emulate_affinity(EndpointConfig& config) {
  return use_format_options<AffinityConfig>(config.riders, affinity_serve::served_id());
}

const AffinityConfig* emulated_affinity(const EndpointConfig& config) {
  return format_options<AffinityConfig>(config.riders, affinity_serve::served_id());
}

}  // namespace anthro
