// What the HTTP dissector reports of one captured message or SSE event: kept apart from
// http_dissector.h so the capture decoder's users (the GUI among them) do not parse Asio and
// Beast through net/http_io.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/describe.h"
#include "util/bytes.h"
#include "util/vocabulary.h"

namespace anthro {

// ReplyEnd: a reply was read to its end; no message of its own, it completes the Response's
// affinity (the error body's type, the chunks' token counts, the trailer). TokenIds: the rows a
// format riding on HTTP shows of a reply's body (capture/http_rider.h): its ids as they arrived,
// named through the connection's vocabulary, and at the body's end its verdict.
enum class HttpEventKind : std::uint8_t { Request, Response, SseEvent, ReplyEnd, TokenIds };

// The session-affinity headers of one message (profiles/session-affinity.md), as parsed:
// header names in any case; values cut to kMaxValue bytes (`cut` says one was).
struct HttpAffinity {
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
  bool empty() const {
    return session_id.empty() && context_hash.empty() && new_session_id.empty() && expected_hash.empty() &&
           error_type.empty() && chunks_counted == 0 && !trailer_total && bad_count.empty();
  }
};

// One message or SSE event, for the inspector's rows and decode's lines.
struct HttpEvent {
  HttpEventKind kind = HttpEventKind::Request;
  Direction dir = Direction::ClientToServer;
  double ts = 0;
  std::uint32_t exchange = 0;  // the request's number on the connection from 1: its stream id
  // Request: its line, header fields (secret values as '*') and body. Response: its status line
  // and fields. SseEvent: the event as a server writes it. Rebuilt from what was parsed.
  std::string text;
  std::string summary;  // one line: "POST /v1/messages", "200 OK text/event-stream", "content_block_delta {...}"
  int status = 0;       // Response
  std::uint32_t tokens = 0;  // SseEvent, TokenIds: generated tokens it carried
  HttpAffinity affinity;     // Request and Response: their headers; ReplyEnd: the whole reply's
};

// Session affinity's headers, read into `a` (names in any case; values cut, see HttpAffinity):
// a head's field (X-Anthropic-Session-ID, -Context-Hash, -New-Session-ID, -Expected-Hash;
// others ignored), a chunk's extension and a trailer field (x-anthropic-token-count).
void read_affinity_header(HttpAffinity& a, std::string_view name, std::string_view value);
void read_token_count_extension(HttpAffinity& a, std::string_view name, std::string_view value);
void read_token_count_trailer(HttpAffinity& a, std::string_view name, std::string_view value);
// `more` (a reply's end) added to `a` (its head's): what the head did not have.
void merge_affinity(HttpAffinity& a, const HttpAffinity& more);

// The fields of an HttpEvent's text, with their byte ranges in it, for a detail view.
std::vector<FrameField> http_fields(HttpEventKind kind, std::string_view text);

}  // namespace anthro
