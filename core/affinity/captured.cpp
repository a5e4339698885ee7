// Session affinity as a capture's HTTP dissector reads it (capture/http_rider.h): a Messages API
// request carrying X-Anthropic-* fields gets its AffinityExchange, and its reply, read by the
// API's own reader, gives the fields, token counts and Context-Hash check (note_affinity_reply),
// as the live client records them. Every HTTP row shows its fields (HttpAffinity, http_rows.h).
#include <map>

#include "affinity/exchange.h"
#include "affinity/format.h"
#include "affinity/http_rows.h"
#include "capture/http_rider.h"
#include "http/reply_recorder.h"
#include "net/http_io.h"

namespace anthro {
namespace affinity_capture {

// The reply of a request that carried the fields: the API's reader reads its body, this one the
// token counts of its chunks and trailer, then the whole reply into the record.
class CapturedAffinityReply : public RiderReply {
 public:
  explicit CapturedAffinityReply(std::string request_body) : request_body_(std::move(request_body)) {}

  bool head(int, const HeaderLookup&, HttpReplyRecorder&) override { return false; }
  void body(std::string_view, double, HttpReplyRecorder&) override {}
  void trailers(const std::vector<std::pair<std::string, std::string>>&, HttpReplyRecorder&) override {}
  void end(double, HttpReplyRecorder&) override {}
  bool fields_only() const override { return true; }

  void chunk_extensions(const std::vector<std::pair<std::string, std::string>>& extensions) override {
    for (const auto& [name, value] : extensions) counted_.read_chunk_extension(name, value);
  }

  void finished(int status, const HeaderLookup& header, const std::vector<std::pair<std::string, std::string>>& trailers,
                HttpReplyRecorder& reply) override {
    for (const auto& [name, value] : trailers) counted_.read_trailer(name, value);
    std::optional<std::uint64_t> chunk_sum;
    if (counted_.chunks_counted) chunk_sum = counted_.chunk_token_sum;
    RequestResult& r = reply.result();
    if (auto* x = r.extensions.find<AffinityExchange>(session_affinity_id()))
      note_affinity_reply(*x, status, header, reply.error_type(), chunk_sum, counted_.trailer_total, request_body_, r.text);
  }

 private:
  std::string request_body_;  // its messages, for the reply's Context-Hash
  HttpAffinity counted_;      // its chunks' token counts and its trailer's, as its rows count them
};

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
    auto reader = std::make_unique<CapturedAffinityReply>(std::move(it->second));
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
  register_http_row_fields(session_affinity_id(), [] { return std::unique_ptr<HttpRowFields>(new HttpAffinity); });
}

}  // namespace anthro
