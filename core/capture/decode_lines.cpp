// decode's JSON lines for anthro-v1 frames, negotiation blobs and HTTP messages, and the generic
// line of a frame a profile's own dissector cut (a format may write its own: decode_line).
#include "capture/decode_lines.h"

#include "metrics/request_json.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

json body_fields(const Body& body) {
  return std::visit(
      [](const auto& b) -> json {
        using T = std::decay_t<decltype(b)>;
        json j = {{"stream_id", b.stream_id}};
        if constexpr (std::is_same_v<T, RequestBody>) {
          j["json"] = parse_or_null(redact_request_json(b.json));
        } else if constexpr (std::is_same_v<T, ResponseBody>) {
          j["json"] = parse_or_null(b.json);
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          j["token_index"] = b.token_index;
          j["token_count"] = b.token_count;
          j.update(text_fields(b.text, b.invalid_utf8));
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          j["reason"] = b.raw_reason;
        } else {
          j["code"] = b.code;
          j["retry_after_ms"] = b.retry_after_ms;
          j["message"] = b.invalid_utf8 ? json(to_hex(b.message)) : json(std::string(b.message_view()));
        }
        return j;
      },
      body);
}

// The riders' fields of a row, each as its member of the line.
void write_rider_fields(json& j, const HttpRowParts& parts) {
  for (const auto& [rider, fields] : parts) {
    json value;
    fields->write_json(value);
    j[std::string(fields->json_key())] = std::move(value);
  }
}

}  // namespace

json frame_json(const CaptureConnection& c, const FrameEvent& e) {
  json j = {{"kind", "frame"},    {"conn", c.name},          {"dir", to_string(e.dir)},
            {"ts", e.ts},         {"offset", e.offset},       {"type", to_string(e.header.frame_type())},
            {"flags", e.header.flags}, {"token", token_hex(e.header.token)}, {"decrypted", e.decrypted}};
  if (e.body) j.update(body_fields(*e.body));
  if (e.refusal) j["error"] = to_string(*e.refusal);
  else if (e.no_key) j["error"] = "no key";
  if (!e.detail.empty() && (e.refusal || e.no_key)) j["detail"] = e.detail;
  return j;
}

// decode's line for an HTTP message or SSE event (kind "http"); a reply's end is a line only
// when a rider's fields tell something of it.
std::optional<json> http_json(const CaptureConnection& c, const HttpEvent& e) {
  static const char* const kMessage[] = {"request", "response", "sse_event", "reply_end", "token_ids"};
  if (e.kind == HttpEventKind::ReplyEnd && e.rider_fields.empty()) return std::nullopt;
  json j = {{"kind", "http"}, {"conn", c.name}, {"dir", to_string(e.dir)}, {"ts", e.ts}, {"stream_id", e.exchange},
            {"message", kMessage[static_cast<int>(e.kind)]}, {"summary", e.summary}};
  if (e.kind == HttpEventKind::Response || e.kind == HttpEventKind::ReplyEnd) j["status"] = e.status;
  write_rider_fields(j, e.rider_fields);
  j.update(text_fields(as_bytes(e.text), !is_valid_utf8(as_bytes(e.text))));
  return j;
}

json blob_json(const Blob& b) {
  return {{"role", b.role}, {"max_streams", b.max_streams}, {"default_max_tokens", b.default_max_tokens},
          {"flags", b.flags}, {"aead", b.aead}, {"ring_buffer_kib", b.ring_buffer_kib},
          {"connection_token", token_hex(b.connection_token)}};
}

json dissected_json(const CaptureConnection& c, const DissectedFrame& f) {
  const Profile& p = profile(c.profile.value_or(ProfileId::AnthroV1));
  json j = {{"kind", p.name}, {"conn", c.name}, {"dir", to_string(f.dir)}, {"ts", f.ts}, {"offset", f.offset},
            {"type", f.type < p.frame_types.size() ? p.frame_types[f.type] : "?"}, {"stream_id", f.stream}};
  if (!f.refusal.empty()) {
    j["refusal"] = f.refusal;
    return j;
  }
  const Bytes kept = kept_bytes(f);
  const KeptFrameView view = p.describe(KeptFrame{kept, f.type, f.dir, f.facts, false});
  j["summary"] = view.summary;
  json fields = json::array();  // in order, a name that repeats kept each time
  for (const FrameField& field : view.fields) fields.push_back({{"name", field.name}, {"value", field.value}});
  j["fields"] = std::move(fields);
  return j;
}

}  // namespace anthro
