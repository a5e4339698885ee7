// A toy wire format, added from this folder alone: its dissector, its column and its checklist
// probe, registered by toy_format.cpp's static initialiser, so no file outside this folder
// names it (but the one line that builds the folder). The format: text lines
// "VERB STREAM TEXT\n"; a connection opens with "HELLO 0 toy/1"; AUTH's text is a secret.
#pragma once

#include <string_view>

namespace anthro::toy {

inline constexpr std::string_view kName = "toy";
inline constexpr std::string_view kProbe = "toy-connections";
inline constexpr std::size_t kMaxLine = 1024;  // a longer line stops its direction

}  // namespace anthro::toy
