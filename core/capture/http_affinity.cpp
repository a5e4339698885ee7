// The session-affinity headers, chunk extensions and trailer, read from parsed fields.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "capture/http_event.h"

namespace anthro {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Keeps at most kMaxValue bytes of a value.
void keep(HttpAffinity& a, std::string& into, std::string_view value) {
  if (value.size() > HttpAffinity::kMaxValue) {
    value = value.substr(0, HttpAffinity::kMaxValue);
    a.cut = true;
  }
  into.assign(value);
}

// A token count: decimal digits only, fitting 64 bits; a bad one is kept (cut) as sent.
std::optional<std::uint64_t> count_of(HttpAffinity& a, std::string_view value) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (!value.empty() && ec == std::errc() && end == value.data() + value.size()) return n;
  keep(a, a.bad_count, value);
  return std::nullopt;
}

constexpr std::string_view kTokenCount = "x-anthropic-token-count";

}  // namespace

void read_affinity_header(HttpAffinity& a, std::string_view name, std::string_view value) {
  if (same_name(name, "x-anthropic-session-id")) keep(a, a.session_id, value);
  else if (same_name(name, "x-anthropic-context-hash")) keep(a, a.context_hash, value);
  else if (same_name(name, "x-anthropic-new-session-id")) keep(a, a.new_session_id, value);
  else if (same_name(name, "x-anthropic-expected-hash")) keep(a, a.expected_hash, value);
}

void read_token_count_extension(HttpAffinity& a, std::string_view name, std::string_view value) {
  if (!same_name(name, kTokenCount)) return;
  auto n = count_of(a, value);
  if (!n) return;
  ++a.chunks_counted;
  a.chunk_token_sum = *n > std::numeric_limits<std::uint64_t>::max() - a.chunk_token_sum
                          ? std::numeric_limits<std::uint64_t>::max()
                          : a.chunk_token_sum + *n;
  if (a.chunk_tokens.size() < HttpAffinity::kMaxChunks) a.chunk_tokens.push_back(*n);
}

void read_token_count_trailer(HttpAffinity& a, std::string_view name, std::string_view value) {
  if (same_name(name, kTokenCount)) a.trailer_total = count_of(a, value);
}

void merge_affinity(HttpAffinity& a, const HttpAffinity& more) {
  for (auto [into, from] : {std::pair{&a.session_id, &more.session_id}, {&a.context_hash, &more.context_hash},
                            {&a.new_session_id, &more.new_session_id}, {&a.expected_hash, &more.expected_hash},
                            {&a.error_type, &more.error_type}, {&a.bad_count, &more.bad_count}})
    if (into->empty()) *into = *from;
  if (a.chunks_counted == 0) {
    a.chunk_tokens = more.chunk_tokens;
    a.chunks_counted = more.chunks_counted;
    a.chunk_token_sum = more.chunk_token_sum;
  }
  if (!a.trailer_total) a.trailer_total = more.trailer_total;
  a.cut = a.cut || more.cut;
}

}  // namespace anthro
