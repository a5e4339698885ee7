// The HTTP baseline (spec §9) on the simulated model: the Anthropic Messages API and the
// OpenAI-compatible chat completions, JSON or SSE, over TLS (ALPN http/1.1) or cleartext.
#include <chrono>
#include <ctime>

#include "endpoint/reply_writer.h"
#include "endpoint/server_state.h"
#include "http/messages_api.h"
#include "metrics/request_result.h"
#include "net/deadline.h"
#include "net/http_io.h"
#include "util/json.h"

namespace anthro {

using namespace net;
using Headers = std::vector<std::pair<std::string, std::string>>;

namespace {

enum class Api { Messages, ChatCompletions };

PerProfile<HttpRoute>& http_route_table() {
  static PerProfile<HttpRoute> table("register_http_route");
  return table;
}

struct Reply {
  Api api;
  RequestSpec request;
  ReplyPlan plan;
  std::string id;
  bool include_usage = false;
  std::vector<std::unique_ptr<ReplyFields>> fields;  // the riders' parts (HttpRoute::judge)
};

// `headers`, then the riders' fields of the reply's head, which know the text the plan will play.
Headers with_rider_fields(Headers headers, const Reply& r, bool streamed) {
  if (r.fields.empty()) return headers;
  std::string text;
  for (const auto& t : r.plan.tokens) text += t.text;
  for (const auto& f : r.fields)
    for (auto& h : f->head(text, streamed)) headers.push_back(std::move(h));
  return headers;
}

// A chunk's extensions from the riders that have one, joined as HTTP/1.1 writes several.
std::string rider_extension(const Reply& r, std::string_view text, std::size_t tokens) {
  std::string out;
  for (const auto& f : r.fields) {
    std::string e = f->chunk_extension(text, tokens);
    if (!e.empty()) out += (out.empty() ? "" : ";") + e;
  }
  return out;
}

std::string error_body(Api api, std::string_view type, std::string_view message) {
  return api == Api::Messages ? error_json(type, message) : chat_completions_error_json(type, message);
}

// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive,
// RFC 7235 §2.1), or nullopt for another scheme or a value that is not one token.
std::optional<std::string> bearer(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() || authorization[scheme.size()] != ' ') return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return std::nullopt;
  std::string_view token = authorization.substr(scheme.size());
  token.remove_prefix(std::min(token.find_first_not_of(' '), token.size()));
  if (token.empty() || token.find_first_of(" \t,") != std::string_view::npos) return std::nullopt;
  return std::string(token);
}

enum class Credentials { Accepted, Refused, Repeated };

// Each credential given (x-api-key, Authorization: Bearer) must be the key, and at least one
// given; either header twice is refused rather than one of them picked.
Credentials check_credentials(const HttpRequest& req, const std::string& want) {
  if (want.empty()) return Credentials::Accepted;
  if (req.repeated.count("x-api-key") || req.repeated.count("authorization")) return Credentials::Repeated;
  bool given = false;
  if (auto it = req.headers.find("x-api-key"); it != req.headers.end()) {
    if (!credential_accepted(it->second, want)) return Credentials::Refused;
    given = true;
  }
  if (auto it = req.headers.find("authorization"); it != req.headers.end()) {
    if (!credential_accepted(bearer(it->second), want)) return Credentials::Refused;
    given = true;
  }
  return given ? Credentials::Accepted : Credentials::Refused;
}

// The API's error type for a status (Anthropic's list; chat completions reads it alike).
const char* error_type_of(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503:
    case 529: return "overloaded_error";
    default: return "api_error";
  }
}

Headers retry_headers(std::uint32_t ms) {
  return {{"retry-after", std::to_string((ms + 999) / 1000)}, {"retry-after-ms", std::to_string(ms)}};
}

// The reply to one request, whichever HTTP version carries it (ReplyWriter).
class Responder {
 public:
  Responder(ServerState& state, ReplyWriter& out, asio::steady_timer& timer) : state_(state), out_(out), timer_(timer) {}

