// The token stream's reading of a reply (http/rider.h), live and captured alike: Retry-After in
// milliseconds (token stream spec §4.4), a 200 in its media type read as u32 ids, each a token
// named through the connection's vocabulary, and X-Claude-Backpressure and X-Claude-Failover
// noted in the request's exchange (exchange.h).
#pragma once

#include <functional>
#include <optional>
#include <span>

#include "http/rider.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"

namespace anthro {

class TokenStreamReply : public RiderReply {
 public:
  // Ids as they complete, the degraded marker among them (trailing padding is only counted, in
  // the exchange, when the body ends): numbered from `first_index` in the body, arrived at `t`.
  using IdsSeen = std::function<void(std::span<const std::uint32_t> ids, std::size_t first_index, double t)>;
  explicit TokenStreamReply(const TokenStreamVocabulary& vocabulary, IdsSeen on_ids = nullptr)
      : vocabulary_(vocabulary), on_ids_(std::move(on_ids)) {}

  bool head(int status, const HeaderLookup& header, HttpReplyRecorder& reply) override;
  void body(std::string_view piece, double t, HttpReplyRecorder& reply) override;
  void trailers(const std::vector<std::pair<std::string, std::string>>& fields, HttpReplyRecorder& reply) override;
  void end(double t, HttpReplyRecorder& reply) override;

  // The body's bytes as they came (its whole ids; a partial last one is not kept).
  std::string body_bytes() const;

 private:
  void record_ids(double t, HttpReplyRecorder& reply);

  const TokenStreamVocabulary& vocabulary_;
  IdsSeen on_ids_;
  std::optional<TokenStreamBodyDecoder> ids_;
  std::size_t ids_recorded_ = 0;
};

}  // namespace anthro
