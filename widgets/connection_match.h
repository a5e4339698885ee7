// A live run's connections ("live#N") matched to the connections of a capture of the same run,
// so evidence measured live can jump to its frames. Plain C++: no Qt.
#pragma once

#include <map>
#include <string>

#include "diagnosis/observations.h"

namespace anthro::widgets {

// Live connection name -> capture connection name. A live connection matches the capture
// connection holding the most of its streams: the same stream id with the same TTFT (both
// clocks stamp the same packets, within a few milliseconds). Unmatched ones are left out.
std::map<std::string, std::string> match_connections(const Observations& live, const Observations& captured);

}  // namespace anthro::widgets
