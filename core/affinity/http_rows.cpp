// Session affinity's fields of a captured HTTP row: its headers, chunk extensions and trailer,
// read from parsed fields, bounded as HttpAffinity says; written as decode's "affinity" member
// and as the session tracer's cells.
#include "affinity/http_rows.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/translatable.h"

namespace anthro {

namespace affinity_capture {

// The session tracer's columns: HttpAffinity::cell answers by these titles.
constexpr const char* kSessionId = ANTHRO_TRANSLATE_NOOP("SessionTracer", "Session ID");
constexpr const char* kContextHash = ANTHRO_TRANSLATE_NOOP("SessionTracer", "Context Hash");
constexpr const char* kTokenCount = ANTHRO_TRANSLATE_NOOP("SessionTracer", "Token Count");
constexpr const char* kStatus = ANTHRO_TRANSLATE_NOOP("SessionTracer", "Status");
constexpr HttpRowColumn kColumns[] = {{.title = kSessionId, .width = 34},
                                      {.title = kContextHash, .width = 17},
                                      {.title = kTokenCount, .width = 12},
                                      {.title = kStatus, .width = 44, .status_prefix = true}};

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A token count: decimal digits only, fitting 64 bits.
std::optional<std::uint64_t> token_count_of(std::string_view value) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (!value.empty() && ec == std::errc() && end == value.data() + value.size()) return n;
  return std::nullopt;
}

// The extension and trailer field that carry a token count, in any case.
bool is_token_count(std::string_view name) { return same_name(name, "x-anthropic-token-count"); }

// Keeps at most kMaxValue bytes of a value.
void keep(HttpAffinity& a, std::string& into, std::string_view value) {
  if (value.size() > HttpAffinity::kMaxValue) {
    value = value.substr(0, HttpAffinity::kMaxValue);
    a.cut = true;
  }
  into.assign(value);
}

// A token count; a bad one is kept (cut) as sent.
std::optional<std::uint64_t> count_of(HttpAffinity& a, std::string_view value) {
  auto n = token_count_of(value);
  if (!n) keep(a, a.bad_count, value);
  return n;
}

// A cell of one value shown as it is, read from the head field `field`.
HttpCell value_cell(const std::string& value, std::string field) {
  HttpCell c{{}, std::move(field)};
  if (!value.empty()) c.pieces.push_back({"%1", {value}});
  return c;
}

// The chunks' sum; the trailer's total when it differs (or alone); a count that is no number.
HttpCell token_count_cell(const HttpAffinity& a) {
  HttpCell c;
  const std::string sum = std::to_string(a.chunk_token_sum);
  if (a.trailer_total && !a.chunks_counted) c.pieces.push_back({ANTHRO_TRANSLATE_NOOP("SessionTracer", "%1 (trailer)"), {std::to_string(*a.trailer_total)}});
  else if (a.trailer_total && *a.trailer_total != a.chunk_token_sum)
    c.pieces.push_back({ANTHRO_TRANSLATE_NOOP("SessionTracer", "%1 (trailer %2)"), {sum, std::to_string(*a.trailer_total)}});
  else if (a.chunks_counted) c.pieces.push_back({"%1", {sum}});
  if (!a.bad_count.empty()) c.pieces.push_back({ANTHRO_TRANSLATE_NOOP("SessionTracer", "(not a count: “%1”)"), {a.bad_count}});
  return c;
}

// What a reply's status is followed by: its error type, the new session, the expected hash.
HttpCell status_cell(const HttpAffinity& a) {
  HttpCell c;
  if (!a.error_type.empty()) c.pieces.push_back({"%1", {a.error_type}});
  if (!a.new_session_id.empty()) c.pieces.push_back({"→ %1", {a.new_session_id}});
  if (!a.expected_hash.empty()) c.pieces.push_back({ANTHRO_TRANSLATE_NOOP("SessionTracer", "(expected %1)"), {a.expected_hash}});
  return c;
}

}  // namespace affinity_capture

