#include "connection_match.h"

#include <cmath>
#include <vector>

namespace anthro::widgets {
namespace {

// Socket-read stamps on both sides differ by scheduling and pcap timestamping only.
constexpr double kSlackMs = 5;

struct StreamKey {
  std::uint32_t stream_id = 0;
  bool ttft = false;  // ms is the TTFT, else the E2E
  double ms = 0;
};

// The timed requests of each connection, by connection index.
std::vector<std::vector<StreamKey>> streams_by_connection(const Observations& o) {
  std::vector<std::vector<StreamKey>> out(o.connections.size());
  for (const auto& q : o.requests) {
    const RequestResult& r = q.record();
    if (r.stream_id == 0 || q.connection >= out.size()) continue;
    if (r.figures.ttft_ms) out[q.connection].push_back({r.stream_id, true, *r.figures.ttft_ms});
    else if (r.figures.e2e_ms) out[q.connection].push_back({r.stream_id, false, *r.figures.e2e_ms});
  }
  return out;
}

std::size_t shared_streams(const std::vector<StreamKey>& a, const std::vector<StreamKey>& b) {
  std::size_t n = 0;
  for (const auto& s : a)
    for (const auto& t : b)
      if (s.stream_id == t.stream_id && s.ttft == t.ttft && std::abs(s.ms - t.ms) <= kSlackMs) {
        ++n;
        break;
      }
  return n;
}

}  // namespace

std::map<std::string, std::string> match_connections(const Observations& live, const Observations& captured) {
  const auto live_streams = streams_by_connection(live);
  const auto captured_streams = streams_by_connection(captured);
  std::map<std::string, std::string> names;
  for (std::size_t l = 0; l < live_streams.size(); ++l) {
    std::size_t best = 0, best_n = 0;
    for (std::size_t c = 0; c < captured_streams.size(); ++c) {
      std::size_t n = shared_streams(live_streams[l], captured_streams[c]);
      if (n > best_n) best = c, best_n = n;
    }
    if (best_n > 0) names[live.connections[l].name] = captured.connections[best].name;
  }
  return names;
}

}  // namespace anthro::widgets
