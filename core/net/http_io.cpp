#include "net/http_io.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>

#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <boost/beast/http/string_body.hpp>

#include "net/deadline.h"
#include "util/bytes.h"

namespace anthro::net {

namespace http = boost::beast::http;

namespace {

// Beast's request parser, knowing where the head's fields end: a chunked body's trailer
// fields join the same list, and they are not the head's (a credential in a trailer is none).
class RequestParser {
 public:
  explicit RequestParser(std::size_t body_limit) {
    parser_.body_limit(body_limit);
    parser_.on_chunk_header(on_chunk_);
  }
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;
  http::request_parser<http::string_body>& operator*() { return parser_; }
  http::request_parser<http::string_body>* operator->() { return &parser_; }

  // Once the head is in: why the body's length cannot be known (RFC 9112 §6.3), if so.
  // Beast reads a coding list that does not end in one chunked as no body, which would read
  // the bytes after the head as the next request; an unknown coding is refused likewise.
  std::optional<std::string> framing_error() {
    std::optional<std::string> codings;
    for_head([&](const auto& field) {
      if (field.name() == http::field::transfer_encoding) codings = (codings ? *codings + ", " : "") + std::string(field.value());
    });
    if (!codings) return std::nullopt;
    std::size_t count = 0;
    bool chunked = false;
    for (const auto& coding : http::token_list(*codings)) chunked = ++count == 1 && boost::beast::iequals(coding, "chunked");
    if (count == 1 && chunked) return std::nullopt;
    return "Transfer-Encoding: " + *codings + ": only a single chunked coding is understood";
  }

  HttpRequest release() {
    HttpRequest req;
    for_head([&](const auto& field) {
      std::string name = ascii_lower(std::string(field.name_string()));
      if (req.headers.count(name)) req.repeated.insert(name);
      req.headers[name] = std::string(field.value());
    });
    auto msg = parser_.release();
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    req.body = std::move(msg.body());
    req.keep_alive = msg.keep_alive();
    return req;
  }

 private:
  template <class F>
  void for_head(F f) {
    const auto& msg = parser_.get();
    std::size_t left = head_fields_.value_or(SIZE_MAX);
    for (auto it = msg.begin(); it != msg.end() && left > 0; ++it, --left) f(*it);
  }

