// The HTTP rider seam, as the live client speaks it: a format riding on the HTTP Messages API
// (http/rider.h) registers how a session's connection carries it: its content fields in place
// of the API's, the messages each request sends (a conversation's history), what it asks first
// on the connection (a side request), its fields and part of each request's record, the reader
// of each reply, and what follows a reply (a report, or the same request sent again). One
// LiveHttpRider per connection of a Messages API target, made when SessionConfig::riders holds
// the format.
#pragma once

#include <any>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/rider.h"
#include "metrics/request_result.h"
#include "net/asio.h"
#include "net/http_io.h"
#include "profile/profile.h"
#include "protocol/body.h"

namespace anthro {

struct SessionConfig;

// A request of the client's own beside the model's, on the session's connection.
struct HttpSideReply {
  int status = 0;
  std::string body;
};
class HttpSideRequests {
 public:
  // Its status and body, or nullopt when the connection failed (`what` names the request in
  // the session's error).
  virtual net::awaitable<std::optional<HttpSideReply>> side_request(std::string method, std::string path, std::string body,
                                                                     std::string what) = 0;
  // A line for the session's warnings.
  virtual void warn(std::string line) = 0;

 protected:
  ~HttpSideRequests() = default;
};

// The API's own content fields (JSON, and SSE when streamed), for a rider that keeps them.
net::HttpFields api_content_fields(bool stream);

// What the client does once a reply was read whole.
enum class RiderNext {
  GoOn,       // the next request, as planned
  SendAgain,  // the same request again at once, not counted against the session's repeat
  Stop,       // the session cannot go on (a side request failed)
};

class LiveHttpRider {
 public:
  virtual ~LiveHttpRider() = default;
  // The request's content fields (content-type, accept, the rider's own headers).
  virtual net::HttpFields content_fields() const = 0;
  // The messages each request sends, given the turn's: a rider holding a conversation sends its
  // history before them, or a refused request again.
  virtual void messages(std::vector<ChatMessage>& /*messages*/) {}
  // Before each request: what the rider needs first on the connection; false when the
  // connection failed.
  virtual net::awaitable<bool> prepare(HttpSideRequests& side) = 0;
  // The request goes out with `body`: the rider's part of its record, and the fields it adds
  // that depend on the body (appended to `fields`).
  virtual void request(RequestResult& r, std::string_view body, net::HttpFields& fields) = 0;
  // The reader of its reply (a fields_only() one sees the reply beside the API's reader).
  virtual std::unique_ptr<RiderReply> reply() = 0;
  // Its reply was read whole (through `reader`): what the client does next.
  virtual net::awaitable<RiderNext> replied(RequestResult& r, RiderReply& reader, HttpSideRequests& side) = 0;
};

// Registered from the rider's folder, at most one a profile: the rider of one connection, with
// the options SessionConfig::riders holds for it (an empty std::any: its defaults).
using LiveHttpRiderFactory = std::unique_ptr<LiveHttpRider> (*)(const SessionConfig& config, const std::any& options);
void register_live_http_rider(ProfileId id, LiveHttpRiderFactory make);
const PerProfile<LiveHttpRiderFactory>& live_http_riders();

}  // namespace anthro
