#include "protocol/describe.h"

namespace anthro {

std::string describe_body(const Body& body) {
  return std::visit(
      [](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, RequestBody>) {
          return redact_request_json(b.json);
        } else if constexpr (std::is_same_v<T, ResponseBody>) {
          return "stop_reason=" + std::string(to_string(b.stop_reason)) +
                 " output_tokens=" + std::to_string(b.output_tokens);
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          std::string text = b.invalid_utf8 ? "hex " + to_hex(b.text) + " (invalid_utf8)"
                                            : "\"" + std::string(b.text_view()) + "\"";
          return "#" + std::to_string(b.token_index) + "+" + std::to_string(b.token_count) + " " + text;
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          static const char* names[] = {"user", "deadline", "shutdown"};
          return std::string("reason=") + names[static_cast<int>(b.reason())];
        } else {
          return "code=" + std::to_string(b.code) + " retry_after_ms=" + std::to_string(b.retry_after_ms) +
                 " " + (b.invalid_utf8 ? "hex " + to_hex(b.message) : std::string(b.message_view()));
        }
      },
      body);
}

std::string describe_status(const FrameEvent& e) {
  if (e.refusal) return std::string(to_string(*e.refusal)) + ": " + e.detail;
  if (e.no_key) return "no key";
  return "ok";
}

}  // namespace anthro
