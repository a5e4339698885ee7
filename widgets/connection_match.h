// A live run's connections ("live#N") matched to the connections of a capture of the same run,
// so evidence measured live can jump to its frames. Plain C++: no Qt.
#pragma once

#include <map>
#include <string>

#include "diagnosis/observations.h"

namespace anthro::widgets {

// Live connection name -> capture connection name. A live connection matches the capture
// connection holding the most of its requests: the same stream id (anthro-v1 or HTTP/2 stream,
// HTTP/1.1 exchange number: RequestResult::stream_id) with the same TTFT, or for a request
// without one (an error reply) the same E2E; both clocks stamp the same packets, within a few
// milliseconds. Every wire format counts, those riding on HTTP too. Unmatched ones are left out.
std::map<std::string, std::string> match_connections(const Observations& live, const Observations& captured);

}  // namespace anthro::widgets
