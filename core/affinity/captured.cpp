// Session affinity as a capture's HTTP dissector reads it (capture/http_rider.h): a Messages API
// request carrying X-Anthropic-* fields gets its AffinityExchange, and its reply, read by the
// API's own reader, gives the fields, token counts and Context-Hash check (AffinityReplyReader),
// as the live client records them. Every HTTP row shows its fields (HttpAffinity, http_rows.h).
#include <map>

#include "affinity/exchange.h"
#include "affinity/format.h"
#include "affinity/http_rows.h"
#include "capture/http_rider.h"
#include "net/http_io.h"

namespace anthro {
namespace affinity_capture {

// One captured connection's session affinity.
class CapturedSessionAffinity : public CapturedHttpRider {
 public:
  std::optional<OwnKind> request(const net::HttpRequest& req, RequestResult& r, RequestResult*) override {
    AffinityExchange sent;
    note_affinity_request(sent, [&req](const char* name) -> std::optional<std::string> {
      auto it = req.headers.find(name);
      return it == req.headers.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
    if (!sent.carried_affinity()) return std::nullopt;
    r.extensions.emplace<AffinityExchange>(session_affinity_id()) = std::move(sent);
    bodies_[r.stream_id] = req.body;
    return std::nullopt;
  }

  std::unique_ptr<RiderReply> reply(const RequestResult& r, RiderRowSink) override {
    auto it = bodies_.find(r.stream_id);
    if (it == bodies_.end() || !r.extensions.find<AffinityExchange>(session_affinity_id())) return nullptr;
    auto reader = std::make_unique<AffinityReplyReader>(std::move(it->second));
    bodies_.erase(it);
    return reader;
  }

  void replied(std::optional<OwnKind>, int, const HttpReplyRecorder&, const RequestResult& r, double,
               const RiderRowSink&) override {
    bodies_.erase(r.stream_id);
  }
  bool holds(const RequestResult&) const override { return false; }

 private:
  std::map<std::uint32_t, std::string> bodies_;  // exchange id → the body of a request that carried the fields
};

std::unique_ptr<CapturedHttpRider> make_captured_session_affinity() { return std::make_unique<CapturedSessionAffinity>(); }

}  // namespace affinity_capture

void register_captured_session_affinity() {
  register_captured_http_rider(session_affinity_id(), affinity_capture::make_captured_session_affinity);
  register_http_row_fields(session_affinity_id(), [] { return std::unique_ptr<HttpRowFields>(new HttpAffinity); },
                           HttpAffinity::columns());
}

}  // namespace anthro
