#include "tokenstream/exchange.h"

#include "tokenstream/context_id.h"
#include "tokenstream/format.h"
#include "util/json.h"

namespace anthro {

// The token-stream fields of the exchange (profiles/token-stream.md), null where unknown.
void TokenStreamExchange::write_json(nlohmann::json& out) const {
  using nlohmann::json;
  auto or_null = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json refused_json = nullptr;
  if (refused) refused_json = {{"reason", to_string(refused->reason)}, {"offset", refused->offset}, {"detail", refused->detail}};
  out = {{"context_id", context_id},
         {"ids", ids},
         {"padding", padding},
         {"degraded_at", or_null(degraded_at)},
         {"backpressure_announced", backpressure_announced},
         {"refused", refused_json},
         {"retry_after_ms", or_null(retry_after_ms)},
         {"request_fault", request_fault == TokenStreamField::None ? json(nullptr) : json(to_string(request_fault))},
         {"failover", failover},
         {"text_decoding_reported", text_decoding_reported}};
}

// The ids, the degraded marker and a 429's wait, for a person.
std::string TokenStreamExchange::text() const {
  std::string out = ", " + std::to_string(ids) + " token ids";
  if (degraded_at)
    out += ", degraded from id " + std::to_string(*degraded_at) + (backpressure_announced ? " (announced)" : " (not announced)");
  if (retry_after_ms)
    out += ", Retry-After " + std::to_string(*retry_after_ms) + " ms (" + to_string(classify_retry_after_ms(*retry_after_ms)) + ")";
  return out;
}

TokenStreamExchange* token_stream_of(RequestResult& r) { return r.extensions.find<TokenStreamExchange>(token_stream_id()); }

const TokenStreamExchange* token_stream_of(const RequestResult& r) {
  return r.extensions.find<TokenStreamExchange>(token_stream_id());
}

TokenStreamExchange& add_token_stream(RequestResult& r) { return r.extensions.emplace<TokenStreamExchange>(token_stream_id()); }

}  // namespace anthro