  awaitable<bool> send_error(Api api, int status, std::string type, std::string message, Headers extra = {}) {
    bool ok = co_await out_.respond(status, "application/json", error_body(api, type, message), std::move(extra));
    co_return ok;
  }

  awaitable<bool> serve(const HttpRequest& req) {
    std::string path = req.target.substr(0, req.target.find('?'));
    Api api = path == kChatCompletionsPath ? Api::ChatCompletions : Api::Messages;
    // Every route behind the one key, unknown paths too: a 404 would tell a stranger what is served.
    switch (check_credentials(req, state_.config.required_api_key)) {
      case Credentials::Accepted: break;
      case Credentials::Refused:
        co_return co_await send_error(api, 401, "authentication_error", "x-api-key or Authorization: Bearer missing or wrong");
      case Credentials::Repeated:
        co_return co_await send_error(api, 400, "invalid_request_error", "duplicate x-api-key or authorization header");
    }
    // A format riding on the API answers its own requests (endpoint/http_rider.h).
    for (const auto& [id, route] : http_routes().all()) {
      if (!route.takes || !route.takes(req, path, state_)) continue;
      HttpRouteCall call{state_, out_, timer_};  // (named: GCC 12 miscompiles a braced list inside co_await)
      co_return co_await route.serve(req, call);
    }
    if (path != kMessagesPath && path != kChatCompletionsPath)
      co_return co_await send_error(api, 404, "not_found_error", "no route for " + path);
    if (req.method != "POST")
      co_return co_await send_error(api, 405, "invalid_request_error", "use POST on " + path);
    if (api == Api::Messages && req.header("anthropic-version").empty())
      co_return co_await send_error(api, 400, "invalid_request_error", "anthropic-version: header is required");
    Reply reply{api, {}, {}, {}, false, {}};
    auto parsed = api == Api::Messages ? parse_messages_request(req.body)
                                       : parse_chat_completions_request(req.body, &reply.include_usage);
    if (!parsed) co_return co_await send_error(api, 400, "invalid_request_error", parsed.error().detail);
    reply.request = std::move(*parsed);
    std::string prompt = prompt_text(reply.request.system, reply.request.messages);
    if (auto refusal = refuse_request(state_.config, reply.request.model, prompt))
      co_return co_await send_error(api, refusal->code, refusal->type, refusal->message);
    double rider_ms = 0;
    if (api == Api::Messages)
      if (auto refusal = judge_by_riders(req, reply, rider_ms))
        co_return co_await send_error(api, refusal->status, refusal->type, refusal->message, std::move(refusal->headers));
    std::uint32_t max_tokens = reply.request.max_tokens.value_or(state_.config.default_max_tokens);
    ReplyRequest planned{reply.request.model, prompt, max_tokens, state_.request_number++,
                         state_.replay ? meta_of_request(req.body).probe : std::nullopt};
    reply.plan = state_.plan(ProfileId::Http, state_.http_model, planned);
    reply.id = (api == Api::Messages ? "msg_" : "chatcmpl-") + std::to_string(state_.counters.http_requests.load());
    if (reply.plan.overload) {
      // (A named variable: GCC 12 miscompiles a braced list inside co_await.)
      Headers retry = retry_headers(reply.plan.retry_after_ms);
      co_return co_await send_error(api, 429, "rate_limit_error", "overloaded", std::move(retry));
    }
    co_await sleep_for(timer_, (reply.plan.queue_ms + reply.plan.context_wait_ms + reply.plan.prefill_ms + rider_ms) / 1000.0);
    if (reply.plan.error_due(0)) co_return co_await send_planned_error(api, *reply.plan.error);
    bool sent = false;
    if (reply.request.stream) sent = co_await stream_reply(reply);
    else sent = co_await whole_reply(reply);
    co_return sent;
  }

