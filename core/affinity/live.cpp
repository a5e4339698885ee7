// Session affinity as the live client speaks it (session/http_rider.h): each connection holds
// a conversation (AffinityConversation) sent whole each turn with its X-Anthropic-Session-ID
// and X-Anthropic-Context-Hash; the reply, read by the API's own reader, gives its fields, token
// counts and Context-Hash check read as a capture reads them (AffinityReplyReader); a 409 that
// migrated the session is sent again at once under the new id.
#include "affinity/conversation.h"
#include "affinity/exchange.h"
#include "affinity/format.h"
#include "net/http_io.h"
#include "profile/format_options.h"
#include "session/http_rider.h"

namespace anthro::affinity_live {

// One connection's conversation.
class LiveSessionAffinity : public LiveHttpRider {
 public:
  LiveSessionAffinity(const AffinityClientConfig& options, bool stream) : conversation_(options), stream_(stream) {}

  net::HttpFields content_fields() const override { return api_content_fields(stream_); }

  void messages(std::vector<ChatMessage>& messages) override { messages = conversation_.messages(messages); }

  net::awaitable<bool> prepare(HttpSideRequests&) override { co_return true; }

  // The fields carry the hash of the messages as written in `body`.
  void request(RequestResult& r, std::string_view body, net::HttpFields& fields) override {
    AffinityExchange& sent = r.extensions.emplace<AffinityExchange>(session_affinity_id());
    for (auto& field : conversation_.headers(body, sent)) fields.push_back(std::move(field));
    request_body_ = body;
  }

  std::unique_ptr<RiderReply> reply() override { return std::make_unique<AffinityReplyReader>(std::move(request_body_)); }

  // The conversation moves on; after a 409 that migrated the session, the same request again.
  net::awaitable<RiderNext> replied(RequestResult& r, RiderReply& reader, HttpSideRequests&) override {
    const auto* x = r.extensions.find<AffinityExchange>(session_affinity_id());
    if (!x) co_return RiderNext::GoOn;
    conversation_.answered(static_cast<AffinityReplyReader&>(reader).status(), r.text, *x);
    co_return conversation_.resend_pending() ? RiderNext::SendAgain : RiderNext::GoOn;
  }

 private:
  AffinityConversation conversation_;
  bool stream_;
  std::string request_body_;  // of the request under way, for its reply's reader
};

}  // namespace anthro::affinity_live

namespace anthro {

void register_live_session_affinity() {
  register_live_http_rider(session_affinity_id(), [](const SessionConfig& config, const std::any& options) {
    const auto* set = std::any_cast<AffinityClientConfig>(&options);
    return std::unique_ptr<LiveHttpRider>(
        new affinity_live::LiveSessionAffinity(set ? *set : AffinityClientConfig{}, config.stream));
  });
}

AffinityClientConfig& use_session_affinity(SessionConfig& config) {
  return use_format_options<AffinityClientConfig>(config.riders, session_affinity_id());
}

const AffinityClientConfig* session_affinity_client(const SessionConfig& config) {
  return format_options<AffinityClientConfig>(config.riders, session_affinity_id());
}

}  // namespace anthro
