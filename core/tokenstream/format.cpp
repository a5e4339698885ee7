#include "tokenstream/format.h"

#include <algorithm>
#include <cctype>

#include "tokenstream/admission.h"

namespace anthro {
namespace {

// The token stream: the first request fetches the vocabulary, or asks for the passthrough in
// its Content-Type. Read line by line from the head, never searched.
bool recognise_token_stream(ByteView first) {
  std::string_view text = as_text(first);
  std::string_view head = text.substr(0, text.find("\r\n\r\n"));
  std::string_view line = head.substr(0, head.find("\r\n"));
  if (line.substr(0, line.find(' ', 4)) == "GET " + std::string(kTokenStreamVocabPath)) return true;
  for (std::size_t at = line.size(); at < head.size();) {
    at += 2;
    std::size_t end = std::min(head.find("\r\n", at), head.size());
    std::string_view field = head.substr(at, end - at);
    std::size_t colon = field.find(':');
    std::string name(field.substr(0, colon));
    std::ranges::transform(name, name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (colon != std::string_view::npos && name == "content-type") {
      std::string_view value = field.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      if (selects_token_stream(std::string(value))) return true;
    }
    at = end;
  }
  return false;
}

RegisteredId token_stream_registered;

}  // namespace

ProfileId token_stream_id() { return token_stream_registered(); }

// Rides on HTTP/1.1 (and HTTP/2, told per request): read by the HTTP dissector, served by the
// HTTP baseline's endpoint, through the parts registered below. No rollout plan of its own.
// Its request headers (admission.cpp), shown in captures (Profile::headers).
constexpr std::string_view kRequestHeaders[] = {"x-claude-token-alignment", "x-claude-context-id", "x-claude-tenant-id",
                                                "x-claude-streaming"};

void register_token_stream() {
  token_stream_registered.set(register_builtin_profile(Profile{.id = {}, .name = "token-stream", .display_name = "Token stream",
                                   .alpn = {}, .recognise = recognise_token_stream, .schemes = {},
                                   .checklist_id = "token-stream", .rollout_plan_id = "", .rides_on = "http", .dissect = nullptr,
                                   .describe = nullptr, .frame_types = {}, .columns = {}, .join_records = nullptr,
                                   .merge_records = nullptr, .headers = kRequestHeaders}).id);
  register_captured_token_stream();
  register_live_token_stream();
  register_served_token_stream();
  register_token_stream_probes();
}

}  // namespace anthro
