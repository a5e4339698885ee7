// The HTTP rider seam, as the endpoint serves it: a format riding on the HTTP Messages API
// (http/rider.h) registers which requests are its (its media type on /v1/messages, paths of its
// own) and how it answers one, through the connection's ReplyWriter, HTTP/1.1 and HTTP/2 alike;
// or, when it only adds fields to the API's own replies, how it judges a request before the API
// serves it and what it adds to the reply. Its state lives in ServerState::formats under its
// profile id (make_state, once per start).
#pragma once

#include <any>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "endpoint/reply_writer.h"
#include "net/asio.h"
#include "net/http_io.h"
#include "profile/profile.h"

namespace anthro {

struct EndpointConfig;
struct ServerState;

// What a rider's answer to one request may use: the endpoint's state, the request's writer and
// its own timer (for the plan's pacing).
struct HttpRouteCall {
  ServerState& state;
  ReplyWriter& out;
  net::asio::steady_timer& timer;
};

// A rider's part of one Messages API reply it let through: fields in the head, each chunk's
// extension and the trailer (what its client reads with RiderReply::fields_only).
class ReplyFields {
 public:
  virtual ~ReplyFields() = default;
  // The head's fields, knowing the text the reply carries (the plan's, before its first token).
  // `streamed`: a chunked reply, whose trailer fields are announced here.
  virtual ReplyHeaders head(std::string_view text, bool streamed) const = 0;
  // The extension of a chunk carrying `tokens` tokens written as `text` (none around them: "", 0);
  // empty for none.
  virtual std::string chunk_extension(std::string_view text, std::size_t tokens) = 0;
  // A streamed reply's trailer fields, once its last chunk went out.
  virtual ReplyHeaders trailer() const = 0;
};

// What a rider judged of a Messages API request the API is about to serve (its credentials,
// body and size passed): answered with the rider's own error instead, or served with the
// rider's part of the reply and the time its first token waits for the rider.
struct RequestJudgement {
  struct Refusal {
    int status;
    std::string type, message;
    ReplyHeaders headers;
  };
  std::optional<Refusal> refusal;
  std::unique_ptr<ReplyFields> fields;  // null: nothing of its own in the reply
  double extra_ttft_ms = 0;
};

// A rider answers requests of its own (takes, serve), or adds to the API's own replies (judge),
// or both; what it leaves null it does not do.
struct HttpRoute {
  std::any (*make_state)(const EndpointConfig& config);
  // Is the request the rider's? Asked once its credentials passed, before the API's routes;
  // `path`: its target without the query.
  bool (*takes)(const net::HttpRequest& req, std::string_view path, const ServerState& state);
  // Its answer; false when the connection cannot carry another request.
  net::awaitable<bool> (*serve)(const net::HttpRequest& req, HttpRouteCall call);
  // Turns it on, as it wants to be when the workbench embeds the endpoint (null: left off).
  void (*embedded)(EndpointConfig& config);
  // Its judgement of each Messages API request before the model plans the reply.
  RequestJudgement (*judge)(const net::HttpRequest& req, ServerState& state) = nullptr;
  // Its lines of /metrics, after the endpoint's; read from any thread.
  std::string (*metrics)(const ServerState& state) = nullptr;
};
void register_http_route(ProfileId id, HttpRoute route);
const PerProfile<HttpRoute>& http_routes();

}  // namespace anthro
