// What the session-affinity fields of one Messages API exchange said
// (profiles/session-affinity.md): the request's, the response's, and the token counts of a
// streamed reply. The live client and capture analysis fill it alike, so the session-affinity
// checklist reads one shape.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "affinity/http_rows.h"
#include "http/rider.h"
#include "metrics/record_extension.h"

namespace anthro {

// A request record's extension (RecordExtensions, under session affinity's profile id), so the
// engines carry it without naming it; written as the request JSON's "affinity" member.
struct AffinityExchange : RecordExtensionOf<AffinityExchange> {
  // The request's X-Anthropic-Session-ID and X-Anthropic-Context-Hash, when it carried them.
  std::optional<std::string> session_id_sent, context_hash_sent;
  // The response's fields, when present.
  std::optional<std::string> session_id, context_hash, new_session_id, expected_hash;
  std::optional<std::string> error_type;  // of a 4xx/5xx body: "session_migrated", "invalid_context_hash", ...
  // The response's Context-Hash against the hash of the request's messages with the reply
  // appended, computed where the exchange was seen (set when both are known).
  std::optional<bool> context_hash_agrees;
  // Streamed replies: the sum of the chunk extensions `x-anthropic-token-count` (when any chunk
  // had one) and the trailer's total.
  // (Held against the tokens the stream carried: RequestFigures::tokens.)
  std::optional<std::uint64_t> chunk_token_count, trailer_token_count;

  bool carried_affinity() const { return session_id_sent.has_value() || context_hash_sent.has_value(); }

  std::string_view json_key() const override { return "affinity"; }
  void write_json(nlohmann::json& out) const override;
};

}  // namespace anthro

namespace anthro {

// The request's X-Anthropic-Session-ID and X-Anthropic-Context-Hash; `field` gives a header's
// value or nullopt (names lower-case).
void note_affinity_request(AffinityExchange& x,
                           const std::function<std::optional<std::string>(const char*)>& field);
// A reply read to its end: its status and header fields however they were read (`header` gives
// "" for a field the reply lacks), its error type ("" when none), the token counts of its chunks
// (summed) and trailer, and whether its Context-Hash is that of `request_body`'s messages with
// `reply_text` appended. Absent fields stay nullopt.
void note_affinity_reply(AffinityExchange& x, int status, const std::function<std::string(const char*)>& header,
                         std::string_view error_type, std::optional<std::uint64_t> chunk_tokens,
                         std::optional<std::uint64_t> trailer_tokens, std::string_view request_body,
                         std::string_view reply_text);


// The reply of a request that carried the fields, live or captured: the API's reader reads its
// body, this one the token counts of its chunks and trailer (as its rows count them), then the
// whole reply into the request's AffinityExchange.
class AffinityReplyReader : public RiderReply {
 public:
  explicit AffinityReplyReader(std::string request_body) : request_body_(std::move(request_body)) {}

  bool head(int, const HeaderLookup&, HttpReplyRecorder&) override { return false; }
  void body(std::string_view, double, HttpReplyRecorder&) override {}
  void trailers(const std::vector<std::pair<std::string, std::string>>&, HttpReplyRecorder&) override {}
  void end(double, HttpReplyRecorder&) override {}
  bool fields_only() const override { return true; }
  void chunk_extensions(const std::vector<std::pair<std::string, std::string>>& extensions) override;
  void finished(int status, const HeaderLookup& header, const std::vector<std::pair<std::string, std::string>>& trailers,
                HttpReplyRecorder& reply) override;

  int status() const { return status_; }  // once finished

 private:
  std::string request_body_;  // its messages, for the reply's Context-Hash
  HttpAffinity counted_;
  int status_ = 0;
};

}  // namespace anthro
