// The HTTP baseline requests of a session: the Messages API or chat completions, with SSE
// events timed at the socket read that delivered them.
#include "http/reply_recorder.h"
#include "net/http_io.h"
#include "session/client.h"
#include "tokenstream/admission.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

std::string host_header(const Target& t) {
  std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return host + ":" + std::to_string(t.port);
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

std::string SessionClient::content_headers() const {
  if (config_.token_stream)
    return "content-type: " + std::string(kTokenStreamMediaType) + "\r\naccept: " + kTokenStreamMediaType +
           "\r\nx-claude-token-alignment: 4\r\nx-claude-context-id: " + config_.token_stream_context_id +
           "\r\nx-claude-streaming: " + (config_.stream ? "true" : "false") + "\r\n";
  return std::string("content-type: application/json\r\naccept: ") +
         (config_.stream ? "text/event-stream" : "application/json") + "\r\n";
}

// GET /v1/vocab on the session's connection before its first request; an endpoint without one
// leaves the ids unnamed, with a warning.
awaitable<bool> SessionClient::fetch_vocabulary() {
  std::string request = "GET " + std::string(kTokenStreamVocabPath) + " HTTP/1.1\r\nhost: " + host_header(target_) + "\r\n";
  if (!config_.api_key.empty()) request += "x-api-key: " + config_.api_key + "\r\n";
  request += "\r\n";
  bool sent = co_await write(as_bytes(request));
  if (!sent) co_return fail("cannot send GET /v1/vocab: " + stream_->error().message());
  HttpResponseReader response;
  std::string body;
  std::uint8_t buf[16384];
  while (!response.done()) {
    std::size_t n = co_await read_some(buf, sizeof buf);
    if (n == 0) co_return fail("connection closed during GET /v1/vocab" + stream_error());
    if (!response.feed(std::string_view(reinterpret_cast<const char*>(buf), n)))
      co_return fail("GET /v1/vocab: " + response.error());
    body += response.take_body();
    if (body.size() > HttpReplyRecorder::kMaxKeptBody)
      co_return fail("GET /v1/vocab: more than " + std::to_string(HttpReplyRecorder::kMaxKeptBody) + " bytes");
  }
  auto vocabulary = response.status() == 200 ? TokenStreamVocabulary::from_json(body)
                                             : Result<TokenStreamVocabulary>(make_error("vocabulary", "GET /v1/vocab answered " +
                                                                                                        std::to_string(response.status())));
  if (!vocabulary) result_.warnings.push_back(vocabulary.error().detail + ": token ids are shown as numbers");
  vocabulary_ = vocabulary ? std::move(*vocabulary) : TokenStreamVocabulary();
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
  std::string head = "POST " + target_.path + " HTTP/1.1\r\nhost: " + host_header(target_) + "\r\n" +
                     content_headers() + "content-length: " + std::to_string(body.size()) + "\r\n";
  if (messages) head += "anthropic-version: " + std::string(kAnthropicVersion) + "\r\n";
  if (!config_.api_key.empty())
    head += messages ? "x-api-key: " + config_.api_key + "\r\n" : "authorization: Bearer " + config_.api_key + "\r\n";
  if (conversation_)
    for (const auto& [name, value] : conversation_->headers(body, r.affinity.emplace())) head += name + ": " + value + "\r\n";
  std::string request = head + "\r\n" + body;
  if (config_.token_stream) r.token_stream.emplace().context_id = config_.token_stream_context_id;
  rec.request_sent(now_s(), meta_of_request(body));  // as the write starts (see client_anthro.cpp)
  bool sent = co_await write(as_bytes(request));
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
    t = now_s();  // stamped at the socket read, before any parsing
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
    if (options.cancel_after_tokens && rec.tokens_seen() >= *options.cancel_after_tokens) {
      // HTTP has no CANCEL frame: closing the connection is how a client gives up.
      rec.cancel_sent(now_s());
      rec.ended(RequestEnd::ClientClosed, "closed by the client after " + std::to_string(rec.tokens_seen()) + " tokens");
      stream_->close();
      co_return false;
    }
  }
  reply.trailers(response.trailers());
  reply.end(t);
  if (conversation_) answered(response, reply, r, body, chunk_tokens);
  if (response.status() != 200) co_return response.header("connection") != "close";
  co_return r.end == RequestEnd::Response;
}

}  // namespace anthro
