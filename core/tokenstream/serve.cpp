// The token stream as the local endpoint serves it (endpoint/http_rider.h): GET /v1/vocab, the
// passthrough on POST /v1/messages in its media type (headers judged by admission.h, the reply's
// ids as u32 LE, one chunk per token as the model makes it), and the front ends' reports on
// POST /v1/client-errors. A request in its media type to an endpoint not serving it is a 415.
#include <algorithm>
#include <chrono>

#include "endpoint/http_rider.h"
#include "endpoint/server_state.h"
#include "http/messages_api.h"
#include "model/distribution.h"
#include "model/faults.h"
#include "profile/format_options.h"
#include "tokenstream/admission.h"
#include "tokenstream/client_report.h"
#include "tokenstream/contexts.h"
#include "tokenstream/format.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"

namespace anthro {
namespace {

using ServedHeaders = std::vector<std::pair<std::string, std::string>>;

// What an endpoint serving the token stream keeps (ServerState::formats); loop thread only.
struct TokenStreamServed {
  std::optional<std::uint32_t> tenant;
  TokenStreamVocabulary vocabulary{model_token_texts()};
  TokenStreamContexts contexts;
};

TokenStreamServed* served(ServerState& state) {
  auto it = state.formats.find(token_stream_id());
  return it == state.formats.end() ? nullptr : std::any_cast<TokenStreamServed>(&it->second);
}

std::any make_served(const EndpointConfig& config) {
  const TokenStreamServerOptions* options = token_stream_server(config);
  if (!options) return {};
  TokenStreamServed s;
  s.tenant = options->tenant;
  return s;
}

bool takes(const net::HttpRequest& req, std::string_view path, const ServerState& state) {
  const bool serving = token_stream_server(state.config) != nullptr;
  if (path == kTokenStreamVocabPath || path == kClientErrorsPath) return serving;
  auto type = req.headers.find("content-type");
  return path == kMessagesPath && req.method == "POST" && type != req.headers.end() && selects_token_stream(type->second);
}

// Seconds on the steady clock, for the contexts' lifetimes.
double steady_seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The token stream's own faults (ts-quota, ts-degraded, ts-failover, registered below) as one
// request meets them: each its own decision of the model's (SimulatedModel::decision_rng),
// numbered after the model's seven.
struct TokenStreamFaultPlan {
  std::optional<std::uint32_t> quota_retry_after_ms;  // a 429 whose Retry-After (ms) says the tenant's quota is spent
  std::optional<std::uint32_t> degraded_from_token;   // the first degraded token
  bool failover = false;                              // a 503 with X-Claude-Failover: true
};
enum class TokenStreamDecision : std::uint64_t { Quota = 8, Degraded, Failover };

TokenStreamFaultPlan plan_token_stream_faults(const SimulatedModel& model, const ReplyRequest& request, std::size_t tokens) {
  const Faults& faults = model.config().faults;
  TokenStreamFaultPlan p;
  auto decide = [&](TokenStreamDecision d, const char* fault, auto then) {
    auto rng = model.decision_rng(request, static_cast<std::uint64_t>(d));
    if (unit_uniform(rng) < own_fault_rate(faults, fault)) then(rng);
  };
  decide(TokenStreamDecision::Quota, "ts-quota", [&](auto& rng) { p.quota_retry_after_ms = 1001 + static_cast<std::uint32_t>(rng() % 4000); });
  decide(TokenStreamDecision::Degraded, "ts-degraded",
         [&](auto& rng) { p.degraded_from_token = static_cast<std::uint32_t>(rng() % std::max<std::size_t>(tokens, 1)); });
  decide(TokenStreamDecision::Failover, "ts-failover", [&](auto&) { p.failover = true; });
  return p;
}

// A reply's token ids: each token's vocabulary id, the degraded marker before the first
// degraded token.
std::vector<std::uint32_t> token_ids(const ReplyPlan& plan, std::optional<std::uint32_t> degraded_from_token,
                                     const TokenStreamVocabulary& vocabulary) {
  std::vector<std::uint32_t> ids;
  ids.reserve(plan.tokens.size() + 1);
  for (std::size_t i = 0; i < plan.tokens.size(); ++i) {
    if (degraded_from_token == i) ids.push_back(kTokenStreamDegraded);
    auto id = vocabulary.id_of(plan.tokens[i].text);
    if (!id) throw std::logic_error("token text outside the model's vocabulary: " + plan.tokens[i].text);
    ids.push_back(*id);
  }
  return ids;
}

std::string id_bytes(std::uint32_t id) {
  Bytes b;
  append_token_stream_id(b, id);
  return std::string(b.begin(), b.end());
}

// One request's answer, through the connection's writer.
class TokenStreamResponder {
 public:
  TokenStreamResponder(HttpRouteCall call, TokenStreamServed* served) : call_(call), served_(served) {}

