// Session affinity's fields of one captured HTTP row (profiles/session-affinity.md), as the
// capture's HTTP dissector reads them (HttpRowFields): a head's X-Anthropic-* fields, a chunk's
// x-anthropic-token-count extension, the trailer's, and a reply's error type. decode writes
// them as the line's "affinity" member; the inspector's session tracer shows them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "capture/http_event.h"

namespace anthro {

// Header names in any case; values cut to kMaxValue bytes (`cut` says one was).
struct HttpAffinity : HttpRowFields {
  static constexpr std::size_t kMaxValue = 128, kMaxChunks = 4096;
  std::string session_id, context_hash;       // X-Anthropic-Session-ID / -Context-Hash: request or response
  std::string new_session_id, expected_hash;  // a 409's X-Anthropic-New-Session-ID, a 400's X-Anthropic-Expected-Hash
  std::string error_type;                     // a reply's error body: its error.type, read as JSON
  // Each chunk's `x-anthropic-token-count` extension (the first kMaxChunks), how many chunks
  // carried one and their sum; the X-Anthropic-Token-Count trailer's value.
  std::vector<std::uint64_t> chunk_tokens;
  std::uint64_t chunks_counted = 0, chunk_token_sum = 0;
  std::optional<std::uint64_t> trailer_total;
  std::string bad_count;  // a count that is not a number, as sent (cut)
  bool cut = false;

  std::unique_ptr<HttpRowFields> clone() const override { return std::make_unique<HttpAffinity>(*this); }
  // The four X-Anthropic-* head fields (others ignored).
  void read_head(const FieldLookup& field) override;
  void read_chunk_extension(std::string_view name, std::string_view value) override;
  void read_trailer(std::string_view name, std::string_view value) override;
  void read_error_type(std::string_view type) override;
  bool empty() const override;
  std::unique_ptr<HttpRowFields> end_part() const override;
  void merge(const HttpRowFields& end) override;
  std::string_view json_key() const override { return "affinity"; }
  void write_json(nlohmann::json& out) const override;
  // "Session ID", "Context Hash", "Token Count" (the chunks' sum, the trailer's total when they
  // differ: "12 (trailer 14)") and "Status" (what follows the status: "session_migrated → <new
  // id>", "invalid_context_hash (expected <hash>)").
  HttpCell cell(std::string_view title) const override;
  // The columns cell() answers, in the order the inspector shows them.
  static std::span<const HttpRowColumn> columns();
};

}  // namespace anthro
