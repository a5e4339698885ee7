// The session tracer: session affinity's headers of an HTTP capture's requests and replies
// (profiles/session-affinity.md) as the inspector's columns and detail fields show them.
#pragma once

#include <QString>
#include <optional>
#include <utility>

#include "capture/capture_index.h"

namespace anthro::widgets {

enum class TracerColumn { SessionId, ContextHash, TokenCount, Status };

QString tracer_title(TracerColumn c);
// The value of an HTTP request's or reply's row; empty for anthro-v1 frames and SSE events.
// Token Count: the chunks' x-anthropic-token-count sum, the trailer's total when they differ
// ("12 (trailer 14)"). Status: "200", "409 session_migrated → <new id>",
// "400 invalid_context_hash (expected <hash>)".
QString tracer_text(const FrameDetail& d, TracerColumn c);
// The bytes of the message (d.bytes) the value was read from, when one line carried it.
std::optional<std::pair<std::size_t, std::size_t>> tracer_range(const FrameDetail& d, TracerColumn c);

}  // namespace anthro::widgets