  // A replayed stream's error in place of the reply, with its retry headers when it had some.
  awaitable<bool> send_planned_error(Api api, const ReplyPlan::Error& e) {
    Headers retry = e.retry_after_ms ? retry_headers(e.retry_after_ms) : Headers();
    co_return co_await send_error(api, e.code, error_type_of(e.code), e.message, std::move(retry));
  }

  // The riders that add to the API's own replies judge the request (HttpRoute::judge): the first
  // refusal answers it; each part of theirs joins the reply, their waits its first token's.
  std::optional<RequestJudgement::Refusal> judge_by_riders(const HttpRequest& req, Reply& reply, double& extra_ttft_ms) {
    for (const auto& [id, route] : http_routes().all()) {
      if (!route.judge) continue;
      RequestJudgement j = route.judge(req, state_);
      if (j.refusal) return std::move(j.refusal);
      if (j.fields) reply.fields.push_back(std::move(j.fields));
      extra_ttft_ms += j.extra_ttft_ms;
    }
    return std::nullopt;
  }

  // Sleeps until token i is due.
  awaitable<void> pace(TokenSchedule& schedule, std::size_t i) {
    if (auto due = schedule.due(i, TokenSchedule::Clock::now())) co_await sleep_until(timer_, *due);
  }

  awaitable<bool> whole_reply(const Reply& r) {
    std::string text;
    TokenSchedule schedule(r.plan);
    for (std::size_t i = 0; i < r.plan.tokens.size() && !r.plan.error_due(i); ++i) {
      co_await pace(schedule, i);
      text += r.plan.tokens[i].text;
    }
    if (r.plan.error_due(r.plan.tokens.size())) co_return co_await send_planned_error(r.api, *r.plan.error);
    if (r.plan.reset_due(r.plan.tokens.size())) {
      out_.reset();
      co_return false;
    }
    ResponseSpec spec{r.id, r.request.model, r.plan.stop_reason, text, r.plan.input_tokens,
                      r.plan.tokens.size(), std::nullopt};
    std::string body = r.api == Api::Messages ? messages_response_json(spec)
                                              : chat_completions_response_json(spec, std::time(nullptr));
    Headers fields = with_rider_fields(Headers(), r, false);
    co_return co_await out_.respond(200, "application/json", std::move(body), std::move(fields));
  }

  awaitable<bool> stream_reply(const Reply& r) {
    Headers headers = with_rider_fields({{"content-type", "text/event-stream"}, {"cache-control", "no-cache"}}, r, true);
    AnthropicSseWriter anthropic;
    OpenAiSseWriter openai(r.id, r.request.model, std::time(nullptr), r.include_usage);
    bool messages = r.api == Api::Messages;
    bool ok = co_await out_.start(200, std::move(headers));
    if (!ok) co_return false;
    std::string first = messages ? anthropic.message_start(r.id, r.request.model, r.plan.input_tokens) +
                                       anthropic.content_block_start() + anthropic.ping()
                                 : openai.role_chunk();
    ok = co_await out_.piece(std::move(first), rider_extension(r, "", 0));
    if (!ok) co_return false;
    TokenSchedule schedule(r.plan);
    std::size_t sent = 0;
    for (; sent < r.plan.tokens.size() && !r.plan.error_due(sent); ++sent) {
      std::size_t i = sent;
      co_await pace(schedule, i);
      const std::string& text = r.plan.tokens[i].text;
      std::string chunk = messages ? anthropic.text_delta(text) : openai.text_delta(text);
      ok = co_await out_.piece(std::move(chunk), rider_extension(r, text, 1));
      if (!ok) co_return false;
      if (r.plan.reset_after_token && i + 1 >= *r.plan.reset_after_token) {
        out_.reset();
        co_return false;
      }
    }
    // A replayed stream's own end, when it was not a reply: the API's error event, or a reset.
    if (r.plan.error_due(sent)) {
      std::string event = messages ? anthropic.error(error_type_of(r.plan.error->code), r.plan.error->message)
                                   : openai.error(error_type_of(r.plan.error->code), r.plan.error->message);
      ok = co_await out_.piece(std::move(event), "");
      if (!ok) co_return false;
      Headers no_trailers;  // (named: GCC 12 frees a braced temporary twice inside co_await)
      co_return co_await out_.end(std::move(no_trailers));
    }
    if (r.plan.reset_due(sent)) {
      out_.reset();
      co_return false;
    }
    std::uint64_t n = r.plan.tokens.size();
    std::string tail = messages ? anthropic.content_block_stop() + anthropic.message_delta(r.plan.stop_reason, n) +
                                      anthropic.message_stop()
                                : openai.finish(r.plan.stop_reason) + openai.usage(r.plan.input_tokens, n) + openai.done();
    ok = co_await out_.piece(std::move(tail), rider_extension(r, "", 0));
    if (!ok) co_return false;
    Headers trailers;
    for (const auto& f : r.fields)
      for (auto& h : f->trailer()) trailers.push_back(std::move(h));
    co_return co_await out_.end(std::move(trailers));
  }

