// What the HTTP dissector reports of one captured message or SSE event: kept apart from
// http_dissector.h so the capture decoder's users (the GUI among them) do not parse Asio and
// Beast through net/http_io.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "protocol/describe.h"
#include "util/bytes.h"
#include "util/vocabulary.h"

namespace anthro {

// The registry's id of a wire format (profile/profile.h): opaque here, enough to key a map.
enum class ProfileId : std::uint16_t;

// ReplyEnd: a reply was read to its end; no message of its own, it completes the riders' fields
// of the Response (what its error body, chunk extensions and trailer told). RiderRow: a row a
// format riding on HTTP shows of a reply's body (capture/http_rider.h: RiderRowSink), in its
// own words (RiderRowWords).
enum class HttpEventKind : std::uint8_t { Request, Response, SseEvent, ReplyEnd, RiderRow };

// One piece of an inspector cell's text: `pattern` (the view translates it) with its %1, %2, …
// filled by `args`.
struct HttpCellPiece {
  std::string pattern;
  std::vector<std::string> args;
};
// A rider's value of one inspector column on an HTTP row: its pieces, joined by spaces (none:
// no value), and the header field (lower-case) whose line carried it, when one did.
struct HttpCell {
  std::vector<HttpCellPiece> pieces;
  std::string field;
};
// A column a rider shows of every HTTP row, declared when it registers its fields
// (register_http_row_fields); cell() is asked by its title.
struct HttpRowColumn {
  const char* title;  // untranslated, marked in context "SessionTracer" (util/translatable.h)
  int width = 12;     // in digits: the room its usual values take
  // A reply's cell starts with its status code ("409 session_migrated"); a request's is empty.
  bool status_prefix = false;
};

// What a format riding on HTTP reads of one HTTP row (capture/http_rider.h): a message head's
// fields, a reply's chunk extensions, trailer and error body, as parsed, bounded in size by the
// format. decode writes it as its line's member json_key(); the inspector shows it in the
// columns whose titles cell() knows.
class HttpRowFields {
 public:
  // A head field's value by its lower-case name; "" when the head lacks it.
  using FieldLookup = std::function<std::string(const char* name)>;
  virtual ~HttpRowFields() = default;
  virtual std::unique_ptr<HttpRowFields> clone() const = 0;
  virtual void read_head(const FieldLookup& field) = 0;
  virtual void read_chunk_extension(std::string_view /*name*/, std::string_view /*value*/) {}
  virtual void read_trailer(std::string_view /*name*/, std::string_view /*value*/) {}
  virtual void read_error_type(std::string_view /*type*/) {}
  virtual bool empty() const = 0;
  // What a reply's end told beyond its head (per-chunk details dropped), for the reply's row;
  // null when nothing.
  virtual std::unique_ptr<HttpRowFields> end_part() const = 0;
  // `end` (what the reply's end told) added to these (its head's): what they lack.
  virtual void merge(const HttpRowFields& end) = 0;
  virtual std::string_view json_key() const = 0;
  virtual void write_json(nlohmann::json& out) const = 0;
  // The value of the inspector column titled `title` (untranslated); no pieces when none.
  virtual HttpCell cell(std::string_view title) const = 0;
};

// The riders' fields of one row, those with something to tell, by the rider's profile.
using HttpRowParts = std::map<ProfileId, std::shared_ptr<const HttpRowFields>>;

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
  std::uint32_t tokens = 0;  // SseEvent, RiderRow: generated tokens it carried
  HttpRowParts rider_fields;  // Request and Response: of their heads; ReplyEnd: of the whole reply
  ProfileId rider{};          // RiderRow: whose
};

// The fields of an HttpEvent's text, with their byte ranges in it, for a detail view; a
// RiderRow's first line is named `rider_first_line` (RiderRowWords::first_line).
std::vector<FrameField> http_fields(HttpEventKind kind, std::string_view text, std::string_view rider_first_line = {});

}  // namespace anthro
