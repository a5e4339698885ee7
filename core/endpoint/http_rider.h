// The HTTP rider seam, as the endpoint serves it: a format riding on the HTTP Messages API
// (http/rider.h) registers which requests are its (its media type on /v1/messages, paths of its
// own) and how it answers one, through the connection's ReplyWriter, HTTP/1.1 and HTTP/2 alike.
// Its state lives in ServerState::formats under its profile id (make_state, once per start).
#pragma once

#include <any>
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

struct HttpRoute {
  std::any (*make_state)(const EndpointConfig& config);
  // Is the request the rider's? Asked once its credentials passed, before the API's routes;
  // `path`: its target without the query.
  bool (*takes)(const net::HttpRequest& req, std::string_view path, const ServerState& state);
  // Its answer; false when the connection cannot carry another request.
  net::awaitable<bool> (*serve)(const net::HttpRequest& req, HttpRouteCall call);
  // Turns it on, as it wants to be when the workbench embeds the endpoint (null: left off).
  void (*embedded)(EndpointConfig& config);
};
void register_http_route(ProfileId id, HttpRoute route);
const PerProfile<HttpRoute>& http_routes();

}  // namespace anthro