  ServerState& state_;
  ReplyWriter& out_;
  asio::steady_timer& timer_;
};

Api api_of(const HttpRequest& req) {
  std::string path = req.target.substr(0, req.target.find('?'));
  return path == kChatCompletionsPath ? Api::ChatCompletions : Api::Messages;
}

// HTTP/1.1: a status line and fields, chunked bodies with extensions and a trailer.
class Http1Writer : public ReplyWriter {
 public:
  Http1Writer(ByteStream& stream, ServerState& state) : stream_(stream), state_(state), send_deadline_(stream) {}

  awaitable<bool> respond(int status, std::string content_type, std::string body, Headers headers) override {
    if (content_type.empty() && body.empty()) co_return co_await send(http_response_head(status, headers));
    co_return co_await send(http_response(status, content_type, body, std::move(headers)));
  }
  awaitable<bool> start(int status, Headers headers) override {
    headers.emplace_back("transfer-encoding", "chunked");
    co_return co_await send(http_response_head(status, headers));
  }
  // Not a coroutine: the send is the caller's to await, one frame fewer per token.
  awaitable<bool> piece(std::string data, std::string extension) override { return send(http_chunk(data, extension)); }
  awaitable<bool> end(Headers trailers) override {
    // (Named first: GCC 12 frees a conditional's temporary twice inside co_await.)
    std::string last = trailers.empty() ? http_chunk("") : http_last_chunk(trailers);
    co_return co_await send(std::move(last));
  }
  void reset() override { stream_.reset(); }
  bool started() const override { return started_; }

  void next_request() { started_ = false; }

  // By value: a coroutine keeps its parameters in its frame, but not what a view points to.
  awaitable<bool> send(std::string bytes) {
    started_ = true;
    bool ok = co_await write_within(stream_, send_deadline_, as_bytes(bytes), state_.config.send_timeout_s);
    if (send_deadline_.expired()) ++state_.counters.timeouts;
    co_return ok;
  }

 private:
  ByteStream& stream_;
  ServerState& state_;
  Deadline send_deadline_;
  bool started_ = false;
};

class HttpConnection {
 public:
  HttpConnection(ByteStream& stream, ServerState& state)
      : stream_(stream), state_(state), timer_(stream.socket().get_executor()), out_(stream, state) {}

  // Serves requests until the peer is done; a throw is reported and answered with a 500 (or,
  // mid-reply, where a status line would corrupt the body, with the close alone).
  awaitable<void> run(Admission admission) {
    auto failure = co_await failure_of(serve_requests(admission));
    if (!failure) co_return;
    state_.log("HTTP connection: internal error: " + *failure);
    if (out_.started()) co_return;
    Headers close{{"connection", "close"}};
    co_await out_.send(http_response(500, "application/json", internal_error_body(request_, *failure), std::move(close)));
  }

