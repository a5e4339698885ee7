#include "layerzero/view.h"

#include <cstdio>

#include "crypto/hash.h"
#include "metrics/request_json.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;
using namespace lz;

namespace {

constexpr std::size_t kSummaryText = 80;  // characters of a text payload in a summary line

std::string hex_number(std::uint64_t v, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

// The frame's header when its 8 bytes are there.
std::optional<lz::FrameHeader> header_of(ByteView frame) {
  if (frame.size() < lz::kHeaderSize) return std::nullopt;
  return lz::parse_header(frame.data());
}

bool whole(ByteView frame) {
  auto h = header_of(frame);
  return h && frame.size() == h->frame_size();
}

ByteView payload_of(ByteView frame) {
  auto h = header_of(frame);
  if (!h) return {};
  const std::size_t end = std::min<std::size_t>(frame.size(), lz::kHeaderSize + h->payload_length);
  return frame.subspan(lz::kHeaderSize, end - lz::kHeaderSize);
}

std::optional<Payload> decoded(const LzFrameFacts& f) {
  auto type = lz_known_type(f.bytes);
  if (!type || !whole(f.bytes)) return std::nullopt;
  auto p = decode_payload(*type, payload_of(f.bytes), f.dir);
  if (!p) return std::nullopt;
  return std::move(*p);
}

std::string constraints_text(std::uint32_t c) {
  std::string text = hex_number(c, 2);
  std::string names;
  for (auto [bit, name] : {std::pair{kConstraintTools, "tools"}, {kConstraintJsonOnly, "JSON only"},
                           {kConstraintDynamicFrameSize, "dynamic frame size"}, {kConstraintApiKey, "API key"}})
    if (c & bit) names += (names.empty() ? "" : ", ") + std::string(name);
  return names.empty() ? text : text + " (" + names + ")";
}

std::string usage_text(std::uint8_t usage) {
  return hex_number(usage, 2) + " (" + std::to_string(usage * 100 / 255) + " %)";
}

std::string terminate_text(const Terminate& t) {
  auto reason = t.reason();
  return std::to_string(t.code) + " (" + (reason ? to_string(*reason) : "not in the table") + ")";
}

// Text as it is, or its hex when it is no UTF-8 (a detail tree shows what a byte is).
std::string shown_text(std::string_view text) {
  return is_valid_utf8(as_bytes(text)) ? std::string(text) : "(not UTF-8) " + to_hex(as_bytes(text));
}

std::string shortened(std::string text, std::size_t n) {
  if (text.size() <= n) return text;
  std::size_t at = n;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;  // not inside a character
  return text.substr(0, at) + "…";
}

std::string token_field(const std::optional<std::uint64_t>& fingerprint) {
  return fingerprint ? lz_token_text(*fingerprint) : std::string("64 bytes");
}

// Appends each payload part's field; `at` is the payload's first byte in the frame.
class PayloadFields {
 public:
  PayloadFields(std::vector<FrameField>& out, std::size_t at, const LzFrameFacts& f) : out_(out), at_(at), f_(f) {}
  void operator()(const TextPayload& p) { add("text", shown_text(p.text), p.text.size()); }
  void operator()(const ToolCall& p) {
    add("name_length", std::to_string(p.name.size()), 1);
    add("name", shown_text(p.name), p.name.size());
    add("parameters", shown_text(p.parameters_json), p.parameters_json.size());
  }
  void operator()(const ToolResult& p) {
    add("call_sequence_id", std::to_string(p.call_sequence_id), 4);
    add("result", shown_text(p.result_json), p.result_json.size());
  }
  void operator()(const ClientHeartbeat& p) { add("client_buffer_usage", usage_text(p.buffer_usage), 1); }
  void operator()(const ServerHeartbeat& p) { add("server_time_ns", std::to_string(p.server_time_ns), 8); }
  void operator()(const Terminate& p) { add("reason", terminate_text(p), 2); }
  void operator()(const SessionInit& p) {
    add("model_id_length", std::to_string(p.terms.model_id.size()), 1);
    add("model_id", shown_text(p.terms.model_id), p.terms.model_id.size());
    add("budget_ms", std::to_string(p.terms.budget_ms), 4);
    add("constraints", constraints_text(p.terms.constraints), 4);
    if (p.resume) {
      add("session_token", token_field(f_.token_fingerprint), lz::kTokenSize);
      add("last_server_sequence_id", std::to_string(p.resume->last_server_sequence_id), 4);
      add("client_time_ns", std::to_string(p.resume->client_time_ns), 8);
    }
    if (!p.api_key) return;
    add("api_key_length", std::to_string(p.api_key->size()), 1);
    add("api_key", std::to_string(p.api_key->size()) + " bytes, not shown", p.api_key->size());
  }
  void operator()(const SessionAck& p) {
    add("session_token", token_field(f_.token_fingerprint), lz::kTokenSize);
    add("last_client_sequence_id", std::to_string(p.last_client_sequence_id), 4);
    add("server_time_ns", std::to_string(p.server_time_ns), 8);
  }

 private:
  void add(const char* name, std::string value, std::size_t size) {
    out_.push_back({name, std::move(value), at_, at_ + size, 1});
    at_ += size;
  }
  std::vector<FrameField>& out_;
  std::size_t at_;
  const LzFrameFacts& f_;
};

std::string summary_of(const Payload& payload, const LzFrameFacts& f) {
  return std::visit(
      [&](const auto& p) -> std::string {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, TextPayload>) return "\"" + shortened(p.text, kSummaryText) + "\"";
        else if constexpr (std::is_same_v<T, ToolCall>) return p.name + " " + shortened(p.parameters_json, kSummaryText);
        else if constexpr (std::is_same_v<T, ToolResult>)
          return "for #" + std::to_string(p.call_sequence_id) + ": " + shortened(p.result_json, kSummaryText);
        else if constexpr (std::is_same_v<T, ClientHeartbeat>) return "buffer usage " + usage_text(p.buffer_usage);
        else if constexpr (std::is_same_v<T, ServerHeartbeat>) return "server time " + std::to_string(p.server_time_ns) + " ns";
        else if constexpr (std::is_same_v<T, Terminate>) return "reason " + terminate_text(p);
        else if constexpr (std::is_same_v<T, SessionInit>) {
          std::string s = "model \"" + shortened(p.terms.model_id, kSummaryText) + "\", budget " + std::to_string(p.terms.budget_ms) +
                          " ms, constraints " + constraints_text(p.terms.constraints);
          if (p.resume) s += ", resume after server #" + std::to_string(p.resume->last_server_sequence_id);
          return s;
        } else {
          return "last client #" + std::to_string(p.last_client_sequence_id) + ", token " + token_field(f.token_fingerprint);
        }
      },
      payload);
}

json payload_json(const Payload& payload, std::optional<std::uint64_t> fingerprint) {
  auto token = [&] {
    json t = {{"bytes", lz::kTokenSize}};
    if (fingerprint) t["sha256_prefix"] = hex_number(*fingerprint, 16).substr(2);
    return t;
  };
  return std::visit(
      [&](const auto& p) -> json {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, TextPayload>) return text_fields(as_bytes(p.text), !is_valid_utf8(as_bytes(p.text)));
        else if constexpr (std::is_same_v<T, ToolCall>) return {{"name", p.name}, {"parameters", parse_or_null(p.parameters_json)}};
        else if constexpr (std::is_same_v<T, ToolResult>)
          return {{"call_sequence_id", p.call_sequence_id}, {"result", parse_or_null(p.result_json)}};
        else if constexpr (std::is_same_v<T, ClientHeartbeat>) return {{"client_buffer_usage", p.buffer_usage}};
        else if constexpr (std::is_same_v<T, ServerHeartbeat>) return {{"server_time_ns", p.server_time_ns}};
        else if constexpr (std::is_same_v<T, Terminate>) {
          auto reason = p.reason();
          return {{"code", p.code}, {"reason", reason ? json(to_string(*reason)) : json(nullptr)}};
        } else if constexpr (std::is_same_v<T, SessionInit>) {
          json j = {{"model_id", p.terms.model_id}, {"budget_ms", p.terms.budget_ms}, {"constraints", p.terms.constraints}};
          if (p.resume)
            j["resume"] = {{"session_token", token()}, {"last_server_sequence_id", p.resume->last_server_sequence_id},
                           {"client_time_ns", p.resume->client_time_ns}};
          if (p.api_key) j["api_key"] = {{"bytes", p.api_key->size()}};  // its length only, never the key
          return j;
        } else {
          return {{"session_token", token()}, {"last_client_sequence_id", p.last_client_sequence_id},
                  {"server_time_ns", p.server_time_ns}};
        }
      },
      payload);
}

