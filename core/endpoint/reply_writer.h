// How one HTTP reply goes out: HTTP/1.1 (a status line, chunked bodies) or HTTP/2 (HEADERS and
// DATA frames of one stream). The endpoint decides a request's reply once
// (answer_http_request) and hands it to the connection's writer, so both versions send the same
// statuses, headers, pieces and trailers at the same moments.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "net/asio.h"
#include "net/http_io.h"

namespace anthro {

struct ServerState;

// The largest request body either HTTP version reads; a larger one is answered 413.
inline constexpr std::size_t kHttpBodyLimit = 4 << 20;

using ReplyHeaders = std::vector<std::pair<std::string, std::string>>;

class ReplyWriter {
 public:
  virtual ~ReplyWriter() = default;
  // A whole reply, its length known. False when the peer is gone.
  virtual net::awaitable<bool> respond(int status, std::string content_type, std::string body, ReplyHeaders headers) = 0;
  // A streamed reply's head; its body follows piece by piece. A `trailer` field names what end() carries.
  virtual net::awaitable<bool> start(int status, ReplyHeaders headers) = 0;
  // One piece of the body as it is made (an HTTP/1.1 chunk with `extension`, an HTTP/2 DATA
  // frame, where chunk extensions do not exist).
  virtual net::awaitable<bool> piece(std::string data, std::string extension) = 0;
  // The streamed body's end, with its trailer fields.
  virtual net::awaitable<bool> end(ReplyHeaders trailers) = 0;
  // Abortive end of the connection (the reset-mid-stream fault: what a dead peer leaves).
  virtual void reset() = 0;
  // Bytes of the reply went out (a 500 can no longer replace it).
  virtual bool started() const = 0;
};

// The reply to one request of the HTTP baseline and the formats riding on it, written through
// `out`; false when the connection cannot carry another request. `timer`: the request's own,
// for the plan's pacing.
net::awaitable<bool> answer_http_request(const net::HttpRequest& req, ServerState& state, ReplyWriter& out,
                                         net::asio::steady_timer& timer);
// Beyond max_connections: the 503 saying why, with its retry headers.
net::awaitable<void> refuse_http_request(const net::HttpRequest& req, ServerState& state, ReplyWriter& out);
// The error body of a request's API (Messages or chat completions) for a 500 in its place.
std::string internal_error_body(const net::HttpRequest& req, const std::string& failure);

}  // namespace anthro
