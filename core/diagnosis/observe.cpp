// Observations from a capture's analysis, two sets of observations merged, and a captured run's
// capture added to its diagnosis.
#include <algorithm>

#include "diagnosis/diagnosis.h"

namespace anthro {

namespace {

ObservedConnection connection_of(const CaptureConnection& info) {
  ObservedConnection c;
  c.name = info.name;
  c.alpn = info.alpn;
  c.alpn_offered = info.alpn_offered;
  c.profile = info.profile;
  const auto& offered = info.alpn_offered;
  c.offered_anthro = info.transport == CaptureTransport::Lab ||
                     std::find(offered.begin(), offered.end(), "anthro-v1") != offered.end();
  c.anthro = info.frames > 0;
  c.probe_only = info.http_requests > 0 && info.http_requests == info.http_probe_requests;
  c.opened = info.syn_ts ? info.syn_ts : info.handshake_start_ts;
  c.closed = info.closed_ts;
  c.client_zero_windows = info.client_zero_windows;
  c.client_closed_first = info.first_close == Direction::ClientToServer;
  c.server_closed_first = info.first_close == Direction::ServerToClient;
  return c;
}

// Frames whose keys were there: the ones that did not open were damaged on the way.
bool keys_known(const CaptureConnection& info) {
  return info.decryption == DecryptionState::Ok || info.decryption == DecryptionState::Authentication;
}

}  // namespace

Observations observe_capture(const CaptureAnalysis& analysis, bool texts) {
  Observations o;
  o.capture = true;
  o.capture_file = analysis.file;
  // Room for every stream at once.
  std::size_t streams = 0;
  for (const auto& ca : analysis.connections) streams += ca.streams.size();
  o.requests.reserve(streams);
  for (const auto& ca : analysis.connections) {
    o.connections.push_back(connection_of(ca.info));
    if (keys_known(ca.info)) {
      o.frames += ca.info.frames;
      o.frames_refused += ca.info.frames - std::min(ca.info.frames, ca.info.frames_opened);
    } else if (ca.info.frames > 0) {
      o.warnings.push_back({Message("warning.not_decrypted", {{"conn", ca.info.name}, {"why", decryption_message(ca.info)}})});
    }
    for (std::size_t i = 0; i < ca.streams.size(); ++i) {
      ObservedRequest q;
      q.connection = o.connections.size() - 1;
      q.anthro = o.connections.back().anthro;  // else an HTTP exchange: the baseline's, as live
      if (texts) {
        q.own(ca.streams[i]);
        q.edit().text = CaptureAnalysis::text(ca, i);
      } else {
        q.borrow(ca.streams[i]);
      }
      o.requests.push_back(std::move(q));
    }
  }
  for (const auto& w : analysis.warnings) o.warnings.push_back(plain_text(w));
  o.records = analysis.records;
  return o;
}

void merge_observations(Observations& into, Observations more) {
  std::size_t connections = into.connections.size(), requests = into.requests.size();
  into.live |= more.live;
  into.capture |= more.capture;
  if (into.target.empty()) into.target = more.target;
  if (into.capture_file.empty()) into.capture_file = more.capture_file;
  for (auto& c : more.connections) into.connections.push_back(std::move(c));
  for (auto& q : more.requests) {
    q.connection += connections;
    into.requests.push_back(std::move(q));
  }
  for (auto& p : more.utf8_pairs) {
    if (p.baseline) *p.baseline += requests;
    if (p.candidate) *p.candidate += requests;
    into.utf8_pairs.push_back(p);
  }
  into.frames += more.frames;
  into.frames_refused += more.frames_refused;
  if (!into.system.probed) into.system = std::move(more.system);
  merge_records(into.records, std::move(more.records));
  for (auto& p : more.tool_schemas) into.tool_schemas.push_back(std::move(p));
  for (auto& w : more.warnings) into.warnings.push_back(std::move(w));
}

FrameDrops count_frame_drops(const Observations& o) {
  FrameDrops d{o.frames_refused, o.frames};  // frames_refused already counts the authentication failures
  for (const auto& q : o.requests) d.dropped += q.record().token_gaps + q.record().token_duplicates;
  return d;
}

// A captured run: what only a capture measures is judged on the run's own capture.
void add_capture_of_run(Diagnosis& d, const Checklist& checklist, Observations captured) {
  const std::size_t offset = d.observations.requests.size();  // the capture's requests follow the run's
  for (ItemResult& r : d.items) {
    const ChecklistItem* item = checklist.item(r.id);
    // Measured already (the run saw it first hand), or no capture measures it.
    if (!item || item->probe == "manual" || !r.sources.empty() ||
        std::find(item->sources.begin(), item->sources.end(), ProbeSource::Capture) == item->sources.end())
      continue;
    ItemResult judged = evaluate_item(*item, captured);
    for (EvidenceRef& ref : judged.refs)
      if (ref.request) *ref.request += offset;
    r = std::move(judged);
  }
  if (std::find(d.sources.begin(), d.sources.end(), ProbeSource::Capture) == d.sources.end())
    d.sources.push_back(ProbeSource::Capture);
  merge_observations(d.observations, std::move(captured));  // causes stay linked on the run's requests alone
}

}  // namespace anthro
