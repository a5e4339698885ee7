// A client's side of session affinity (profiles/session-affinity.md): one
// conversation per connection, sent whole each turn with its session id and Context-Hash; a
// 409 switches to X-Anthropic-New-Session-ID and sends the same request again. Socket-free:
// the session client feeds it what it sends and receives.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "affinity/exchange.h"
#include "protocol/body.h"

namespace anthro {

struct AffinityClientConfig {
  unsigned turns = 4;  // user turns per conversation; then a new one starts, with no session id
  // Client faults: the 409 loop (the new id ignored) and one id for every conversation (the
  // serverless-reuse pitfall when several connections share it).
  bool keep_session_id = false;
  std::optional<std::string> fixed_session_id;
};

class AffinityConversation {
 public:
  explicit AffinityConversation(AffinityClientConfig config) : config_(std::move(config)) {}

  // The messages of the next request: the history and `turn`; after a 409, the refused
  // request again whatever `turn` is.
  std::vector<ChatMessage> messages(const std::vector<ChatMessage>& turn);
  // The request's X-Anthropic-* fields for `body` (the JSON about to be sent: the hash is of
  // its messages as written), noted in `x`.
  std::vector<std::pair<std::string, std::string>> headers(std::string_view body, AffinityExchange& x);
  // The answer: its status, the reply's text, and the exchange with the reply's fields noted
  // (note_affinity_reply). Moves the conversation on.
  void answered(int status, std::string_view reply_text, const AffinityExchange& x);
  // A 409 was answered: the next request sends the refused one again.
  bool resend_pending() const { return resend_; }

 private:
  void restart();

  AffinityClientConfig config_;
  std::vector<ChatMessage> history_;
  std::optional<std::vector<ChatMessage>> pending_;  // the request being sent, or resent after a 409
  bool resend_ = false;
  std::optional<std::string> session_id_;
  unsigned turns_done_ = 0;
};

}  // namespace anthro