  http::request_parser<http::string_body> parser_;
  std::optional<std::size_t> head_fields_;  // known once the last chunk's size line is read
  std::function<void(std::uint64_t, boost::beast::string_view, boost::system::error_code&)> on_chunk_ =
      [this](std::uint64_t size, boost::beast::string_view, boost::system::error_code&) {
        const auto& msg = parser_.get();
        if (size == 0) head_fields_ = static_cast<std::size_t>(std::distance(msg.begin(), msg.end()));
      };
};

enum class ReadPhase { Waiting, Head, Body };

// Arms the deadline for the phase the request is in: once as a phase starts, and in the body
// again after each piece, which buys time at kMinBodyRate.
void track_phase(Deadline& deadline, std::optional<ReadPhase>& phase, ReadPhase now, std::size_t just_read,
                 const HttpReadTimeouts& t) {
  bool fresh = phase != now;
  if (!fresh && now != ReadPhase::Body) return;
  if (now == ReadPhase::Waiting) deadline.arm(t.wait_s.value_or(0));
  else if (now == ReadPhase::Head) deadline.arm(t.head_s);
  else if (fresh) deadline.arm(t.body_s);
  else if (t.body_s > 0) deadline.arm(std::min(deadline.remaining() + just_read / kMinBodyRate, t.body_s));
  phase = now;
}

const char* timed_out_text(ReadPhase phase) {
  switch (phase) {
    case ReadPhase::Waiting: return "timed out waiting for the next request";
    case ReadPhase::Head: return "timed out reading the request head";
    case ReadPhase::Body: return "timed out reading the request body";
  }
  return "";
}

}  // namespace

bool credential_header(std::string_view name) {
  return name == "x-api-key" || name == "authorization" || name == "proxy-authorization" || name == "cookie";
}

bool secret_header(std::string_view name) {
  if (credential_header(name)) return true;
  for (std::string_view word : {"key", "token", "secret", "password", "credential", "signature", "auth"})
    if (name.find(word) != std::string_view::npos) return true;
  return false;
}

bool public_header(std::string_view name) {
  static constexpr std::string_view kPublic[] = {
      "host", "content-type", "content-length", "content-encoding", "accept", "accept-encoding", "accept-language",
      "user-agent", "connection", "keep-alive", "te", "transfer-encoding", "trailer", "upgrade", "expect", "cache-control",
      "pragma", "date", "via", "forwarded", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-request-id",
      "request-id", "traceparent", "tracestate", "origin", "referer", "range", "if-match", "if-none-match",
      "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "openai-organization",
      "openai-project", "openai-beta", "idempotency-key"};
  if (name.starts_with("x-stainless-")) return true;  // the official SDKs' runtime and retry fields
  return std::find(std::begin(kPublic), std::end(kPublic), name) != std::end(kPublic);
}

std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

awaitable<std::variant<HttpRequest, ReadFailure>> read_http_request(ByteStream& stream, std::string& pending,
                                                                    std::size_t body_limit, HttpReadTimeouts timeouts) {
  RequestParser request(body_limit);
  auto& parser = *request;
  parser.header_limit(64 * 1024);
  parser.eager(true);
  bool framing_checked = false;
  Deadline deadline(stream);
  std::optional<ReadPhase> phase;
  std::uint8_t buf[16384];
  std::size_t n = 0;
  for (;;) {
    if (!pending.empty()) {
      boost::system::error_code ec;
      std::size_t used = parser.put(asio::buffer(pending), ec);
      pending.erase(0, used);
      if (parser.is_header_done() && !std::exchange(framing_checked, true))
        if (auto why = request.framing_error()) co_return ReadFailure{400, *why};
      if (parser.is_done()) break;
      if (ec == http::error::body_limit)
        co_return ReadFailure{413, "request body is larger than " + std::to_string(body_limit) + " bytes"};
      if (ec && ec != http::error::need_more) co_return ReadFailure{400, "malformed HTTP request: " + ec.message()};
    }
    // A first request's head is timed from the call; a follow-up's from its first byte.
    bool started = parser.got_some() || !pending.empty() || !timeouts.wait_s;
    ReadPhase now = parser.is_header_done() ? ReadPhase::Body : started ? ReadPhase::Head : ReadPhase::Waiting;
    track_phase(deadline, phase, now, n, timeouts);
    n = co_await stream.read_some(buf, sizeof buf);
    if (n == 0) {
      if (deadline.expired())
        co_return ReadFailure{0, timed_out_text(*phase), true};
      bool started_any = parser.got_some() || !pending.empty();
      co_return ReadFailure{started_any ? 400 : 0, started_any ? "connection closed inside a request" : ""};
    }
    pending.append(reinterpret_cast<const char*>(buf), n);
  }
  co_return request.release();
}

// Beast's table of reason phrases (literals, so the view is NUL-terminated).
const char* http_reason(int status) {
  return http::obsolete_reason(http::int_to_status(static_cast<unsigned>(status))).data();
}

std::string http_response_head(int status, const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + http_reason(status) + "\r\n";
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  return out + "\r\n";
}

std::string http_response(int status, std::string_view content_type, std::string_view body,
                          std::vector<std::pair<std::string, std::string>> headers) {
  headers.emplace_back("content-type", std::string(content_type));
  headers.emplace_back("content-length", std::to_string(body.size()));
  return http_response_head(status, headers) + std::string(body);
}

std::string http_chunk(std::string_view data, std::string_view extension) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + (extension.empty() ? "" : ";" + std::string(extension)) + "\r\n" + std::string(data) + "\r\n";
}

std::string http_last_chunk(const std::vector<std::pair<std::string, std::string>>& trailers) {
  std::string out = "0\r\n";
  for (const auto& [name, value] : trailers) out += name + ": " + value + "\r\n";
  return out + "\r\n";
}

namespace {

std::string cut_field(boost::beast::string_view s) {
  return std::string(s.data(), std::min(s.size(), HttpResponseReader::kMaxFieldBytes));
}

// A chunk's extensions as Beast checked them (";name=value;name"): names lowercased, values unquoted.
HttpFields chunk_extension_fields(boost::beast::string_view raw) {
  HttpFields out;
  http::chunk_extensions ext;
  boost::system::error_code ec;
  ext.parse(raw, ec);
  if (ec) return out;
  for (const auto& [name, value] : ext) {
    if (out.size() == HttpResponseReader::kMaxChunkExtensions) break;
    out.emplace_back(ascii_lower(cut_field(name)), cut_field(value));
  }
  return out;
}

}  // namespace

struct HttpResponseReader::Impl {
  Impl() { reset(false); }
  void reset(bool no_body) {
    parser.emplace();
    // Streams run as long as the server sends. Not boost::none: Boost 1.74 then refuses a head
    // whose body has not begun to arrive ("body limit exceeded").
    parser->body_limit(std::numeric_limits<std::uint64_t>::max());
    parser->eager(true);
    parser->skip(no_body);
    parser->on_chunk_header(on_chunk);
    head_fields.reset();
    extensions.clear();
  }
  // Beast calls it for each chunk's size line, the last chunk's before its trailer is parsed.
  std::function<void(std::uint64_t, boost::beast::string_view, boost::system::error_code&)> on_chunk =
      [this](std::uint64_t size, boost::beast::string_view raw, boost::system::error_code&) {
        // Bounded for a reader nobody asks (the live client): the oldest kept, the rest dropped.
        if (!raw.empty() && extensions.size() < kMaxPendingChunks) extensions.push_back(chunk_extension_fields(raw));
        if (size == 0) {
          const auto& msg = parser->get();
          head_fields = static_cast<std::size_t>(std::distance(msg.begin(), msg.end()));
        }
      };
  std::optional<http::response_parser<http::string_body>> parser;
  std::string pending;
  std::vector<HttpFields> extensions;
  std::optional<std::size_t> head_fields;  // once the last chunk came: the fields before its trailer
};

