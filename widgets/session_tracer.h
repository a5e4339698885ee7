// The session tracer: what the formats riding on HTTP read of an HTTP capture's requests and
// replies (HttpRowFields), in the columns they declared (http_row_columns()), as the
// inspector's columns and detail fields show them.
#pragma once

#include <QString>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "capture/capture_index.h"

namespace anthro::widgets {

// A column of the tracer: its place in tracer_columns().
using TracerColumn = std::size_t;
// The columns every registered rider declared, in the order they registered.
std::span<const HttpRowColumn> tracer_columns();

QString tracer_title(TracerColumn c);
// The value of an HTTP request's or reply's row; empty for anthro-v1 frames and SSE events:
// the riders' cells of the column (HttpRowFields::cell, by its untranslated title), translated.
// A column that asks for the status prefix: the reply's status, then what the riders add
// ("409 session_migrated → <new id>"); nothing on a request.
QString tracer_text(const FrameDetail& d, TracerColumn c);
// The bytes of the message (d.bytes) the value was read from, when one line carried it.
std::optional<std::pair<std::size_t, std::size_t>> tracer_range(const FrameDetail& d, TracerColumn c);

}  // namespace anthro::widgets
