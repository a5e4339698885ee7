#include "affinity/format.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "profile/profile.h"

namespace anthro {
namespace affinity_format {

// Its request headers, in the first request's head (a first request without history may carry
// neither: such a connection stays plain HTTP, read by the same dissector).
bool recognise(ByteView first) {
  std::string_view text = as_text(first);
  std::string head(text.substr(0, text.find("\r\n\r\n")));
  std::ranges::transform(head, head.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return head.find("\r\nx-anthropic-session-id:") != std::string::npos ||
         head.find("\r\nx-anthropic-context-hash:") != std::string::npos;
}

RegisteredId registered;

}  // namespace affinity_format

ProfileId session_affinity_id() { return affinity_format::registered(); }

// Rides on HTTP/1.1: read by the HTTP dissector, served by the HTTP baseline's endpoint, through
// the parts registered below; its checklist and its rollout plan are its own.
// Its request headers, shown in captures (Profile::headers).
constexpr std::string_view kRequestHeaders[] = {"x-anthropic-session-id", "x-anthropic-context-hash",
                                                "x-anthropic-expected-hash"};

void register_session_affinity() {
  affinity_format::registered.set(
      register_builtin_profile(Profile{.id = {}, .name = "session-affinity", .display_name = "Session affinity", .alpn = {},
                                       .recognise = affinity_format::recognise, .schemes = {},
                                       .checklist_id = "session-affinity", .rollout_plan_id = "session-affinity-four-stages",
                                       .rides_on = "http",
                                       .dissect = nullptr, .describe = nullptr, .frame_types = {}, .columns = {},
                                       .join_records = nullptr, .merge_records = nullptr, .headers = kRequestHeaders})
          .id);
  register_served_session_affinity();  // first: its faults follow the catalogue's in the fault list, as they always did
  register_captured_session_affinity();
  register_live_session_affinity();
  register_session_affinity_probes();
  register_session_affinity_plan_metrics();
}

}  // namespace anthro
