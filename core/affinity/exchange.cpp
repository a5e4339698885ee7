#include "affinity/exchange.h"

#include "affinity/context_hash.h"
#include "affinity/format.h"
#include "http/reply_recorder.h"
#include "metrics/request_json.h"
#include "net/http_io.h"
#include "util/json.h"

namespace anthro {
namespace {

nlohmann::ordered_json messages_of(std::string_view body) {
  auto doc = parse_ordered_json(body);
  if (!doc || !doc->is_object()) return nlohmann::ordered_json::array();
  auto it = doc->find("messages");
  return it != doc->end() && it->is_array() ? *it : nlohmann::ordered_json::array();
}

// Field values longer than this are not an id or a hash: kept cut, so a hostile peer's
// megabyte header is not copied into every record.
constexpr std::size_t kMaxFieldBytes = 256;

std::optional<std::string> bounded(std::optional<std::string> v) {
  if (v && v->size() > kMaxFieldBytes) v->resize(kMaxFieldBytes);
  return v;
}

}  // namespace

void AffinityExchange::write_json(nlohmann::json& out) const {
  out = {{"session_id_sent", json_or_null(session_id_sent)},
         {"context_hash_sent", json_or_null(context_hash_sent)},
         {"session_id", json_or_null(session_id)},
         {"context_hash", json_or_null(context_hash)},
         {"new_session_id", json_or_null(new_session_id)},
         {"expected_hash", json_or_null(expected_hash)},
         {"error_type", json_or_null(error_type)},
         {"context_hash_agrees", json_or_null(context_hash_agrees)},
         {"chunk_token_count", json_or_null(chunk_token_count)},
         {"trailer_token_count", json_or_null(trailer_token_count)}};
}

void note_affinity_request(AffinityExchange& x,
                           const std::function<std::optional<std::string>(const char*)>& field) {
  x.session_id_sent = bounded(field("x-anthropic-session-id"));
  x.context_hash_sent = bounded(field("x-anthropic-context-hash"));
}

void note_affinity_reply(AffinityExchange& x, int status, const std::function<std::string(const char*)>& header,
                         std::string_view error_type, std::optional<std::uint64_t> chunk_tokens,
                         std::optional<std::uint64_t> trailer_tokens, std::string_view request_body,
                         std::string_view reply_text) {
  auto field = [&header](const char* name) -> std::optional<std::string> {
    std::string value = header(name);
    return value.empty() ? std::nullopt : bounded(value);
  };
  x.session_id = field("x-anthropic-session-id");
  x.context_hash = field("x-anthropic-context-hash");
  x.new_session_id = field("x-anthropic-new-session-id");
  x.expected_hash = field("x-anthropic-expected-hash");
  if (!error_type.empty()) x.error_type = bounded(std::string(error_type));
  x.chunk_token_count = chunk_tokens;
  x.trailer_token_count = trailer_tokens;
  if (x.context_hash && status == 200)
    x.context_hash_agrees = *x.context_hash == response_context_hash(messages_of(request_body), reply_text);
}

void AffinityReplyReader::chunk_extensions(const std::vector<std::pair<std::string, std::string>>& extensions) {
  for (const auto& [name, value] : extensions) counted_.read_chunk_extension(name, value);
}

void AffinityReplyReader::finished(int status, const HeaderLookup& header,
                                   const std::vector<std::pair<std::string, std::string>>& trailers, HttpReplyRecorder& reply) {
  status_ = status;
  for (const auto& [name, value] : trailers) counted_.read_trailer(name, value);
  std::optional<std::uint64_t> chunk_sum;
  if (counted_.chunks_counted) chunk_sum = counted_.chunk_token_sum;
  RequestResult& r = reply.result();
  if (auto* x = r.extensions.find<AffinityExchange>(session_affinity_id()))
    note_affinity_reply(*x, status, header, reply.error_type(), chunk_sum, counted_.trailer_total, request_body_, r.text);
}

}  // namespace anthro
