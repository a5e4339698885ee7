// What the HTTP dissector reports of one captured message or SSE event: kept apart from
// http_dissector.h so the capture decoder's users (the GUI among them) do not parse Asio and
// Beast through net/http_io.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/describe.h"
#include "util/bytes.h"
#include "util/vocabulary.h"

namespace anthro {

enum class HttpEventKind : std::uint8_t { Request, Response, SseEvent };

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
  std::uint32_t tokens = 0;  // SseEvent: generated tokens it carried
};

// The fields of an HttpEvent's text, with their byte ranges in it, for a detail view.
std::vector<FrameField> http_fields(HttpEventKind kind, std::string_view text);

}  // namespace anthro
