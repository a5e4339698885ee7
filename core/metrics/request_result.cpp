#include "metrics/request_result.h"

#include <chrono>

#include "util/json.h"

namespace anthro {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* to_string(RequestEnd end) {
  switch (end) {
    case RequestEnd::Open: return "open";
    case RequestEnd::Response: return "response";
    case RequestEnd::Error: return "error";
    case RequestEnd::ConnectionError: return "connection_error";
    case RequestEnd::ProtocolError: return "protocol_error";
    case RequestEnd::ConnectionClosed: return "connection_closed";
    case RequestEnd::Timeout: return "timeout";
    case RequestEnd::SendFailed: return "send_failed";
    case RequestEnd::ClientClosed: return "client_closed";
    case RequestEnd::CancelClosed: return "cancel_closed";
  }
  return "open";
}

std::optional<RequestEnd> parse_request_end(std::string_view text) {
  for (int i = 0; i <= static_cast<int>(RequestEnd::CancelClosed); ++i)
    if (text == to_string(static_cast<RequestEnd>(i))) return static_cast<RequestEnd>(i);
  return std::nullopt;
}

namespace {

std::optional<std::string> probe_in(const nlohmann::json& metadata) {
  if (!metadata.is_object()) return std::nullopt;
  auto probe = metadata.find("anthro_probe");
  if (probe == metadata.end() || !probe->is_string()) return std::nullopt;
  return probe->get<std::string>();
}

}  // namespace

RequestMeta meta_of_request(std::string_view request_json) {
  RequestMeta meta;
  auto parsed = parse_json(request_json);
  if (!parsed || !parsed->is_object()) return meta;
  const nlohmann::json& doc = *parsed;
  if (auto m = doc.find("metadata"); m != doc.end()) meta.probe = probe_in(*m);
  if (auto m = doc.find("max_tokens"); m != doc.end() && m->is_number_unsigned()) meta.max_tokens = m->get<std::uint64_t>();
  return meta;
}

RequestMeta meta_of_request(const RequestBody& request) {
  // Without the word and without a backslash (an escaped key) the JSON has no "metadata"
  // member, and the probe is all its second parse would find: max_tokens was read already.
  bool may_have_metadata = request.json.find("metadata") != std::string::npos || request.json.find('\\') != std::string::npos;
  RequestMeta meta = may_have_metadata ? meta_of_request(request.json) : RequestMeta{};
  meta.max_tokens = request.max_tokens;
  return meta;
}

std::optional<std::string> probe_of_metadata(std::string_view metadata_json) {
  auto parsed = parse_json(metadata_json);
  return parsed ? probe_in(*parsed) : std::nullopt;
}

void RequestRecorder::request_sent(double t, RequestMeta meta) {
  r_.timeline.request_written = t;
  r_.probe = std::move(meta.probe);
  r_.max_tokens = meta.max_tokens;
}

void RequestRecorder::first_byte(double t) {
  if (!r_.timeline.first_byte) r_.timeline.first_byte = t;
}

void RequestRecorder::message_start(double t) {
  if (!r_.timeline.message_start) r_.timeline.message_start = t;
}

void RequestRecorder::tokens(double t, std::uint32_t count, std::string_view text, bool visible,
                             std::optional<std::uint32_t> index, bool invalid_utf8) {
  if (index) {
    if (*index > next_index_) ++r_.token_gaps;
    if (*index < next_index_) ++r_.token_duplicates;
    next_index_ = *index + count;
  }
  if (invalid_utf8) ++r_.invalid_utf8_frames;
  r_.timeline.tokens.push_back({t, count, visible});
  r_.text += text;
  tokens_ += count;
}

void RequestRecorder::usage(std::uint64_t output_tokens) { r_.timeline.usage_output_tokens = output_tokens; }

void RequestRecorder::cancel_sent(double t) {
  if (!r_.timeline.cancel_written) r_.timeline.cancel_written = t;
}

void RequestRecorder::response(double t, std::optional<StopReason> stop, std::optional<std::uint64_t> output_tokens,
                               std::string_view content, std::optional<Timing> timing) {
  r_.end = RequestEnd::Response;
  r_.timeline.end = t;
  if (stop) r_.stop_reason = stop;
  if (output_tokens) r_.timeline.usage_output_tokens = output_tokens;
  r_.text += content;
  if (timing) r_.server_timing = timing;
  if (stop == StopReason::Cancelled) r_.timeline.cancelled_response = t;
}

void RequestRecorder::server_error(double t, int code, std::optional<std::uint32_t> retry_after_ms,
                                   std::string_view message) {
  r_.end = RequestEnd::Error;
  r_.timeline.end = t;
  r_.error_code = code;
  r_.retry_after_ms = retry_after_ms;
  r_.error = std::to_string(code) + ": " + std::string(message);
}

void RequestRecorder::ended(RequestEnd end, std::string why, std::optional<double> t) {
  r_.end = end;
  r_.error = std::move(why);
  if (t) r_.timeline.end = t;
}

void RequestRecorder::finish(bool streamed, ItlSamples samples) {
  r_.figures = compute_figures(r_.timeline, samples);
  if (!streamed) r_.figures.usage_mismatch = false;
}

}  // namespace anthro
