// The HTTP baseline's bodies (Messages API and chat completions). Input: selector byte, then
// the body. Selector bits 0-1: a Messages request, a chat completions request, a Messages
// reply, a chat completions reply. Whatever parses is written back by our own writer and must
// parse to the same thing; whatever is refused names a reason.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "http/messages_api.h"

using namespace anthro;
using nlohmann::json;

namespace {

bool same_metadata(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || json::parse(*a, nullptr, false) == json::parse(*b, nullptr, false);
}

bool same_request(const RequestSpec& a, const RequestSpec& b, bool with_metadata) {
  return a.model == b.model && a.messages == b.messages && a.max_tokens == b.max_tokens &&
         a.stream == b.stream && a.system == b.system && a.temperature == b.temperature &&
         (!with_metadata || same_metadata(a.metadata_json, b.metadata_json));
}

bool same_response(const ResponseSpec& a, const ResponseSpec& b) {
  return a.id == b.id && a.model == b.model && a.stop_reason == b.stop_reason && a.content == b.content &&
         a.input_tokens == b.input_tokens && a.output_tokens == b.output_tokens;
}

// A request refused says why; a reply may be the server's own error, whose message may be empty.
void check_refusal(const Error& e, bool needs_detail = true) {
  if (e.reason.empty() || (needs_detail && e.detail.empty())) __builtin_trap();
}

void check_messages_request(std::string_view body) {
  auto spec = parse_messages_request(body);
  if (!spec) return check_refusal(spec.error());
  auto back = parse_messages_request(messages_request_json(*spec));
  if (!back || !same_request(*spec, *back, true)) __builtin_trap();
}

void check_chat_request(std::string_view body) {
  bool usage = false;
  auto spec = parse_chat_completions_request(body, &usage);
  if (!spec) return check_refusal(spec.error());
  bool usage_back = false;
  auto back = parse_chat_completions_request(chat_completions_request_json(*spec), &usage_back);
  // The writer always asks for usage when streaming, so the token count is known.
  if (!back || !same_request(*spec, *back, false) || usage_back != spec->stream) __builtin_trap();
}

template <class Parse, class Write>
void check_response(std::string_view body, Parse parse, Write write) {
  auto spec = parse(body);
  if (!spec) return check_refusal(spec.error(), false);
  auto back = parse(write(*spec));
  if (!back || !same_response(*spec, *back)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::string_view body = as_text({data + 1, size - 1});
  switch (data[0] & 3) {
    case 0: check_messages_request(body); break;
    case 1: check_chat_request(body); break;
    case 2: check_response(body, parse_messages_response, messages_response_json); break;
    default:
      check_response(body, [](std::string_view b) { return parse_chat_completions_response(b); },
                     [](const ResponseSpec& s) { return chat_completions_response_json(s, 0); });
  }
  return 0;
}
