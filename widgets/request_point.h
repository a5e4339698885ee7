// A measured request as a point on the latency charts: the one mapping for live sessions,
// loads and captures.
#pragma once

#include "latency_charts.h"
#include "session/session.h"

namespace anthro::widgets {

// `t_s`: when the request started, seconds since the series began; `request`: the caller's
// id, given back by LatencyCharts::requestClicked.
RequestPoint request_point(const RequestResult& r, double t_s, int request);

}  // namespace anthro::widgets
