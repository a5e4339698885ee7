// The capture inspector's filter syntax: `conn:N stream:N type:WORD text "quoted text"`.
#pragma once

#include <QString>

#include "capture/capture_index.h"

namespace anthro::widgets {

// Parses the filter syntax of CaptureInspector::applyFilter; false with `error` set when a
// part cannot be read (e.g. "conn:x") or names a key there is not (e.g. "foo:bar"). A word in
// double quotes is always text to find ("foo:bar").
bool parse_frame_filter(const QString& text, FrameFilter& filter, QString& error);

}  // namespace anthro::widgets
