// Session affinity's GPU instance as the embedded endpoint emulates it: sessions bound to a fixed
// number of context slots, collected when idle too long or when a new session needs a slot
// (a collection costs the request that waited for it TTFT), a session whose slot is gone
// answered 409 with a new id, a Context-Hash that is not the server's answered 400 with the
// expected one. Socket-free and single-threaded (the endpoint's loop thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace anthro {

struct AffinityConfig {
  std::size_t slot_count = 0;  // context slots of the instance; 0: emulation off
  double idle_s = 300;        // a session idle longer is collected
  double cold_load_ms = 15;   // a session's slot being loaded (its first request; 11–15 ms in the session affinity spec)
  double gc_pause_ms = 200;   // a collection, paid by the request that needed the slot
  bool collect_for_every_new_session = false;  // the slot-gc fault: as if every slot were taken
  bool enabled() const { return slot_count > 0; }
};

enum class AffinityVerdict { Serve, Migrated, HashMismatch };

struct AffinityDecision {
  AffinityVerdict verdict = AffinityVerdict::Serve;
  std::string session_id;     // Serve: the session; Migrated: the new id to use from now on
  std::string expected_hash;  // HashMismatch: the server's Context-Hash of the messages
  double extra_ttft_ms = 0;   // Serve: slot loading and collections this request waited for
  bool new_session = false;   // Serve: the session started with this request
};

class SessionSlots {
 public:
  // `new_id` makes session ids (UUIDv4 by default; tests give their own).
  explicit SessionSlots(AffinityConfig config, std::function<std::string()> new_id = {});

  // A Messages API request: its X-Anthropic-Session-ID and X-Anthropic-Context-Hash (nullopt
  // when absent), the hash of its messages as the server computes it, whether it carries
  // history (more than one message), at `now_s` seconds.
  AffinityDecision admit(const std::optional<std::string>& session_id, const std::optional<std::string>& client_hash,
                         const std::string& server_hash, bool has_history, double now_s);
  // The migration fault: the session's slot is given up (its next request is answered 409).
  void evict(const std::string& session_id);

  // Readable from any thread (a /metrics scrape, a test).
  std::size_t used() const { return used_.load(); }
  std::uint64_t gc_count() const { return gc_count_.load(); }
  const AffinityConfig& config() const { return config_; }

 private:
  // A slot for a new session: collects the least recently used one when all are taken.
  double take_slot(const std::string& id, double now_s);
  double collect_idle(double now_s);

  AffinityConfig config_;
  std::function<std::string()> new_id_;
  std::map<std::string, double> sessions_;  // id -> last used (s)
  std::atomic<std::size_t> used_{0};
  std::atomic<std::uint64_t> gc_count_{0};
};

// A random UUIDv4, lowercase.
std::string uuid_v4();

}  // namespace anthro