void crc_fields(const LzFrameFacts& f, const lz::FrameHeader& h, std::vector<FrameField>& out) {
  const std::size_t at = lz::kHeaderSize + h.payload_length;
  if (f.bytes.size() < at + lz::kCrcSize) return;
  const std::uint32_t stated = load_u32(f.bytes.data() + at);
  std::string verdict = !f.computed_crc ? "" : *f.computed_crc == stated ? " (matches)" : " (differs)";
  out.push_back({"crc32c", hex_number(stated, 8) + verdict, at, at + lz::kCrcSize, 0});
  out.push_back({"stated", hex_number(stated, 8), at, at + lz::kCrcSize, 1});
  if (f.computed_crc) out.push_back({"computed", hex_number(*f.computed_crc, 8) + " over bytes 0–" + std::to_string(at - 1), 0, 0, 1});
}

}  // namespace

std::optional<PayloadType> lz_known_type(ByteView frame) {
  if (frame.size() < lz::kHeaderSize || !is_known_payload_type(frame[4])) return std::nullopt;
  return static_cast<PayloadType>(frame[4]);
}

std::optional<std::pair<std::size_t, std::size_t>> lz_token_range(ByteView frame) {
  auto type = lz_known_type(frame);
  if (!type || !whole(frame)) return std::nullopt;
  const ByteView payload = payload_of(frame);
  if (*type == PayloadType::SessionAck && length_allowed(*type, payload, Direction::ServerToClient))
    return std::pair{lz::kHeaderSize, lz::kHeaderSize + lz::kTokenSize};
  // A resuming INIT: the id's length, the id, budget and constraints, then the token.
  auto layout = *type == PayloadType::SessionInit ? session_init_layout(payload) : std::nullopt;
  if (!layout || !layout->resume) return std::nullopt;
  const std::size_t at = lz::kHeaderSize + kSessionTermsFixed + layout->model_id_length;
  return std::pair{at, at + lz::kTokenSize};
}

