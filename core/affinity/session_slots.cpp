#include "affinity/session_slots.h"

#include <cstdio>

#include "crypto/key_schedule.h"

namespace anthro {

std::string uuid_v4() {
  std::uint8_t b[16];
  random_bytes(b, sizeof b);
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3F) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}

SessionSlots::SessionSlots(AffinityConfig config, std::function<std::string()> new_id)
    : config_(config), new_id_(new_id ? std::move(new_id) : uuid_v4) {}

double SessionSlots::collect_idle(double now_s) {
  double paid = 0;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now_s - it->second <= config_.idle_s) {
      ++it;
      continue;
    }
    it = sessions_.erase(it);
    ++gc_count_;
    paid += config_.gc_pause_ms;
  }
  return paid;
}

double SessionSlots::take_slot(const std::string& id, double now_s) {
  double paid = config_.cold_load_ms;
  if (config_.collect_for_every_new_session && !sessions_.empty() && sessions_.size() < config_.slot_count) {
    ++gc_count_;
    paid += config_.gc_pause_ms;
  } else if (sessions_.size() >= config_.slot_count) {
    auto oldest = sessions_.begin();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second < oldest->second) oldest = it;
    sessions_.erase(oldest);
    ++gc_count_;
    paid += config_.gc_pause_ms;
  }
  sessions_[id] = now_s;
  return paid;
}

AffinityDecision SessionSlots::admit(const std::optional<std::string>& session_id,
                                     const std::optional<std::string>& client_hash, const std::string& server_hash,
                                     bool has_history, double now_s) {
  AffinityDecision d;
  double paid = collect_idle(now_s);
  const bool named = session_id && !session_id->empty();
  auto known = named ? sessions_.find(*session_id) : sessions_.end();
  if (known == sessions_.end() && named && has_history) {
    // History the instance does not hold: the session moved, or its slot was collected.
    d.verdict = AffinityVerdict::Migrated;
    d.session_id = new_id_();
    take_slot(d.session_id, now_s);
    used_ = sessions_.size();
    return d;
  }
  // A session's request must carry its hash: an empty or absent one never turns the check off.
  const bool hash_given = client_hash && !client_hash->empty();
  if ((named && !hash_given) || (hash_given && *client_hash != server_hash)) {
    d.verdict = AffinityVerdict::HashMismatch;
    d.expected_hash = server_hash;
    used_ = sessions_.size();
    return d;
  }
  if (known != sessions_.end()) {
    known->second = now_s;
    d.session_id = known->first;
  } else {
    // A first request: under the id the client chose, or a new one when it sent none.
    d.session_id = named ? *session_id : new_id_();
    d.new_session = true;
    paid += take_slot(d.session_id, now_s);
  }
  d.extra_ttft_ms = paid;
  used_ = sessions_.size();
  return d;
}

void SessionSlots::evict(const std::string& session_id) {
  if (sessions_.erase(session_id)) ++gc_count_;
  used_ = sessions_.size();
}

}  // namespace anthro