  net::awaitable<bool> serve(const net::HttpRequest& req) {
    std::string path = req.target.substr(0, req.target.find('?'));
    if (path == kTokenStreamVocabPath) co_return co_await serve_vocabulary(req);
    if (path == kClientErrorsPath) co_return co_await take_client_report(req);
    if (served_) co_return co_await serve_token_stream(req);
    co_return co_await send_error(415, "invalid_request_error",
                                  std::string(kTokenStreamMediaType) + " is not served here (endpoint --token-stream)");
  }

 private:
  net::awaitable<bool> send_error(int status, std::string type, std::string message, ServedHeaders extra = {}) {
    bool ok = co_await call_.out.respond(status, "application/json", error_json(type, message), std::move(extra));
    co_return ok;
  }

  net::awaitable<bool> serve_vocabulary(const net::HttpRequest& req) {
    if (req.method != "GET")
      co_return co_await send_error(405, "invalid_request_error", "use GET on " + std::string(kTokenStreamVocabPath));
    ServedHeaders none;  // (a named variable: GCC 12 miscompiles a braced list inside co_await)
    co_return co_await call_.out.respond(200, "application/json", served_->vocabulary.to_json(), std::move(none));
  }

  // The passthrough: the request's headers judged, then the reply's token ids as u32 LE, one
  // chunk per token as the model makes it (or the whole body at once when not streamed).
  net::awaitable<bool> serve_token_stream(const net::HttpRequest& req) {
    ServerState& state = call_.state;
    TokenStreamAdmission admission =
        admit_token_stream_request(read_token_stream_headers(req.headers, req.repeated), served_->tenant);
    if (admission.verdict != TokenStreamVerdict::Accept) {
      const char* type = admission.status() == 401 ? "authentication_error" : "invalid_request_error";
      co_return co_await send_error(admission.status(), type, admission.reason);
    }
    auto parsed = parse_messages_request(req.body);
    if (!parsed) co_return co_await send_error(400, "invalid_request_error", parsed.error().detail);
    std::string prompt = prompt_text(parsed->system, parsed->messages);
    if (auto refusal = refuse_request(state.config, parsed->model, prompt))
      co_return co_await send_error(refusal->code, refusal->type, refusal->message);
    served_->contexts.touch(admission.context, steady_seconds_now());
    // An empty conversation only keeps the context alive (the token stream's keep-alive).
    ServedHeaders none;
    if (parsed->messages.empty()) co_return co_await call_.out.respond(200, kTokenStreamMediaType, "", std::move(none));
    std::uint32_t max_tokens = parsed->max_tokens.value_or(state.config.default_max_tokens);
    const ReplyRequest request{parsed->model, prompt, max_tokens, state.request_number++, {}};
    ReplyPlan plan = state.http_model.plan(request);
    faults_ = plan_token_stream_faults(state.http_model, request, plan.tokens.size());
    if (faults_.quota_retry_after_ms || plan.overload) {
      // Token stream spec §4.4: Retry-After in milliseconds; above 1000 the quota is spent.
      std::uint32_t ms = faults_.quota_retry_after_ms.value_or(plan.retry_after_ms);
      ServedHeaders retry{{"retry-after", std::to_string(ms)}};
      co_return co_await send_error(429, "rate_limit_error",
                                    faults_.quota_retry_after_ms ? "the tenant's quota is spent" : "GPU memory full",
                                    std::move(retry));
    }
    if (faults_.failover) {
      // Token stream spec §4.4: already served by a standby node; the client keeps its connection.
      ServedHeaders failed_over{{"x-claude-failover", "true"}};
      co_return co_await send_error(503, "api_error", "the GPU node failed; this connection now uses a standby",
                                    std::move(failed_over));
    }
    co_await net::sleep_for(call_.timer, (plan.queue_ms + plan.context_wait_ms + plan.prefill_ms) / 1000.0);
    if (admission.streaming) co_return co_await stream_token_ids(plan);
    co_return co_await whole_token_ids(plan);
  }

