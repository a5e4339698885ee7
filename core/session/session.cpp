#include "session/session.h"

#include <nlohmann/json.hpp>

#include "session/client.h"

namespace anthro {

using namespace net;
using nlohmann::json;

Result<SessionResult> run_session(const SessionConfig& config) {
  auto setup = prepare_client(config);
  if (!setup) return setup.error();
  asio::io_context io;
  SessionClient client(config, setup->target, setup->tls);
  SessionResult result;
  co_spawn(io, client.run(), [&](std::exception_ptr e, SessionResult r) {
    if (e) std::rethrow_exception(e);
    result = std::move(r);
  });
  io.run();
  return result;
}

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json request_json(const RequestResult& r) {
  const RequestFigures& f = r.figures;
  json j = {{"stream_id", r.stream_id},
            {"ttft_ms", opt(f.ttft_ms)},
            {"ttfot_ms", opt(f.ttfot_ms)},
            {"e2e_ms", opt(f.e2e_ms)},
            {"tokens", f.tokens},
            {"usage_output_tokens", f.usage_output_tokens ? json(*f.usage_output_tokens) : json(nullptr)},
            {"mean_itl_ms", opt(f.mean_itl_ms)},
            {"p99_itl_ms", opt(f.p99_itl_ms)},
            {"max_gap_ms", opt(f.max_gap_ms)},
            {"tokens_per_s", opt(f.tokens_per_s)},
            {"tpot_ms", opt(f.tpot_ms)},
            {"jitter_ms", opt(f.jitter_ms)},
            {"ttfb_ms", opt(f.ttfb_ms)},
            {"time_to_message_start_ms", opt(f.time_to_message_start_ms)},
            {"stop_reason", r.stop_reason ? json(to_string(*r.stop_reason)) : json(nullptr)},
            {"cancel_latency_ms", opt(f.cancel_latency_ms)},
            {"error", r.error ? json(*r.error) : json(nullptr)},
            {"error_code", r.error_code ? json(*r.error_code) : json(nullptr)},
            {"retry_after_ms", r.retry_after_ms ? json(*r.retry_after_ms) : json(nullptr)},
            {"usage_mismatch", f.usage_mismatch},
            {"invalid_utf8_frames", r.invalid_utf8_frames},
            {"token_gaps", r.token_gaps},
            {"token_duplicates", r.token_duplicates},
            {"auth_failures", r.auth_failures},
            // Invalid UTF-8 must not make the document unparseable: such text goes as hex.
            {"text", is_valid_utf8(as_bytes(r.text)) ? json(r.text) : json(nullptr)}};
  if (!is_valid_utf8(as_bytes(r.text))) j["text_hex"] = to_hex(as_bytes(r.text));
  j["itl_ms"] = f.itl_ms;
  if (r.server_timing)
    j["server_timing"] = {{"queue_us", r.server_timing->queue_us}, {"context_wait_us", r.server_timing->context_wait_us},
                          {"prefill_us", r.server_timing->prefill_us}, {"decode_us", r.server_timing->decode_us}};
  return j;
}

}  // namespace

std::string session_json(const SessionResult& s) {
  json j = {{"target", s.target},
            {"transport", s.transport},
            {"alpn", s.alpn.empty() ? json(nullptr) : json(s.alpn)},
            {"suite", s.suite.empty() ? json(nullptr) : json(s.suite)},
            {"tls_suite", s.tls_suite.empty() ? json(nullptr) : json(s.tls_suite)},
            {"negotiation", s.transport == "http" ? json(nullptr) : json(s.extension_used ? "extension" : "preface")},
            {"connect_ms", opt(s.connect_ms)},
            {"handshake_ms", opt(s.handshake_ms)},
            {"error", s.error ? json(*s.error) : json(nullptr)},
            {"requests", json::array()}};
  for (const auto& r : s.requests) j["requests"].push_back(request_json(r));
  return j.dump();
}

}  // namespace anthro