 private:
  awaitable<void> serve_requests(Admission admission) {
    std::string pending;
    HttpReadTimeouts timeouts{std::nullopt, state_.config.header_timeout_s, state_.config.body_timeout_s};
    if (admission == Admission::Refuse) timeouts.head_s = timeouts.body_s = refusal_timeout_s(state_.config);
    for (;;) {
      out_.next_request();
      auto read = co_await read_http_request(stream_, pending, kHttpBodyLimit, timeouts);
      if (auto* failure = std::get_if<ReadFailure>(&read)) {
        if (failure->timed_out) ++state_.counters.timeouts;
        if (failure->status) co_await out_.send(http_response(failure->status, "text/plain", failure->detail + "\n"));
        co_return;
      }
      request_ = std::move(std::get<HttpRequest>(read));
      ++state_.counters.http_requests;
      if (admission == Admission::Refuse) {
        co_await refuse_http_request(request_, state_, out_);
        co_await close_gracefully(stream_, refusal_timeout_s(state_.config));
        co_return;
      }
      bool served = co_await answer_http_request(request_, state_, out_, timer_);
      if (!served || !request_.keep_alive) co_return;
      timeouts.wait_s = state_.config.idle_timeout_s;
    }
  }

  ByteStream& stream_;
  ServerState& state_;
  asio::steady_timer timer_;
  Http1Writer out_;
  HttpRequest request_;  // the request being served, for the shape of a 500
};

}  // namespace

const PerProfile<HttpRoute>& http_routes() { return http_route_table(); }

void register_http_route(ProfileId id, HttpRoute route) {
  // Its own requests need both takes and serve; a rider needs them or judge.
  const bool answers = route.takes && route.serve, adds = route.judge != nullptr;
  if (!route.make_state || !route.takes != !route.serve || (!answers && !adds))
    throw std::logic_error("register_http_route: a part is missing");
  http_route_table().add(id, route);
}

awaitable<bool> answer_http_request(const HttpRequest& req, ServerState& state, ReplyWriter& out, asio::steady_timer& timer) {
  Responder responder(state, out, timer);
  co_return co_await responder.serve(req);
}

awaitable<void> refuse_http_request(const HttpRequest& req, ServerState& state, ReplyWriter& out) {
  Headers headers = retry_headers(kRefusalRetryMs);
  headers.emplace_back("connection", "close");
  co_await out.respond(503, "application/json", error_body(api_of(req), "overloaded_error", refusal_text(state.config)),
                       std::move(headers));
}

std::string internal_error_body(const HttpRequest& req, const std::string& failure) {
  return error_body(api_of(req), "api_error", "internal error: " + failure);
}

awaitable<void> serve_http(std::unique_ptr<ByteStream> stream, ServerState& state, Admission admission) {
  HttpConnection connection(*stream, state);
  co_await connection.run(admission);
  stream->close();
}

awaitable<void> serve_metrics(std::unique_ptr<ByteStream> stream, ServerState& state) {
  std::string pending;
  HttpReadTimeouts timeouts{std::nullopt, state.config.header_timeout_s, state.config.body_timeout_s};
  for (;;) {
    auto read = co_await read_http_request(*stream, pending, 0, timeouts);
    if (auto* failure = std::get_if<ReadFailure>(&read)) {
      if (failure->timed_out) ++state.counters.timeouts;
      break;
    }
    timeouts.wait_s = state.config.idle_timeout_s;
    auto& req = std::get<HttpRequest>(read);
    std::string response = req.target == "/metrics"
                               ? http_response(200, "text/plain; version=0.0.4", metrics_text(state))
                               : http_response(404, "text/plain", "try /metrics\n");
    Deadline send_deadline(*stream);
    bool ok = co_await write_within(*stream, send_deadline, as_bytes(response), state.config.send_timeout_s);
    if (send_deadline.expired()) ++state.counters.timeouts;
    if (!ok || !req.keep_alive) break;
  }
  stream->close();
}

}  // namespace anthro
