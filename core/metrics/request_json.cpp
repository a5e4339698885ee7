#include "metrics/request_json.h"

#include <cmath>

#include "metrics/stats.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

json timing_json(const Timing& t) {
  return {{"queue_us", t.queue_us}, {"context_wait_us", t.context_wait_us}, {"prefill_us", t.prefill_us},
          {"decode_us", t.decode_us}};
}

}  // namespace

json text_fields(ByteView text, bool invalid) {
  if (!invalid) return {{"text", std::string(as_text(text))}};
  return {{"text", nullptr}, {"invalid_utf8", true}, {"text_hex", to_hex(text)}};
}

json request_json(const RequestResult& r, RequestJsonParts parts) {
  const RequestFigures& f = r.figures;
  json j = {{"stream_id", r.stream_id},
            {"end", to_string(r.end)},
            {"sent_s", r.timeline.request_written},
            {"ttft_ms", json_or_null(f.ttft_ms)},
            {"ttfot_ms", json_or_null(f.ttfot_ms)},
            {"ttfb_ms", json_or_null(f.ttfb_ms)},
            {"time_to_message_start_ms", json_or_null(f.time_to_message_start_ms)},
            {"e2e_ms", json_or_null(f.e2e_ms)},
            {"tokens", f.tokens},
            {"usage_output_tokens", json_or_null(f.usage_output_tokens)},
            {"usage_mismatch", f.usage_mismatch},
            {"mean_itl_ms", json_or_null(f.mean_itl_ms)},
            {"p99_itl_ms", json_or_null(f.p99_itl_ms)},
            {"max_gap_ms", json_or_null(f.max_gap_ms)},
            {"jitter_ms", json_or_null(f.jitter_ms)},
            {"tokens_per_s", json_or_null(f.tokens_per_s)},
            {"tpot_ms", json_or_null(f.tpot_ms)},
            {"stop_reason", r.stop_reason ? json(to_string(*r.stop_reason)) : json(nullptr)},
            {"cancel_latency_ms", json_or_null(f.cancel_latency_ms)},
            {"error", json_or_null(r.error)},
            {"error_code", json_or_null(r.error_code)},
            {"retry_after_ms", json_or_null(r.retry_after_ms)},
            {"server_timing", r.server_timing ? timing_json(*r.server_timing) : json(nullptr)},
            {"invalid_utf8_frames", r.invalid_utf8_frames},
            {"token_gaps", r.token_gaps},
            {"token_duplicates", r.token_duplicates},
            {"auth_failures", r.auth_failures},
            {"probe", json_or_null(r.probe)},
            {"max_tokens", json_or_null(r.max_tokens)}};
  if (r.packets) j["packets"] = {r.packets->first, r.packets->second};
  for (const auto& [id, part] : r.extensions.all()) part->write_json(j[std::string(part->json_key())]);
  if (parts.itl_samples) j["itl_ms"] = f.itl_ms;
  // Invalid UTF-8 must not make the document unparseable: such text goes as hex.
  if (parts.text) j.update(text_fields(as_bytes(r.text), !is_valid_utf8(as_bytes(r.text))));
  return j;
}

std::string request_json_line(const RequestResult& r, std::string_view text, bool itl_samples) {
  json j = request_json(r, {false, itl_samples});
  if (!is_valid_utf8(as_bytes(text))) {
    j.update(text_fields(as_bytes(text), true));
    return dump_json(j);
  }
  std::string out = dump_json(j);
  out.pop_back();  // the closing brace: the text comes last
  out += ",\"text\":";
  out += '"';
  append_json_escaped(out, text);
  out += '"';
  out += '}';
  return out;
}

json summary_json(const Summary& s) {
  auto num = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  return {{"n", s.n}, {"p50", num(s.p50)}, {"p90", num(s.p90)}, {"p95", num(s.p95)}, {"p99", num(s.p99)},
          {"mean", num(s.mean)}, {"stddev", num(s.stddev)}};
}

}  // namespace anthro
