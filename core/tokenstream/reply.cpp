#include "tokenstream/reply.h"

#include "http/reply_recorder.h"
#include "tokenstream/exchange.h"

namespace anthro {

bool TokenStreamReply::head(int status, const HeaderLookup& header, HttpReplyRecorder& reply) {
  reply.head(status, header("retry-after"));
  if (status == 200 && !selects_token_stream(header("content-type"))) return false;
  TokenStreamExchange* x = token_stream_of(reply.result());
  if (!x) x = &add_token_stream(reply.result());
  if (status == 200) ids_.emplace();
  if (status == 429 && reply.retry_after_ms()) x->retry_after_ms = *reply.retry_after_ms();
  if (header("x-claude-backpressure") == "degraded") x->backpressure_announced = true;
  if (status == 503 && header("x-claude-failover") == "true") x->failover = true;
  return ids_.has_value();
}

std::string TokenStreamReply::body_bytes() const {
  if (!ids_) return {};
  return std::string(as_text(encode_token_stream_body(ids_->body().tokens, ids_->body().padding)));
}

void TokenStreamReply::trailers(const std::vector<std::pair<std::string, std::string>>& fields, HttpReplyRecorder& reply) {
  TokenStreamExchange* x = token_stream_of(reply.result());
  if (!x) return;
  for (const auto& [name, value] : fields)
    if (name == "x-claude-backpressure" && value == "degraded") x->backpressure_announced = true;
}

// The ids completed since the last read, each a token at `t`; the marker is no token.
void TokenStreamReply::record_ids(double t, HttpReplyRecorder& reply) {
  const auto& ids = ids_->body().tokens;
  if (on_ids_ && ids_recorded_ < ids.size()) on_ids_(std::span(ids).subspan(ids_recorded_), ids_recorded_, t);
  for (; ids_recorded_ < ids.size(); ++ids_recorded_) {
    std::uint32_t id = ids[ids_recorded_];
    if (id == kTokenStreamDegraded) continue;
    reply.token(t, token_stream_text(std::span(&id, 1), vocabulary_));
  }
}

void TokenStreamReply::body(std::string_view piece, double t, HttpReplyRecorder& reply) {
  ids_->feed(as_bytes(piece));
  record_ids(t, reply);
}

void TokenStreamReply::end(double t, HttpReplyRecorder& reply) {
  auto body = ids_->finish();
  TokenStreamExchange& x = *token_stream_of(reply.result());
  x.ids = ids_->body().tokens.size();
  x.padding = ids_->body().padding;
  if (ids_->body().degraded_at) x.degraded_at = *ids_->body().degraded_at;
  if (!body) {
    x.refused = body.error();
    reply.recorder().ended(RequestEnd::ProtocolError, body.error().detail, t);
    return;
  }
  reply.recorder().response(t, std::nullopt, std::nullopt, "");  // ids say neither why it stopped nor a usage
}

}  // namespace anthro
