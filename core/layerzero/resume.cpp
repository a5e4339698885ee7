#include "layerzero/resume.h"

namespace anthro::lz {

std::uint64_t resend_from(std::uint32_t peer_last_received) { return std::uint64_t{peer_last_received} + 1; }

ResumePlan resume_plan(const ResumeFields& init, const SessionAck& ack) {
  return {resend_from(ack.last_client_sequence_id), resend_from(init.last_server_sequence_id)};
}

bool clock_skewed(std::uint64_t client_time_ns, std::uint64_t server_time_ns) {
  const std::uint64_t gap = client_time_ns > server_time_ns ? client_time_ns - server_time_ns : server_time_ns - client_time_ns;
  return gap > kMaxClockSkewNs;
}

Result<TokenFields> verify_resume(std::span<const Key32> keys, const SessionInit& init, std::uint64_t server_time_ns) {
  if (!init.resume)
    return make_error(ErrorClass::Input, to_string(TerminateReason::Length), "a fresh SESSION_INIT carries no token to resume");
  auto fields = verify_token(keys, init.resume->token, init.terms, server_time_ns);
  if (!fields) return fields;
  if (clock_skewed(init.resume->client_time_ns, server_time_ns))
    return make_error(ErrorClass::Input, to_string(TerminateReason::ClockSkew),
                      "the client's clock reads " + std::to_string(init.resume->client_time_ns) + " ns, the server's " +
                          std::to_string(server_time_ns) + ": more than 0.5 s apart");
  return fields;
}

Result<TokenFields> verify_resume(const Key32& key, const SessionInit& init, std::uint64_t server_time_ns) {
  return verify_resume(std::span<const Key32>(&key, 1), init, server_time_ns);
}

}  // namespace anthro::lz
