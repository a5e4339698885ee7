// The HTTP baseline requests of a session: the Messages API or chat completions, with SSE
// events timed at the socket read that delivered them.
#include <algorithm>

#include "http/reply_recorder.h"
#include "net/http_io.h"
#include "session/client.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

// An HTTP/1.1 request: its line, the fields, the body.
std::string http1_request(std::string_view method, std::string_view path, const HttpFields& fields, std::string_view body) {
  std::string out = std::string(method) + " " + std::string(path) + " HTTP/1.1\r\n";
  for (const auto& [name, value] : fields) out += name + ": " + value + "\r\n";
  return out + "\r\n" + std::string(body);
}

PerProfile<LiveHttpRiderFactory>& live_rider_table() {
  static PerProfile<LiveHttpRiderFactory> table("register_live_http_rider");
  return table;
}

// "HTTP/1.1 407 Proxy Authentication Required": the first line of a reply's head.
std::string status_line(const HttpResponseReader& response) {
  const std::string head = response.head_text();
  return head.substr(0, head.find("\r\n"));
}

}  // namespace

const PerProfile<LiveHttpRiderFactory>& live_http_riders() { return live_rider_table(); }

void register_live_http_rider(ProfileId id, LiveHttpRiderFactory make) {
  if (!make) throw std::logic_error("register_live_http_rider: no factory");
  live_rider_table().add(id, make);
}

HttpFields api_content_fields(bool stream) {
  return {{"content-type", "application/json"}, {"accept", stream ? "text/event-stream" : "application/json"}};
}

// The user's headers: each replaces the client's of its name, or is added. A forward proxy's
// credentials go with every request through it.
void SessionClient::add_user_headers(HttpFields& fields) const {
  for (const RequestHeader& h : config_.headers) {
    auto same = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == h.name; });
    if (same != fields.end()) same->second = h.value;
    else fields.emplace_back(h.name, h.value);
  }
  if (forwarding() && !proxy_->server.user.empty()) fields.emplace_back("proxy-authorization", proxy_->server.authorization());
}

bool SessionClient::forwarding() const { return proxy_ && proxy_->way == ProxyWay::Forward; }

// A forward proxy takes the absolute form (RFC 9112 §3.2.2); a server the path alone.
std::string SessionClient::request_target(const std::string& path) const {
  return forwarding() ? "http://" + target_.authority() + path : path;
}

HttpFields SessionClient::content_fields() const {
  if (rider_) return rider_->content_fields();
  return api_content_fields(config_.stream);
}

awaitable<std::optional<SessionClient::SideReply>> SessionClient::side_request(std::string method, std::string path,
                                                                                std::string body, std::string what) {
  HttpFields fields = {{"host", target_.authority()}};
  if (!config_.api_key.empty()) fields.emplace_back("x-api-key", config_.api_key);
  if (!body.empty()) {
    fields.emplace_back("content-type", "application/json");
    fields.emplace_back("content-length", std::to_string(body.size()));
  }
  add_user_headers(fields);
  if (h2_) co_return co_await http2_side_request(method, path, fields, std::move(body), what);
  ++http1_exchanges_;  // a capture numbers it among the connection's requests
  bool sent = co_await write(as_bytes(http1_request(method, request_target(path), fields, body)));
  if (!sent) {
    fail("cannot send " + what + ": " + stream_->error().message());
    co_return std::nullopt;
  }
  HttpResponseReader response;
  SideReply reply;
  std::uint8_t buf[16384];
  while (!response.done()) {
    std::size_t n = co_await read_some(buf, sizeof buf);
    if (n == 0) {
      fail("connection closed during " + what + stream_error());
      co_return std::nullopt;
    }
    if (!response.feed(std::string_view(reinterpret_cast<const char*>(buf), n))) {
      fail(what + ": " + response.error());
      co_return std::nullopt;
    }
    reply.body += response.take_body();
    if (reply.body.size() > HttpReplyRecorder::kMaxKeptBody) {
      fail(what + ": more than " + std::to_string(HttpReplyRecorder::kMaxKeptBody) + " bytes");
      co_return std::nullopt;
    }
  }
  reply.status = response.status();
  co_return reply;
}

