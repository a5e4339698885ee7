// decode's JSON line of each thing a capture holds (cli.md `decode`), written by the analysis'
// lanes as they decode.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "capture/capture_decoder.h"
#include "capture/http_event.h"
#include "protocol/blob.h"
#include "protocol/stream_decoder.h"

namespace anthro {

nlohmann::json frame_json(const CaptureConnection& c, const FrameEvent& e);
// An HTTP message or SSE event (kind "http"), with the riders' fields it has (HttpRowFields);
// a reply's end is a line only when they tell something of it.
std::optional<nlohmann::json> http_json(const CaptureConnection& c, const HttpEvent& e);
nlohmann::json blob_json(const Blob& b);
// A frame of a profile's own dissector (kind: the profile's name): its Type word, stream,
// summary and fields as its `describe` reads the kept bytes, or the refusal.
nlohmann::json dissected_json(const CaptureConnection& c, const DissectedFrame& f);

}  // namespace anthro
