// The token stream as a capture's HTTP dissector reads it (capture/http_rider.h): a request in
// its media type gets its exchange, GET /v1/vocab teaches the connection the names of its ids,
// each reply's ids are rows named through them with the body's verdict last, and a reply waits
// for the client's next request, which may report reading it as text (client_report.h).
#include <algorithm>

#include "capture/http_rider.h"
#include "http/reply_recorder.h"
#include "net/http_io.h"
#include "tokenstream/client_report.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"
#include "tokenstream/reply.h"

namespace anthro {
namespace {

// A context id kept of a captured request at most, as the capture cuts the header values it keeps.
constexpr std::size_t kMaxCapturedContextId = 128;

// The requests of the client's own beside the model's.
enum class TokenStreamOwn : CapturedHttpRider::OwnKind { Vocabulary, ClientReport };

// A body's verdict (token stream spec §3.1) as the last row of its reply: a title line, then
// one `name: value` line each.
std::string token_body_verdict(const TokenStreamExchange& x) {
  std::string out = "token stream body\nids: " + std::to_string(x.ids) + "\npadding: " + std::to_string(x.padding) + "\n";
  if (x.degraded_at)
    out += "degraded marker: #" + std::to_string(*x.degraded_at) +
           (x.backpressure_announced ? ", announced by X-Claude-Backpressure" : ", not announced by X-Claude-Backpressure") + "\n";
  if (x.refused)
    out += "alignment: refused, " + std::string(to_string(x.refused->reason)) + " at byte " + std::to_string(x.refused->offset) +
           ": " + x.refused->detail + "\n";
  else
    out += "alignment: ok, " + std::to_string((x.ids + x.padding) * kTokenStreamAlignment) + " bytes\n";
  return out;
}

std::string token_body_summary(const TokenStreamExchange& x) {
  std::string out = "body: " + std::to_string(x.ids) + " ids, " + std::to_string(x.padding) + " padding";
  if (x.degraded_at) out += ", degraded from #" + std::to_string(*x.degraded_at);
  return out + (x.refused ? ", refused (" + std::string(to_string(x.refused->reason)) + ")" : ", aligned");
}

// One captured connection's token stream.
class CapturedTokenStream : public CapturedHttpRider {
 public:
  std::optional<OwnKind> request(const net::HttpRequest& req, RequestResult& r, RequestResult* held) override {
    std::optional<OwnKind> own;
    std::string path = req.target.substr(0, req.target.find('?'));
    if (req.method == "GET" && path == kTokenStreamVocabPath) own = OwnKind(TokenStreamOwn::Vocabulary);
    if (req.method == "POST" && path == kClientErrorsPath && is_text_decoding_report(req.body)) {
      own = OwnKind(TokenStreamOwn::ClientReport);
      if (TokenStreamExchange* reported = held ? token_stream_of(*held) : nullptr) reported->text_decoding_reported = true;
    }
    TokenStreamRequestHeaders fields = read_token_stream_headers(req.headers, req.repeated);
    if (!selects_token_stream(fields.content_type)) return own;
    TokenStreamExchange& t = add_token_stream(r);
    t.context_id = fields.context_id.value_or("").substr(0, kMaxCapturedContextId);
    t.request_fault = admit_token_stream_request(fields, std::nullopt).refused_field;
    return own;
  }

  std::unique_ptr<RiderReply> reply(const RequestResult& r, RiderRowSink row) override {
    if (!token_stream_of(r)) return nullptr;
    if (!row) return std::make_unique<TokenStreamReply>(vocabulary_);
    return std::make_unique<TokenStreamReply>(vocabulary_, [this, row](std::span<const std::uint32_t> ids, std::size_t first, double t) {
      auto tokens = std::count_if(ids.begin(), ids.end(), [](std::uint32_t v) { return v != kTokenStreamDegraded; });
      std::string range = "ids #" + std::to_string(first) + (ids.size() > 1 ? "–#" + std::to_string(first + ids.size() - 1) : "");
      row(t, range + " of the body\n" + token_id_lines(ids, first, vocabulary_), range + ": " + token_stream_text(ids, vocabulary_),
          static_cast<std::uint32_t>(tokens));
    });
  }

  void replied(std::optional<OwnKind> own, int status, const HttpReplyRecorder& reply, const RequestResult& r, double t,
               const RiderRowSink& row) override {
    if (own == OwnKind(TokenStreamOwn::Vocabulary) && status == 200)
      if (auto v = TokenStreamVocabulary::from_json(reply.kept_body())) vocabulary_ = std::move(*v);
    const TokenStreamExchange* x = token_stream_of(r);
    if (status == 200 && x && row) row(t, token_body_verdict(*x), token_body_summary(*x), 0);
  }

  bool holds(const RequestResult& r) const override { return token_stream_of(r) && r.end == RequestEnd::Response; }

 private:
  TokenStreamVocabulary vocabulary_;  // from the connection's GET /v1/vocab, when it has one
};

}  // namespace

void register_captured_token_stream() {
  register_captured_http_rider(token_stream_id(), [] { return std::unique_ptr<CapturedHttpRider>(new CapturedTokenStream); },
                               {.type = "TOKEN_IDS", .first_line = "token ids"});
}

}  // namespace anthro
