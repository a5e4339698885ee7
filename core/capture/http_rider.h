// The HTTP rider seam, as a capture reads it: a format riding on HTTP (http/rider.h) registers
// how the HTTP dissector (HTTP/1.1 and HTTP/2 alike) reads its part of one connection: which
// requests are its own beside the model's, its part of a model request's record, the reader of
// such a request's reply, and what a reply read whole teaches it (a vocabulary, a last row).
// One CapturedHttpRider per connection for each registered rider.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "capture/http_event.h"
#include "http/rider.h"
#include "metrics/request_result.h"
#include "profile/profile.h"

namespace anthro {

namespace net { struct HttpRequest; }
class HttpReplyRecorder;

// A row the rider shows for its part of a reply (an HttpEvent of kind RiderRow, from the
// server): its text (a title line, then `name: value` lines), one summary line, the tokens it
// carried. Empty when no one reads the rows: the rider then builds none.
using RiderRowSink = std::function<void(double t, std::string text, std::string summary, std::uint32_t tokens)>;

class CapturedHttpRider {
 public:
  // A kind of request of the rider's own beside the model's (a vocabulary fetched, a client's
  // report), numbered by the rider; such a request makes no request record.
  using OwnKind = std::uint8_t;
  virtual ~CapturedHttpRider() = default;
  // A request was read. One of its own: its kind. A model request: nullopt, after adding the
  // rider's part to `r` when it is the rider's. `held`: the record kept back for the client's
  // next request (holds()), which this one may amend; null when none.
  virtual std::optional<OwnKind> request(const net::HttpRequest& req, RequestResult& r, RequestResult* held) = 0;
  // The reader of a model request's reply, when its record has the rider's part; else null.
  // `row` shows what the reader finds.
  virtual std::unique_ptr<RiderReply> reply(const RequestResult& r, RiderRowSink row) = 0;
  // A reply was read whole at `t`: `own` as request() said; `r` the request's record.
  virtual void replied(std::optional<OwnKind> own, int status, const HttpReplyRecorder& reply, const RequestResult& r,
                       double t, const RiderRowSink& row) = 0;
  // Whether a finished model request waits for the client's next request (or the connection's
  // end) before it goes out: that request may amend it.
  virtual bool holds(const RequestResult& r) const = 0;
};

// Registered from the rider's folder, at most one a profile: a new reader for each connection.
using CapturedHttpRiderFactory = std::unique_ptr<CapturedHttpRider> (*)();
// The words of the rows a rider shows (RiderRowSink): the Type column's ("TOKEN_IDS") and
// the name of a row's first line in the detail view ("token ids").
struct RiderRowWords {
  const char* type = nullptr;
  const char* first_line = nullptr;
};
void register_captured_http_rider(ProfileId id, CapturedHttpRiderFactory make, RiderRowWords rows = {});
const PerProfile<CapturedHttpRiderFactory>& captured_http_riders();
// The words of `id`'s rows, or nullptr for a rider that shows none.
const RiderRowWords* rider_row_words(ProfileId id);
// Every rider's, in registry order.
std::vector<RiderRowWords> all_rider_row_words();

// The fields a rider reads of every HTTP row (HttpRowFields), registered from its folder, at
// most one kind a profile: a new, empty set for each row; and the inspector's columns that
// show them (HttpRowFields::cell).
using HttpRowFieldsFactory = std::unique_ptr<HttpRowFields> (*)();
void register_http_row_fields(ProfileId id, HttpRowFieldsFactory make, std::span<const HttpRowColumn> columns);
const PerProfile<HttpRowFieldsFactory>& http_row_fields();
// Every registered rider's columns, in the order they registered; a title two riders declare
// is one column, which shows both riders' cells.
std::span<const HttpRowColumn> http_row_columns();
// Each registered rider's fields of a message head (`field` as HttpRowFields::read_head), those
// with something to tell.
HttpRowParts head_row_fields(const HttpRowFields::FieldLookup& field);

}  // namespace anthro
