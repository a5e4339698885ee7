#include "affinity/conversation.h"

#include "affinity/context_hash.h"
#include "util/json.h"

namespace anthro {

void AffinityConversation::restart() {
  history_.clear();
  pending_.reset();
  resend_ = false;
  session_id_.reset();
  turns_done_ = 0;
}

std::vector<ChatMessage> AffinityConversation::messages(const std::vector<ChatMessage>& turn) {
  if (resend_ && pending_) return *pending_;
  if (turns_done_ >= config_.turns) restart();
  std::vector<ChatMessage> next = history_;
  next.insert(next.end(), turn.begin(), turn.end());
  pending_ = next;
  return next;
}

std::vector<std::pair<std::string, std::string>> AffinityConversation::headers(std::string_view body,
                                                                               AffinityExchange& x) {
  auto doc = parse_ordered_json(body);
  std::size_t sent = 0;
  if (doc && doc->is_object() && doc->contains("messages") && (*doc)["messages"].is_array()) sent = (*doc)["messages"].size();
  x.session_id_sent = config_.fixed_session_id ? config_.fixed_session_id : session_id_;
  // Spec: the hash of the messages as sent; empty only on a session's first request, which
  // carries no session id (with one, an empty hash is a mismatch).
  x.context_hash_sent = sent > 1 || x.session_id_sent ? context_hash((*doc)["messages"]) : std::string();
  std::vector<std::pair<std::string, std::string>> out;
  if (x.session_id_sent) out.emplace_back("x-anthropic-session-id", *x.session_id_sent);
  out.emplace_back("x-anthropic-context-hash", *x.context_hash_sent);
  return out;
}

void AffinityConversation::answered(int status, std::string_view reply_text, const AffinityExchange& x) {
  if (status == 200 && pending_) {
    history_ = *pending_;
    history_.push_back({"assistant", std::string(reply_text)});
    if (x.session_id) session_id_ = x.session_id;
    ++turns_done_;
    pending_.reset();
    resend_ = false;
    return;
  }
  if (status == 409 && x.error_type == "session_migrated" && pending_) {
    // Follow the migration: the new id, and the whole history again (unless the client keeps
    // its old id: the 409 loop of the session affinity spec §5.1).
    if (!config_.keep_session_id && x.new_session_id) session_id_ = x.new_session_id;
    resend_ = true;
    return;
  }
  restart();  // any other answer: the conversation cannot go on
}

}  // namespace anthro