awaitable<bool> SessionClient::http_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options) {
  bool messages = target_.api == HttpApi::Messages;
  RequestSpec spec = request_spec(options);
  spec.api_key.reset();  // the key travels in a header, never in the body
  if (rider_) {
    rider_->messages(spec.messages);
    bool ready = co_await rider_->prepare(*this);
    if (!ready) {
      rec.ended(RequestEnd::ConnectionClosed, result_.error.value_or("the request before it failed"));
      co_return false;
    }
  }
  std::string body = messages ? messages_request_json(spec) : chat_completions_request_json(spec);
  HttpFields fields = {{"host", target_.authority()}};
  for (auto& f : content_fields()) fields.push_back(std::move(f));
  fields.emplace_back("content-length", std::to_string(body.size()));
  if (messages) fields.emplace_back("anthropic-version", kAnthropicVersion);
  if (!config_.api_key.empty()) {
    if (messages) fields.emplace_back("x-api-key", config_.api_key);
    else fields.emplace_back("authorization", "Bearer " + config_.api_key);
  }
  add_user_headers(fields);
  if (rider_) rider_->request(r, body, fields);
  RequestMeta meta = meta_of_request(body);
  // A chat-completions body carries no metadata: a probe is known from the options that made it.
  if (!meta.probe && options.metadata_json) meta.probe = probe_of_metadata(*options.metadata_json);
  rec.request_sent(steady_now_s(), meta);  // as the write starts (see client_anthro.cpp)
  if (h2_) co_return co_await http2_exchange(r, rec, options, fields, std::move(body), messages);
  r.stream_id = ++http1_exchanges_;
  bool sent = co_await write(as_bytes(http1_request("POST", request_target(target_.path), fields, body)));
  if (!sent) {
    if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
    else rec.ended(RequestEnd::SendFailed, "cannot send the request: " + stream_->error().message());
    co_return false;
  }

  HttpResponseReader response;
  HttpReplyRecorder reply(r, rec, messages, config_.stream);
  reply.on_text = config_.on_text;
  std::unique_ptr<RiderReply> rider = rider_reply();
  const RiderReply::HeaderLookup header = [&response](const char* name) { return response.header(name); };
  bool head_seen = false, ended_by_close = false;
  double t = 0;
  std::uint8_t buf[16384];
  while (!response.done()) {
    std::size_t n = co_await read_some(buf, sizeof buf);
    t = steady_now_s();  // stamped at the socket read, before any parsing
    if (n == 0) {
      // A body sent with neither a length nor chunks ends with the connection (RFC 9112 §6.3):
      // some servers and gateways stream SSE so.
      ended_by_close = !closed_for_cancel_ && head_seen && response.feed_eof();
      if (ended_by_close) break;
      if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
      else rec.ended(RequestEnd::ConnectionClosed, "connection closed before the response ended" + stream_error());
      co_return false;
    }
    rec.first_byte(t);
    if (!response.feed(std::string_view(reinterpret_cast<const char*>(buf), n))) {
      rec.ended(RequestEnd::ProtocolError, response.error());
      co_return false;
    }
    if (!response.head_done()) continue;
    if (!head_seen && forwarding() && response.status() == 407) {
      // The proxy's refusal, not the server's answer: the session cannot reach its target.
      rec.ended(RequestEnd::Error, "proxy authentication required");
      co_return fail("proxy " + proxy_->server.url() + " refused the request: " + status_line(response));
    }
    if (!head_seen)
      reply.head(response.status(), header, body_reader(rider));
    for (const auto& chunk : response.take_chunk_extensions())  // (always taken: they are bounded while held)
      if (rider) rider->chunk_extensions(chunk);
    head_seen = true;
    reply.body(response.take_body(), t);
    if (closed_at_cancel_point(rec, options)) co_return false;
  }
  const HttpFields trailers = response.trailers();
  reply.trailers(trailers);
  reply.end(t);
  reply_read(rider.get(), response.status(), header, trailers, reply);
  if (!co_await after_reply(r, rider.get())) co_return false;
  if (response.status() != 200) co_return response.header("connection") != "close" && !ended_by_close;
  co_return r.end == RequestEnd::Response && !ended_by_close;  // a closed connection takes no next request
}

bool SessionClient::closed_at_cancel_point(RequestRecorder& rec, const RequestOptions& options) {
  if (!options.cancel_after_tokens || rec.tokens_seen() < *options.cancel_after_tokens) return false;
  // HTTP has no CANCEL frame: closing the connection is how a client gives up.
  rec.cancel_sent(steady_now_s());
  rec.ended(RequestEnd::ClientClosed, "closed by the client after " + std::to_string(rec.tokens_seen()) + " tokens");
  stream_->close();
  return true;
}

RiderReply* SessionClient::body_reader(const std::unique_ptr<RiderReply>& rider) {
  return rider && !rider->fields_only() ? rider.get() : nullptr;
}

void SessionClient::reply_read(RiderReply* rider, int status, const RiderReply::HeaderLookup& header,
                               const std::vector<std::pair<std::string, std::string>>& trailers, HttpReplyRecorder& reply) {
  if (rider && rider->fields_only()) rider->finished(status, header, trailers, reply);
}

// What the client does once a reply was read: what its rider does next (a report, or the same
// request again). False: the session cannot go on.
awaitable<bool> SessionClient::after_reply(RequestResult& r, RiderReply* reader) {
  if (!reader) co_return true;
  const RiderNext next = co_await rider_->replied(r, *reader, *this);
  resend_pending_ = next == RiderNext::SendAgain;
  co_return next != RiderNext::Stop;
}

}  // namespace anthro
