// Resuming a Layer Zero session (../shared/spec/profiles/layer-zero.md, "Resume" and "Clock"):
// the server's check of a resuming SESSION_INIT and where each side's resending starts.
#pragma once

#include "layerzero/payload.h"

namespace anthro::lz {

inline constexpr std::uint64_t kMaxClockSkewNs = 500'000'000;  // 0.5 s

// The first sequence id a side resends after a resume: the one after the last its peer says it
// received. 64 bits, because after 0xFFFFFFFF nothing can follow.
std::uint64_t resend_from(std::uint32_t peer_last_received);

struct ResumePlan {
  std::uint64_t client_resends_from = 0;  // after the ACK's last client sequence id
  std::uint64_t server_resends_from = 0;  // after the INIT's last server sequence id
};
ResumePlan resume_plan(const ResumeFields& init, const SessionAck& ack);

// Whether two clocks differ by more than kMaxClockSkewNs (exactly 0.5 s still agrees).
bool clock_skewed(std::uint64_t client_time_ns, std::uint64_t server_time_ns);

// The server's check of a resuming SESSION_INIT: its token against the terms it repeats
// (`state-hash`, `expired`), then the client's clock against the server's (`clock-skew`). The
// token goes first so that nothing of an unauthenticated request is trusted. An INIT without
// resume fields is refused as `length` (it is not a resume).
Result<TokenFields> verify_resume(std::span<const Key32> keys, const SessionInit& init, std::uint64_t server_time_ns);
Result<TokenFields> verify_resume(const Key32& key, const SessionInit& init, std::uint64_t server_time_ns);

}  // namespace anthro::lz