void HttpAffinity::read_head(const FieldLookup& field) {
  for (auto [name, into] : {std::pair{"x-anthropic-session-id", &session_id}, {"x-anthropic-context-hash", &context_hash},
                            {"x-anthropic-new-session-id", &new_session_id}, {"x-anthropic-expected-hash", &expected_hash}})
    affinity_capture::keep(*this, *into, field(name));
}

void HttpAffinity::read_chunk_extension(std::string_view name, std::string_view value) {
  if (!affinity_capture::is_token_count(name)) return;
  auto n = affinity_capture::count_of(*this, value);
  if (!n) return;
  ++chunks_counted;
  chunk_token_sum = *n > std::numeric_limits<std::uint64_t>::max() - chunk_token_sum ? std::numeric_limits<std::uint64_t>::max()
                                                                                       : chunk_token_sum + *n;
  if (chunk_tokens.size() < kMaxChunks) chunk_tokens.push_back(*n);
}

void HttpAffinity::read_trailer(std::string_view name, std::string_view value) {
  if (affinity_capture::is_token_count(name)) trailer_total = affinity_capture::count_of(*this, value);
}

void HttpAffinity::read_error_type(std::string_view type) { error_type = type.substr(0, kMaxValue); }

bool HttpAffinity::empty() const {
  return session_id.empty() && context_hash.empty() && new_session_id.empty() && expected_hash.empty() &&
         error_type.empty() && chunks_counted == 0 && !trailer_total && bad_count.empty();
}

std::unique_ptr<HttpRowFields> HttpAffinity::end_part() const {
  if (error_type.empty() && chunks_counted == 0 && !trailer_total && bad_count.empty()) return nullptr;
  auto kept = std::make_unique<HttpAffinity>(*this);
  kept->chunk_tokens = {};
  return kept;
}

void HttpAffinity::merge(const HttpRowFields& end) {
  const auto* more = dynamic_cast<const HttpAffinity*>(&end);
  if (!more) return;
  for (auto [into, from] : {std::pair{&session_id, &more->session_id}, {&context_hash, &more->context_hash},
                            {&new_session_id, &more->new_session_id}, {&expected_hash, &more->expected_hash},
                            {&error_type, &more->error_type}, {&bad_count, &more->bad_count}})
    if (into->empty()) *into = *from;
  if (chunks_counted == 0) {
    chunk_tokens = more->chunk_tokens;
    chunks_counted = more->chunks_counted;
    chunk_token_sum = more->chunk_token_sum;
  }
  if (!trailer_total) trailer_total = more->trailer_total;
  cut = cut || more->cut;
}

// The fields it has: decode's "affinity" member.
void HttpAffinity::write_json(nlohmann::json& out) const {
  out = nlohmann::json::object();
  for (auto [key, value] : {std::pair{"session_id", &session_id}, {"context_hash", &context_hash},
                            {"new_session_id", &new_session_id}, {"expected_hash", &expected_hash},
                            {"error_type", &error_type}, {"bad_token_count", &bad_count}})
    if (!value->empty()) out[key] = *value;
  if (chunks_counted) {
    out["chunks_counted"] = chunks_counted;
    out["chunk_token_sum"] = chunk_token_sum;
  }
  if (trailer_total) out["trailer_token_count"] = *trailer_total;
}

HttpCell HttpAffinity::cell(std::string_view title) const {
  using namespace affinity_capture;
  if (title == kSessionId) return value_cell(session_id, "x-anthropic-session-id");
  if (title == kContextHash) return value_cell(context_hash, "x-anthropic-context-hash");
  if (title == kTokenCount) return token_count_cell(*this);
  if (title == kStatus) return status_cell(*this);
  return {};
}

std::span<const HttpRowColumn> HttpAffinity::columns() { return affinity_capture::kColumns; }

}  // namespace anthro
