// HTTP/1.1 messages over a ByteStream: Boost.Beast parses, we write the few lines we send.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "net/byte_stream.h"

namespace anthro::net {

struct HttpRequest {
  std::string method, target;
  std::map<std::string, std::string> headers;  // names lowercased; a repeated one keeps its last value
  std::set<std::string> repeated;              // names lowercased that came more than once
  std::string body;
  bool keep_alive = true;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct ReadFailure {
  int status;  // 400 or 413 to answer with; 0 when the peer just went away (or timed out)
  std::string detail;
  bool timed_out = false;  // closed by one of HttpReadTimeouts
};

// How long a server waits for the parts of a request, in seconds; 0 is no limit. A peer that
// outlasts one is closed (slowloris: a head trickled byte by byte).
struct HttpReadTimeouts {
  // For the request's first byte (a keep-alive connection's idle time). Unset: the head's
  // clock runs from the call, as for the first request of a new connection.
  std::optional<double> wait_s;
  double head_s = 0;  // the request line and headers, from the request's start
  // The body, from the end of the head; each piece received buys time at kMinBodyRate, up to
  // body_s ahead, so a steady sender never times out and a trickle does.
  double body_s = 0;
};
inline constexpr double kMinBodyRate = 1024;  // bytes/s

// Reads one request; `pending` carries bytes past it for the next call (pipelining).
awaitable<std::variant<HttpRequest, ReadFailure>> read_http_request(ByteStream& stream, std::string& pending,
                                                                    std::size_t body_limit,
                                                                    HttpReadTimeouts timeouts = {});

// A header field or chunk extension value that is a decimal count; nullopt for anything else.
std::optional<std::uint64_t> parse_decimal(std::string_view text);

std::string http_response_head(int status, const std::vector<std::pair<std::string, std::string>>& headers);
std::string http_response(int status, std::string_view content_type, std::string_view body,
                          std::vector<std::pair<std::string, std::string>> headers = {});
// One piece of a chunked body; an empty `data` writes the last chunk. `extension` (without
// its ';') follows the size.
std::string http_chunk(std::string_view data, std::string_view extension = {});
// The last chunk with trailer fields.
std::string http_last_chunk(const std::vector<std::pair<std::string, std::string>>& trailers);
const char* http_reason(int status);

// Header fields, chunk extensions or trailers as parsed: names lowercased, values as sent
// (a quoted extension value without its quotes and escapes).
using HttpFields = std::vector<std::pair<std::string, std::string>>;

// x-api-key, authorization, proxy-authorization, cookie (a lower-case name).
bool credential_header(std::string_view name);
// A header whose value is a secret wherever an HTTP message is shown: a credential header, or a
// name that says key, token, secret, password, credential, signature or auth (api-key,
// x-goog-api-key, ocp-apim-subscription-key, x-auth-token: what gateways and --header-env use).
bool secret_header(std::string_view name);
// A standard HTTP request header, or one the Messages and chat-completions APIs and their SDKs
// define (anthropic-version, anthropic-beta, openai-organization, x-stainless-*), whose value is
// no secret (a lower-case name).
bool public_header(std::string_view name);

// The client side: a response read in pieces as they arrive, so streaming bodies can be
// timed per read. `on_head` gets the status and headers once; `on_body` every body piece.
class HttpResponseReader {
 public:
  HttpResponseReader();
  ~HttpResponseReader();
  // Feeds bytes just read; false on a malformed response (see error()).
  bool feed(std::string_view bytes);
  // The connection closed: a body that runs until the close ends here. False when the
  // response was cut short (see error()).
  bool feed_eof();
  // Starts the next response on the same connection (keep-alive), with the bytes fed past the
  // last one; `no_body` for the reply to a HEAD request. Call feed("") to parse what is kept.
  void next(bool no_body = false);
  bool head_done() const;
  bool done() const;
  int status() const;
  std::string header(const std::string& name) const;
  std::string head_text() const;  // the status line and header fields, as parsed
  std::string take_body();  // body bytes parsed since the last call
  // A chunked body: the extensions of each chunk (the last one's too) whose size line was
  // parsed since the last call, in order; at most kMaxChunkExtensions a chunk, names and
  // values cut to kMaxFieldBytes, and kMaxPendingChunks chunks between two calls.
  std::vector<HttpFields> take_chunk_extensions();
  // A chunked body read to its end: the fields of its trailer, as the head's are read.
  HttpFields trailers() const;
  static constexpr std::size_t kMaxChunkExtensions = 16, kMaxFieldBytes = 1024, kMaxPendingChunks = 8192;
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

// Requests in bytes that arrive in pieces (a captured connection's client side): each
// complete request, in order. Bodies beyond `body_limit` are refused.
class HttpRequestReader {
 public:
  explicit HttpRequestReader(std::size_t body_limit = 1u << 20);
  ~HttpRequestReader();
  // False on a malformed request (see error()); nothing more is read after one.
  bool feed(std::string_view bytes);
  std::vector<HttpRequest> take_requests();  // the requests completed since the last call
  bool in_request() const;  // bytes of a request not yet complete are held
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

}  // namespace anthro::net