  // A front end's report that it read the token stream as text (client_report.h).
  net::awaitable<bool> take_client_report(const net::HttpRequest& req) {
    if (req.method != "POST") co_return co_await send_error(405, "invalid_request_error", "use POST on " + std::string(kClientErrorsPath));
    if (!is_text_decoding_report(req.body))
      co_return co_await send_error(400, "invalid_request_error",
                                    "expected {\"error\":{\"type\":\"json_parse_error\",...},\"content_type\":\"" +
                                        std::string(kTokenStreamMediaType) + "\"}");
    ++call_.state.counters.client_error_reports;
    ServedHeaders none;
    co_return co_await call_.out.respond(204, "", "", std::move(none));
  }

  // Sleeps until token i is due.
  net::awaitable<void> pace(TokenSchedule& schedule, std::size_t i) {
    if (auto due = schedule.due(i, TokenSchedule::Clock::now())) co_await net::sleep_until(call_.timer, *due);
  }

  net::awaitable<bool> whole_token_ids(const ReplyPlan& plan) {
    std::string body;
    TokenSchedule schedule(plan);
    for (std::size_t i = 0; i < plan.tokens.size(); ++i) co_await pace(schedule, i);
    for (auto id : token_ids(plan, faults_.degraded_from_token, served_->vocabulary)) body += id_bytes(id);
    // Complete before it is sent, so the announcement goes in the headers.
    ServedHeaders headers;
    if (faults_.degraded_from_token) headers.emplace_back("x-claude-backpressure", "degraded");
    co_return co_await call_.out.respond(200, kTokenStreamMediaType, std::move(body), std::move(headers));
  }

  net::awaitable<bool> stream_token_ids(const ReplyPlan& plan) {
    ServedHeaders headers{{"content-type", kTokenStreamMediaType}};
    const bool degraded_at_start = faults_.degraded_from_token == 0u;
    const bool degraded_later = faults_.degraded_from_token && !degraded_at_start;
    if (degraded_at_start) headers.emplace_back("x-claude-backpressure", "degraded");
    if (degraded_later) headers.emplace_back("trailer", "X-Claude-Backpressure");
    bool ok = co_await call_.out.start(200, std::move(headers));
    if (!ok) co_return false;
    std::vector<std::uint32_t> ids = token_ids(plan, faults_.degraded_from_token, served_->vocabulary);
    std::size_t next = 0;
    TokenSchedule schedule(plan);
    for (std::size_t i = 0; i < plan.tokens.size(); ++i) {
      co_await pace(schedule, i);
      std::string chunk = id_bytes(ids[next++]);
      if (faults_.degraded_from_token == i) chunk += id_bytes(ids[next++]);  // the marker, then the token
      ok = co_await call_.out.piece(std::move(chunk), std::string());
      if (!ok) co_return false;
      if (plan.reset_after_token && i + 1 >= *plan.reset_after_token) {
        call_.out.reset();
        co_return false;
      }
    }
    ServedHeaders trailers;
    if (degraded_later) trailers.emplace_back("X-Claude-Backpressure", "degraded");
    co_return co_await call_.out.end(std::move(trailers));
  }

  HttpRouteCall call_;
  TokenStreamServed* served_;  // null: the endpoint does not serve the token stream
  TokenStreamFaultPlan faults_;  // the request's, once its plan is made
};

net::awaitable<bool> serve(const net::HttpRequest& req, HttpRouteCall call) {
  TokenStreamResponder responder(call, served(call.state));
  co_return co_await responder.serve(req);
}

}  // namespace

void register_served_token_stream() {
  // Embedded, it is served: only requests asking for its media type get it.
  register_http_route(token_stream_id(), HttpRoute{make_served, takes, serve, [](EndpointConfig& c) { serve_token_stream(c); }});
  for (const char* fault : {"ts-degraded", "ts-quota", "ts-failover"}) register_fault(fault, "RATE", check_fault_rate);
}

TokenStreamServerOptions& serve_token_stream(EndpointConfig& config) {
  return use_format_options<TokenStreamServerOptions>(config.riders, token_stream_id());
}

const TokenStreamServerOptions* token_stream_server(const EndpointConfig& config) {
  return format_options<TokenStreamServerOptions>(config.riders, token_stream_id());
}

}  // namespace anthro
