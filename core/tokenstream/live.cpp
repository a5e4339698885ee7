// The token stream as the live client speaks it (session/http_rider.h): its media type and
// headers on each request, GET /v1/vocab once before the first, and under the text-decoding
// fault the front end's report after each reply read whole.
#include "http/reply_recorder.h"
#include "profile/format_options.h"
#include "session/http_rider.h"
#include "tokenstream/client_report.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"
#include "tokenstream/reply.h"

namespace anthro {
namespace {

class LiveTokenStream : public LiveHttpRider {
 public:
  LiveTokenStream(const TokenStreamClientOptions& options, bool stream) : options_(options), stream_(stream) {}

  net::HttpFields content_fields() const override {
    net::HttpFields fields = token_stream_header_fields(headers());
    fields.emplace_back("accept", kTokenStreamMediaType);
    return fields;
  }

  // GET /v1/vocab on the session's connection before its first request; an endpoint without one
  // leaves the ids unnamed, with a warning.
  net::awaitable<bool> prepare(HttpSideRequests& side) override {
    if (vocabulary_) co_return true;
    const std::string what = "GET " + std::string(kTokenStreamVocabPath);
    auto reply = co_await side.side_request("GET", std::string(kTokenStreamVocabPath), "", what);
    if (!reply) co_return false;
    auto vocabulary = reply->status == 200 ? TokenStreamVocabulary::from_json(reply->body)
                                           : Result<TokenStreamVocabulary>(make_error(
                                                 "vocabulary", what + " answered " + std::to_string(reply->status)));
    if (!vocabulary) side.warn(vocabulary.error().detail + ": token ids are shown as numbers");
    vocabulary_ = vocabulary ? std::move(*vocabulary) : TokenStreamVocabulary();
    co_return true;
  }

  void request(RequestResult& r, std::string_view, net::HttpFields&) override {
    TokenStreamExchange& x = add_token_stream(r);
    x.context_id = options_.context_id;
    x.request_fault = admit_token_stream_request(headers(), std::nullopt).refused_field;
  }

  std::unique_ptr<RiderReply> reply() override { return std::make_unique<TokenStreamReply>(*vocabulary_); }

  // The text-decoding client fault: the ids read as text fail JSON.parse, and the front end
  // reports it. The reply's record is unchanged but for the report: the wire carried what it carried.
  net::awaitable<RiderNext> replied(RequestResult& r, RiderReply& reader, HttpSideRequests& side) override {
    TokenStreamExchange* x = token_stream_of(r);
    if (!options_.text_decoding || !x || r.end != RequestEnd::Response) co_return RiderNext::GoOn;
    std::string error = text_decoding_error(as_bytes(static_cast<TokenStreamReply&>(reader).body_bytes()));
    std::string body = text_decoding_report(error, options_.context_id);
    const std::string what = "POST " + std::string(kClientErrorsPath);
    auto answer = co_await side.side_request("POST", std::string(kClientErrorsPath), std::move(body), what);
    if (!answer) co_return RiderNext::Stop;
    x->text_decoding_reported = true;
    co_return RiderNext::GoOn;
  }

 private:
  TokenStreamRequestHeaders headers() const {
    TokenStreamRequestHeaders h;
    h.content_type = kTokenStreamMediaType;
    h.alignment = options_.alignment;
    h.context_id = options_.context_id;
    h.streaming = stream_ ? "true" : "false";
    return h;
  }

  TokenStreamClientOptions options_;
  bool stream_;
  std::optional<TokenStreamVocabulary> vocabulary_;  // once fetched
};

}  // namespace

void register_live_token_stream() {
  register_live_http_rider(token_stream_id(), [](const SessionConfig& config, const std::any& options) {
    const auto* set = std::any_cast<TokenStreamClientOptions>(&options);
    return std::unique_ptr<LiveHttpRider>(new LiveTokenStream(set ? *set : TokenStreamClientOptions{}, config.stream));
  });
}

TokenStreamClientOptions& use_token_stream(SessionConfig& config) {
  return use_format_options<TokenStreamClientOptions>(config.riders, token_stream_id());
}

const TokenStreamClientOptions* token_stream_client(const SessionConfig& config) {
  return format_options<TokenStreamClientOptions>(config.riders, token_stream_id());
}

}  // namespace anthro
