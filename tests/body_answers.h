// A REQUEST's or RESPONSE's parse written out whole, member by member (a temperature by its
// bits, so -0 and 0 differ), or the error's words: two readers agree on a body when these are
// equal. parse_request and parse_request_by_document, for one (test_frames, fuzz_body).
#pragma once

#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/body.h"

namespace anthro::test {

inline std::string body_answer(const Result<RequestBody>& r) {
  using nlohmann::json;
  if (!r) return "error " + r.error().reason + ": " + r.error().detail;
  json messages = json::array();
  for (const ChatMessage& m : r->messages) messages.push_back({m.role, m.content});
  auto or_null = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json out = {{"stream_id", r->stream_id},
              {"json", r->json},
              {"model", r->model},
              {"messages", messages},
              {"max_tokens", or_null(r->max_tokens)},
              {"stream", r->stream},
              {"system", or_null(r->system)},
              {"temperature", r->temperature ? json(std::bit_cast<std::uint64_t>(*r->temperature)) : json(nullptr)},
              {"api_key", or_null(r->api_key)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

inline std::string body_answer(const Result<ResponseBody>& r) {
  using nlohmann::json;
  if (!r) return "error " + r.error().reason + ": " + r.error().detail;
  json timing = nullptr;
  if (r->timing) timing = {r->timing->queue_us, r->timing->context_wait_us, r->timing->prefill_us, r->timing->decode_us};
  json out = {{"stream_id", r->stream_id},
              {"json", r->json},
              {"id", r->id},
              {"model", r->model},
              {"stop_reason", to_string(r->stop_reason)},
              {"content", r->content ? json(*r->content) : json(nullptr)},
              {"input_tokens", r->input_tokens},
              {"output_tokens", r->output_tokens},
              {"timing", timing}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace anthro::test