HttpResponseReader::HttpResponseReader() : impl_(std::make_unique<Impl>()) {}

HttpResponseReader::~HttpResponseReader() = default;

bool HttpResponseReader::feed(std::string_view bytes) {
  // Beast consumes only whole elements (the header, a chunk size line), so the rest waits here.
  std::string& pending = impl_->pending;
  pending.append(bytes);
  while (!pending.empty() && !impl_->parser->is_done()) {
    boost::system::error_code ec;
    std::size_t used = impl_->parser->put(asio::buffer(pending), ec);
    pending.erase(0, used);
    if (ec == http::error::need_more) break;
    if (ec) {
      error_ = "malformed HTTP response: " + ec.message();
      return false;
    }
    if (used == 0) break;
  }
  return true;
}

bool HttpResponseReader::feed_eof() {
  if (impl_->parser->is_done()) return true;
  // Beast's put_eof requires a byte of the message first (an assertion, not an error).
  if (!impl_->parser->got_some()) {
    error_ = "response cut short: the connection closed before it began";
    return false;
  }
  boost::system::error_code ec;
  impl_->parser->put_eof(ec);
  if (ec) error_ = "response cut short: " + ec.message();
  return !ec;
}

void HttpResponseReader::next(bool no_body) { impl_->reset(no_body); }

bool HttpResponseReader::head_done() const { return impl_->parser->is_header_done(); }
bool HttpResponseReader::done() const { return impl_->parser->is_done(); }
int HttpResponseReader::status() const { return static_cast<int>(impl_->parser->get().result_int()); }

std::string HttpResponseReader::header(const std::string& name) const {
  auto it = impl_->parser->get().find(name);
  return it == impl_->parser->get().end() ? std::string() : std::string(it->value());
}

std::string HttpResponseReader::head_text() const {
  const auto& msg = impl_->parser->get();
  std::string out = "HTTP/1.1 " + std::to_string(msg.result_int()) + " " + std::string(msg.reason()) + "\r\n";
  for (const auto& field : msg) out += std::string(field.name_string()) + ": " + std::string(field.value()) + "\r\n";
  return out;
}

std::string HttpResponseReader::take_body() {
  std::string out;
  out.swap(impl_->parser->get().body());
  return out;
}

std::vector<HttpFields> HttpResponseReader::take_chunk_extensions() {
  std::vector<HttpFields> out;
  out.swap(impl_->extensions);
  return out;
}

HttpFields HttpResponseReader::trailers() const {
  HttpFields out;
  if (!impl_->head_fields || !done()) return out;
  const auto& msg = impl_->parser->get();
  auto it = msg.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(*impl_->head_fields));
  for (; it != msg.end(); ++it) out.emplace_back(ascii_lower(cut_field(it->name_string())), cut_field(it->value()));
  return out;
}

struct HttpRequestReader::Impl {
  explicit Impl(std::size_t limit) : limit(limit) { reset(); }
  void reset() { parser.emplace(limit); }
  std::size_t limit;
  std::optional<RequestParser> parser;
  std::string pending;
  std::vector<HttpRequest> requests;
};

HttpRequestReader::HttpRequestReader(std::size_t body_limit) : impl_(std::make_unique<Impl>(body_limit)) {}
HttpRequestReader::~HttpRequestReader() = default;

bool HttpRequestReader::feed(std::string_view bytes) {
  if (!error_.empty()) return false;
  std::string& pending = impl_->pending;
  pending.append(bytes);
  while (!pending.empty()) {
    boost::system::error_code ec;
    RequestParser& parser = *impl_->parser;
    std::size_t used = parser->put(asio::buffer(pending), ec);
    pending.erase(0, used);
    if (ec == http::error::need_more) break;
    std::optional<std::string> framing = parser->is_header_done() ? parser.framing_error() : std::nullopt;
    if (ec || framing) {
      error_ = "malformed HTTP request: " + (framing ? *framing : ec.message());
      return false;
    }
    if (parser->is_done()) {
      impl_->requests.push_back(parser.release());
      impl_->reset();  // the next request on the connection (keep-alive)
    }
  }
  return true;
}

std::vector<HttpRequest> HttpRequestReader::take_requests() {
  std::vector<HttpRequest> out;
  out.swap(impl_->requests);
  return out;
}

bool HttpRequestReader::in_request() const { return !impl_->pending.empty() || (**impl_->parser).got_some(); }

}  // namespace anthro::net