std::optional<std::pair<std::size_t, std::size_t>> lz_api_key_range(ByteView frame) {
  if (lz_known_type(frame) != PayloadType::SessionInit || !whole(frame)) return std::nullopt;
  auto layout = session_init_layout(payload_of(frame));
  if (!layout || !layout->key_length) return std::nullopt;
  const std::size_t end = frame.size() - lz::kCrcSize;  // the key ends the payload
  return std::pair{end - layout->key_length, end};
}

std::uint64_t lz_token_fingerprint(ByteView token) {
  return load_u64(sha256(token).data());
}

std::string lz_token_text(std::uint64_t fingerprint) {
  return std::to_string(lz::kTokenSize) + " bytes, sha256 " + hex_number(fingerprint, 16).substr(2) + "…";
}

std::optional<std::uint32_t> lz_computed_crc(ByteView frame) {
  if (!whole(frame)) return std::nullopt;
  return crc32c(frame.first(frame.size() - lz::kCrcSize));
}

std::vector<FrameField> lz_frame_fields(const LzFrameFacts& f) {
  std::vector<FrameField> out;
  auto h = header_of(f.bytes);
  if (!h) {
    out.push_back({"bytes", to_hex(f.bytes), 0, f.bytes.size(), 0});
    return out;
  }
  auto type = lz_known_type(f.bytes);
  out.push_back({"header", "", 0, lz::kHeaderSize, 0});
  out.push_back({"sequence_id", std::to_string(h->sequence_id), 0, 4, 1});
  out.push_back({"payload_type", hex_number(f.bytes[4], 2) + " (" + (type ? to_string(*type) : "not in the table") + ")", 4, 5, 1});
  out.push_back({"payload_length", std::to_string(h->payload_length), 5, 8, 1});
  const ByteView payload = payload_of(f.bytes);
  std::string arrived = payload.size() < h->payload_length ? ", " + std::to_string(payload.size()) + " arrived" : "";
  out.push_back({"payload", std::to_string(h->payload_length) + " bytes" + arrived, lz::kHeaderSize, lz::kHeaderSize + payload.size(), 0});
  if (auto p = decoded(f)) std::visit(PayloadFields(out, lz::kHeaderSize, f), *p);
  crc_fields(f, *h, out);
  return out;
}

std::string lz_summary(const LzFrameFacts& f) {
  if (auto p = decoded(f)) return summary_of(*p, f);
  auto h = header_of(f.bytes);
  if (!h) return std::to_string(f.bytes.size()) + " bytes, fewer than a header";
  return std::to_string(h->payload_length) + "-byte payload";
}

std::string lz_pretty_json(const LzFrameFacts& f) {
  auto p = decoded(f);
  if (!p) return {};
  const std::string* text = nullptr;
  if (const auto* call = std::get_if<ToolCall>(&*p)) text = &call->parameters_json;
  if (const auto* result = std::get_if<ToolResult>(&*p)) text = &result->result_json;
  if (!text) return {};
  auto doc = parse_json(*text);
  return doc ? dump_json(*doc, 2) : std::string();
}

json lz_frame_json(const std::string& conn, const WireFrame& frame) {
  json j = {{"kind", "layer_zero"}, {"conn", conn}, {"dir", to_string(frame.dir)}, {"ts", frame.ts}, {"offset", frame.offset}};
  auto h = header_of(frame.bytes);
  auto type = lz_known_type(frame.bytes);
  if (h) {
    j["sequence_id"] = h->sequence_id;
    j["type"] = type ? json(to_string(*type)) : json(nullptr);
    j["payload_type"] = frame.bytes[4];
    j["payload_length"] = h->payload_length;
  }
  if (whole(frame.bytes)) j["crc32c"] = load_u32(frame.bytes.data() + frame.bytes.size() - lz::kCrcSize);
  if (frame.refusal) {
    j["error"] = to_string(frame.refusal->reason);
    j["detail"] = frame.refusal->detail;
    return j;
  }
  std::optional<std::uint64_t> fingerprint;
  if (auto range = lz_token_range(frame.bytes))
    fingerprint = lz_token_fingerprint(frame.bytes.subspan(range->first, range->second - range->first));
  if (auto p = decoded(LzFrameFacts{frame.bytes, frame.dir, std::nullopt, fingerprint})) j.update(payload_json(*p, fingerprint));
  return j;
}

}  // namespace anthro
