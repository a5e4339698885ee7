// The HTTP baseline requests of a session: the Messages API or chat completions, with SSE
// events timed at the socket read that delivered them.
#include "http/reply_recorder.h"
#include "net/http_io.h"
#include "session/client.h"
#include "tokenstream/admission.h"
#include "tokenstream/client_report.h"

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

}  // namespace

void SessionClient::answered(const HttpResponseReader& response, const HttpReplyRecorder& reply, RequestResult& r,
                             std::string_view body, std::optional<std::uint64_t> chunk_tokens) {
  std::optional<std::uint64_t> trailer_tokens;
  for (const auto& [name, value] : response.trailers())
    if (name == "x-anthropic-token-count") trailer_tokens = parse_decimal(value);
  note_affinity_reply(*r.affinity, response, reply.error_type(), chunk_tokens, trailer_tokens, body, r.text);
  conversation_->answered(response.status(), r.text, *r.affinity);
}

TokenStreamRequestHeaders SessionClient::token_stream_headers() const {
  TokenStreamRequestHeaders h;
  h.content_type = kTokenStreamMediaType;
  h.alignment = config_.token_stream_alignment;
  h.context_id = config_.token_stream_context_id;
  h.streaming = config_.stream ? "true" : "false";
  return h;
}

HttpFields SessionClient::content_fields() const {
  if (config_.token_stream) {
    HttpFields fields = token_stream_header_fields(token_stream_headers());
    fields.emplace_back("accept", kTokenStreamMediaType);
    return fields;
  }
  return {{"content-type", "application/json"}, {"accept", config_.stream ? "text/event-stream" : "application/json"}};
}

awaitable<std::optional<SessionClient::SideReply>> SessionClient::side_request(std::string method, std::string path,
                                                                                std::string body, std::string what) {
  HttpFields fields = {{"host", target_.authority()}};
  if (!config_.api_key.empty()) fields.emplace_back("x-api-key", config_.api_key);
  if (!body.empty()) {
    fields.emplace_back("content-type", "application/json");
    fields.emplace_back("content-length", std::to_string(body.size()));
  }
  if (h2_) co_return co_await http2_side_request(method, path, fields, std::move(body), what);
  bool sent = co_await write(as_bytes(http1_request(method, path, fields, body)));
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

// GET /v1/vocab on the session's connection before its first request; an endpoint without one
// leaves the ids unnamed, with a warning.
awaitable<bool> SessionClient::fetch_vocabulary() {
  const std::string what = "GET " + std::string(kTokenStreamVocabPath);
  auto reply = co_await side_request("GET", std::string(kTokenStreamVocabPath), "", what);
  if (!reply) co_return false;
  auto vocabulary = reply->status == 200 ? TokenStreamVocabulary::from_json(reply->body)
                                         : Result<TokenStreamVocabulary>(make_error(
                                               "vocabulary", what + " answered " + std::to_string(reply->status)));
  if (!vocabulary) result_.warnings.push_back(vocabulary.error().detail + ": token ids are shown as numbers");
  vocabulary_ = vocabulary ? std::move(*vocabulary) : TokenStreamVocabulary();
  co_return true;
}

// The text-decoding client fault: the ids read as text fail JSON.parse, and the front end
// reports it. The reply's record is unchanged: the wire carried what it carried.
awaitable<bool> SessionClient::report_text_decoding(RequestResult& r, const HttpReplyRecorder& reply) {
  std::string error = text_decoding_error(as_bytes(reply.token_stream_bytes()));
  std::string body = text_decoding_report(error, config_.token_stream_context_id);
  const std::string what = "POST " + std::string(kClientErrorsPath);
  auto answer = co_await side_request("POST", std::string(kClientErrorsPath), std::move(body), what);
  if (!answer) co_return false;
  r.token_stream->text_decoding_reported = true;
  co_return true;
}

awaitable<bool> SessionClient::http_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options) {
  bool messages = target_.kind == TargetKind::Messages;
  RequestSpec spec = request_spec(options);
  spec.api_key.reset();  // the key travels in a header, never in the body
  if (conversation_) spec.messages = conversation_->messages(spec.messages);
  if (config_.token_stream && !vocabulary_) {
    bool fetched = co_await fetch_vocabulary();
    if (!fetched) {
      rec.ended(RequestEnd::ConnectionClosed, result_.error.value_or("GET /v1/vocab failed"));
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
  if (conversation_)
    for (const auto& [name, value] : conversation_->headers(body, r.affinity.emplace())) fields.emplace_back(name, value);
  if (config_.token_stream) {
    TokenStreamExchange& x = r.token_stream.emplace();
    x.context_id = config_.token_stream_context_id;
    x.request_fault = admit_token_stream_request(token_stream_headers(), std::nullopt).refused_field;
  }
  rec.request_sent(steady_now_s(), meta_of_request(body));  // as the write starts (see client_anthro.cpp)
  if (h2_) co_return co_await http2_exchange(r, rec, options, fields, std::move(body), messages);
  bool sent = co_await write(as_bytes(http1_request("POST", target_.path, fields, body)));
  if (!sent) {
    if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
    else rec.ended(RequestEnd::SendFailed, "cannot send the request: " + stream_->error().message());
    co_return false;
  }

  HttpResponseReader response;
  HttpReplyRecorder reply(r, rec, messages, config_.stream);
  reply.on_text = config_.on_text;
  bool head_seen = false;
  std::optional<std::uint64_t> chunk_tokens;  // x-anthropic-token-count over the chunks
  double t = 0;
  std::uint8_t buf[16384];
  while (!response.done()) {
    std::size_t n = co_await read_some(buf, sizeof buf);
    t = steady_now_s();  // stamped at the socket read, before any parsing
    if (n == 0) {
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
    if (!head_seen)
      reply.head(response.status(), [&response](const char* name) { return response.header(name); },
                 config_.token_stream ? &*vocabulary_ : nullptr);
    for (const auto& chunk : response.take_chunk_extensions())  // (always taken: they are bounded while held)
      for (const auto& [name, value] : chunk)
        if (auto n = name == "x-anthropic-token-count" ? parse_decimal(value) : std::nullopt)
          chunk_tokens = chunk_tokens.value_or(0) + *n;
    head_seen = true;
    reply.body(response.take_body(), t);
    if (closed_at_cancel_point(rec, options)) co_return false;
  }
  reply.trailers(response.trailers());
  reply.end(t);
  if (conversation_) answered(response, reply, r, body, chunk_tokens);
  if (!co_await after_reply(r, reply)) co_return false;
  if (response.status() != 200) co_return response.header("connection") != "close";
  co_return r.end == RequestEnd::Response;
}

bool SessionClient::closed_at_cancel_point(RequestRecorder& rec, const RequestOptions& options) {
  if (!options.cancel_after_tokens || rec.tokens_seen() < *options.cancel_after_tokens) return false;
  // HTTP has no CANCEL frame: closing the connection is how a client gives up.
  rec.cancel_sent(steady_now_s());
  rec.ended(RequestEnd::ClientClosed, "closed by the client after " + std::to_string(rec.tokens_seen()) + " tokens");
  stream_->close();
  return true;
}

// What the client does once a reply was read: the text-decoding fault's report.
awaitable<bool> SessionClient::after_reply(RequestResult& r, const HttpReplyRecorder& reply) {
  if (!config_.token_stream_text_decoding || !r.token_stream || r.end != RequestEnd::Response) co_return true;
  bool reported = co_await report_text_decoding(r, reply);
  co_return reported;
}

}  // namespace anthro
