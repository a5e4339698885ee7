// The session tracer: what the formats riding on HTTP read of an HTTP capture's requests and
// replies (HttpRowFields), as the inspector's columns and detail fields show them.
#pragma once

#include <QString>
#include <optional>
#include <utility>

#include "capture/capture_index.h"

namespace anthro::widgets {

enum class TracerColumn { SessionId, ContextHash, TokenCount, Status };

QString tracer_title(TracerColumn c);
// The value of an HTTP request's or reply's row; empty for anthro-v1 frames and SSE events:
// the riders' cells of the column (HttpRowFields::cell, by its untranslated title), translated.
// Status: the reply's status, then what the riders add ("409 session_migrated → <new id>").
QString tracer_text(const FrameDetail& d, TracerColumn c);
// The bytes of the message (d.bytes) the value was read from, when one line carried it.
std::optional<std::pair<std::size_t, std::size_t>> tracer_range(const FrameDetail& d, TracerColumn c);

}  // namespace anthro::widgets
