#include "protocol/body.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

Error body_error(std::string detail) { return make_error("body", std::move(detail)); }

std::string length_detail(const char* what, std::size_t have, std::size_t need) {
  return std::string(what) + " body is " + std::to_string(have) + " bytes, minimum " +
         std::to_string(need);
}

// Parses a JSON object after the 4-byte stream_id: strict UTF-8, no BOM. `unique_key`, when
// given, is a top-level member refused when it appears twice (nlohmann keeps the last one
// silently, and two api_keys must not mean whichever the reader picks).
// What is wrong with a body's JSON text before any parse: a byte order mark, or bytes that are
// not UTF-8 ("JSON starts with a byte order mark"), or nullopt.
std::optional<std::string> text_fault(ByteView text) {
  if (text.size() >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF) return "JSON starts with a byte order mark";
  if (!is_valid_utf8(text)) return "JSON is not valid UTF-8";
  return std::nullopt;
}

Result<json> parse_json_object(ByteView text, const char* what, const char* unique_key = nullptr) {
  if (auto fault = text_fault(text)) return body_error(std::string(what) + " " + *fault);
  int seen = 0;
  json::parser_callback_t count_key = [&](int depth, json::parse_event_t event, json& parsed) {
    // Keys arrive unescaped, so "api_\u006bey" counts as api_key.
    if (event == json::parse_event_t::key && depth == 1 && parsed == unique_key) ++seen;
    return true;
  };
  auto doc = unique_key ? parse_json(as_text(text), count_key) : parse_json(as_text(text));
  if (!doc) return body_error(std::string(what) + " body is " + doc.error().detail);
  if (seen > 1) return body_error(std::string(what) + " has a duplicate " + unique_key + " member");
  if (!doc->is_object()) return body_error(std::string(what) + " JSON is not an object");
  return doc;
}

bool is_u32(const json& v) {
  return v.is_number_unsigned() && v.get<std::uint64_t>() <= std::numeric_limits<std::uint32_t>::max();
}

std::optional<std::string> optional_string(const json& doc, const char* key, bool& bad) {
  auto it = doc.find(key);
  if (it == doc.end()) return std::nullopt;
  if (!it->is_string()) {
    bad = true;
    return std::nullopt;
  }
  return it->get<std::string>();
}

Result<std::vector<ChatMessage>> parse_messages(const json& doc) {
  auto it = doc.find("messages");
  if (it == doc.end()) return body_error("REQUEST lacks \"messages\"");
  if (!it->is_array()) return body_error("REQUEST \"messages\" is not an array");
  std::vector<ChatMessage> out;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    auto where = "REQUEST messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m.contains("content"))
      return body_error(where + " needs \"role\" and \"content\"");
    if (!m["role"].is_string() || (m["role"] != "user" && m["role"] != "assistant"))
      return body_error(where + " role must be \"user\" or \"assistant\"");
    if (!m["content"].is_string()) return body_error(where + " content is not a string");
    out.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
  }
  return out;
}

Result<std::uint64_t> count_member(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned())
    return body_error(where + " \"" + key + "\" is missing or not a non-negative integer");
  return it->get<std::uint64_t>();
}

Result<std::optional<Timing>> parse_timing(const json& doc) {
  auto it = doc.find("timing");
  if (it == doc.end()) return std::optional<Timing>{};
  if (!it->is_object()) return body_error("RESPONSE \"timing\" is not an object");
  Timing t;
  std::uint64_t* fields[] = {&t.queue_us, &t.context_wait_us, &t.prefill_us, &t.decode_us};
  const char* names[] = {"queue_us", "context_wait_us", "prefill_us", "decode_us"};
  for (int i = 0; i < 4; ++i) {
    if (!it->contains(names[i])) continue;  // a server may report only what it measured
    auto v = count_member(*it, names[i], "RESPONSE timing");
    if (!v) return v.error();
    *fields[i] = *v;
  }
  return std::optional<Timing>{t};
}

// The fast reading of REQUEST and RESPONSE bodies: nlohmann's SAX events, the values a body's
// members need kept by their path, no document built (callgrind, the bench capture's bodies: a
// REQUEST 34 K -> 23 K instructions, a RESPONSE 22 K -> 18 K; the rest is nlohmann's lexer).
// Whatever it does not expect (a repeated key, a root that is no object, nesting past the
// limit, a value of the wrong kind, an error) makes the reader fall back to the document's path,
// which gives the same body or says what is wrong: only bodies both read alike take this one.
struct Kept {
  enum class Kind { Null, Bool, Signed, Unsigned, Float, String, Object, Array } kind;
  std::string path;  // "model", "messages.0.role", "usage.input_tokens"
  bool boolean = false;
  std::int64_t signed_number = 0;
  std::uint64_t unsigned_number = 0;
  double float_number = 0;
  std::string text;
};

class KeepingReader : public nlohmann::json_sax<json> {
 public:
  // Values under the root's members `wanted`, down to `depth` levels below the root.
  KeepingReader(std::initializer_list<std::string_view> wanted, std::size_t depth) : wanted_(wanted), depth_(depth) {
    levels_.reserve(depth + 2);  // a body's few levels and values, without regrowing
    kept_.reserve(32);
  }

  // The values, or nullopt when this reader gave up on the body.
  static std::optional<std::vector<Kept>> read(std::string_view text, KeepingReader reader) {
    if (!json::sax_parse(text, &reader, json::input_format_t::json, true) || reader.gave_up_) return std::nullopt;
    return std::move(reader.kept_);
  }
  static const Kept* find(const std::vector<Kept>& kept, std::string_view path) {
    for (const Kept& k : kept)
      if (k.path == path) return &k;
    return nullptr;
  }

  bool null() override { return value(Kept::Kind::Null, [](Kept&) {}); }
  bool boolean(bool v) override { return value(Kept::Kind::Bool, [v](Kept& k) { k.boolean = v; }); }
  bool number_integer(number_integer_t v) override {
    return value(Kept::Kind::Signed, [v](Kept& k) { k.signed_number = v; });
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value(Kept::Kind::Unsigned, [v](Kept& k) { k.unsigned_number = v; });
  }
  bool number_float(number_float_t v, const string_t&) override {
    return value(Kept::Kind::Float, [v](Kept& k) { k.float_number = v; });
  }
  bool string(string_t& v) override { return value(Kept::Kind::String, [&v](Kept& k) { k.text = std::move(v); }); }
  bool binary(binary_t&) override { return give_up(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    Level& l = levels_.back();
    if (!l.kept) return true;  // what is not kept may repeat a key: the document drops it too
    if (l.keys.size() >= kMaxKeys) return give_up();
    for (const std::string& seen : l.keys)
      if (seen == k) return give_up();  // the document keeps the last, or refuses it (api_key)
    l.keys.push_back(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return give_up(); }

 private:
  // A body's lookups scan the kept values (a few dozen in a real body): a bound keeps a hostile
  // one's many messages from costing their square; past it the document's way reads it.
  static constexpr std::size_t kMaxKeys = 64, kMaxKept = 256;
  struct Level {
    bool object = false;
    bool kept = false;      // its values are kept
    std::size_t items = 0;  // an array's so far
    std::vector<std::string> keys;
    std::string path;  // of this container ("" for the root)
  };

  bool give_up() {
    gave_up_ = true;
    return false;
  }
  // The path of the value about to arrive, when it is kept.
  std::optional<std::string> place() {
    Level& parent = levels_.back();
    if (!parent.kept || levels_.size() > depth_) return std::nullopt;
    if (!parent.object) return parent.path + "." + std::to_string(parent.items++);
    const std::string& name = parent.keys.back();
    if (levels_.size() > 1) return parent.path + "." + name;
    if (std::find(wanted_.begin(), wanted_.end(), name) == wanted_.end()) return std::nullopt;
    return name;
  }
  bool keep(Kept::Kind kind, std::string path) {
    if (kept_.size() >= kMaxKept) return give_up();
    kept_.push_back({kind, std::move(path)});
    return true;
  }
  template <class Fill>
  bool value(Kept::Kind kind, Fill fill) {
    if (levels_.empty()) return give_up();  // the root is no object
    std::optional<std::string> path = place();
    if (!path) return true;
    if (!keep(kind, std::move(*path))) return false;
    fill(kept_.back());
    return true;
  }
  bool open(bool object) {
    if (levels_.size() >= kMaxJsonDepth) return give_up();
    if (levels_.empty()) {
      if (!object) return give_up();
      levels_.emplace_back().kept = true;
      levels_.back().object = true;
      return true;
    }
    std::optional<std::string> path = place();
    if (path && !keep(object ? Kept::Kind::Object : Kept::Kind::Array, *path)) return false;
    Level& l = levels_.emplace_back();
    l.object = object;
    l.kept = path.has_value();
    if (path) l.path = std::move(*path);
    return true;
  }
  bool close() {
    levels_.pop_back();
    return true;
  }

  std::vector<std::string_view> wanted_;
  std::size_t depth_;
  std::vector<Level> levels_;
  std::vector<Kept> kept_;
  bool gave_up_ = false;
};

std::optional<double> number_of(const Kept& k) {
  switch (k.kind) {
    case Kept::Kind::Signed: return static_cast<double>(k.signed_number);
    case Kept::Kind::Unsigned: return static_cast<double>(k.unsigned_number);
    case Kept::Kind::Float: return k.float_number;
    default: return std::nullopt;
  }
}

// An optional member that must be a string when present: false when it is not.
bool optional_kept_string(const std::vector<Kept>& kept, std::string_view path, std::optional<std::string>& out) {
  const Kept* k = KeepingReader::find(kept, path);
  if (!k) return true;
  if (k->kind != Kept::Kind::String) return false;
  out = k->text;
  return true;
}

// parse_request's body by the fast reader; nullopt sends it down the document's path (the
// stream_id and the JSON text are the caller's).
std::optional<RequestBody> read_request_fast(ByteView text, std::uint8_t frame_flags) {
  if (text_fault(text)) return std::nullopt;
  auto kept = KeepingReader::read(
      as_text(text),
      KeepingReader({"model", "messages", "max_tokens", "stream", "system", "api_key", "temperature", "metadata"}, 3));
  if (!kept) return std::nullopt;
  auto find = [&](std::string_view path) { return KeepingReader::find(*kept, path); };
  RequestBody r;
  const Kept* model = find("model");
  const Kept* messages = find("messages");
  if (!model || model->kind != Kept::Kind::String || !messages || messages->kind != Kept::Kind::Array) return std::nullopt;
  r.model = model->text;
  for (std::size_t i = 0;; ++i) {
    const std::string at = "messages." + std::to_string(i);
    const Kept* m = find(at);
    if (!m) break;
    const Kept* role = find(at + ".role");
    const Kept* content = find(at + ".content");
    if (m->kind != Kept::Kind::Object || !role || !content || role->kind != Kept::Kind::String ||
        content->kind != Kept::Kind::String || (role->text != "user" && role->text != "assistant"))
      return std::nullopt;
    r.messages.push_back({role->text, content->text});
  }
  if (const Kept* max = find("max_tokens")) {
    if (max->kind != Kept::Kind::Unsigned || max->unsigned_number == 0 ||
        max->unsigned_number > std::numeric_limits<std::uint32_t>::max())
      return std::nullopt;
    r.max_tokens = static_cast<std::uint32_t>(max->unsigned_number);
  }
  r.stream = frame_flags & kFlagStreaming;
  if (const Kept* stream = find("stream"); stream && (stream->kind != Kept::Kind::Bool || stream->boolean != r.stream))
    return std::nullopt;
  if (!optional_kept_string(*kept, "system", r.system) || !optional_kept_string(*kept, "api_key", r.api_key))
    return std::nullopt;
  if (const Kept* t = find("temperature")) {
    r.temperature = number_of(*t);
    if (!r.temperature) return std::nullopt;
  }
  if (const Kept* metadata = find("metadata"); metadata && metadata->kind != Kept::Kind::Object) return std::nullopt;
  return r;
}

// parse_response's body by the fast reader, as read_request_fast.
std::optional<ResponseBody> read_response_fast(ByteView text) {
  if (text_fault(text)) return std::nullopt;
  auto kept = KeepingReader::read(
      as_text(text), KeepingReader({"id", "model", "stop_reason", "content", "usage", "timing"}, 2));
  if (!kept) return std::nullopt;
  auto find = [&](std::string_view path) { return KeepingReader::find(*kept, path); };
  ResponseBody r;
  std::optional<std::string> id, model, stop;
  if (!optional_kept_string(*kept, "id", id) || !optional_kept_string(*kept, "model", model) ||
      !optional_kept_string(*kept, "stop_reason", stop) || !optional_kept_string(*kept, "content", r.content) || !id ||
      !model || !stop)
    return std::nullopt;
  r.id = std::move(*id);
  r.model = std::move(*model);
  if (*stop == "end_turn") r.stop_reason = StopReason::EndTurn;
  else if (*stop == "max_tokens") r.stop_reason = StopReason::MaxTokens;
  else if (*stop == "cancelled") r.stop_reason = StopReason::Cancelled;
  else return std::nullopt;
  const Kept* usage = find("usage");
  const Kept* in = find("usage.input_tokens");
  const Kept* out = find("usage.output_tokens");
  if (!usage || usage->kind != Kept::Kind::Object || !in || in->kind != Kept::Kind::Unsigned || !out ||
      out->kind != Kept::Kind::Unsigned)
    return std::nullopt;
  r.input_tokens = in->unsigned_number;
  r.output_tokens = out->unsigned_number;
  if (const Kept* timing = find("timing")) {
    if (timing->kind != Kept::Kind::Object) return std::nullopt;
    Timing t;
    std::pair<const char*, std::uint64_t*> fields[] = {{"timing.queue_us", &t.queue_us},
                                                       {"timing.context_wait_us", &t.context_wait_us},
                                                       {"timing.prefill_us", &t.prefill_us},
                                                       {"timing.decode_us", &t.decode_us}};
    for (auto [path, field] : fields)
      if (const Kept* v = find(path)) {
        if (v->kind != Kept::Kind::Unsigned) return std::nullopt;
        *field = v->unsigned_number;
      }
    r.timing = t;
  }
  return r;
}

}  // namespace

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::EndTurn: return "end_turn";
    case StopReason::MaxTokens: return "max_tokens";
    case StopReason::Cancelled: return "cancelled";
  }
  return "?";
}

Result<RequestBody> parse_request(ByteView p, std::uint8_t frame_flags) {
  if (p.size() >= kMinRequestBody)
    if (auto fast = read_request_fast(p.subspan(4), frame_flags)) {
      fast->stream_id = load_u32(p.data());
      fast->json.assign(as_text(p.subspan(4)));
      return std::move(*fast);
    }
  return parse_request_by_document(p, frame_flags);
}

Result<RequestBody> parse_request_by_document(ByteView p, std::uint8_t frame_flags) {
  if (p.size() < kMinRequestBody) return body_error(length_detail("REQUEST", p.size(), kMinRequestBody));
  RequestBody r;
  r.stream_id = load_u32(p.data());
  auto doc = parse_json_object(p.subspan(4), "REQUEST", "api_key");
  if (!doc) return doc.error();
  r.json.assign(as_text(p.subspan(4)));
  auto model = doc->find("model");
  if (model == doc->end() || !model->is_string()) return body_error("REQUEST lacks a string \"model\"");
  r.model = model->get<std::string>();
  auto messages = parse_messages(*doc);
  if (!messages) return messages.error();
  r.messages = std::move(*messages);
  if (auto it = doc->find("max_tokens"); it != doc->end()) {
    if (!is_u32(*it) || it->get<std::uint64_t>() == 0)
      return body_error("REQUEST \"max_tokens\" must be an integer from 1 to 4294967295, got " +
                        dump_json(*it));
    r.max_tokens = static_cast<std::uint32_t>(it->get<std::uint64_t>());
  }
  bool flag_stream = frame_flags & kFlagStreaming;
  r.stream = flag_stream;
  if (auto it = doc->find("stream"); it != doc->end()) {
    if (!it->is_boolean()) return body_error("REQUEST \"stream\" is not a boolean");
    r.stream = it->get<bool>();
    if (r.stream != flag_stream)
      return body_error(std::string("REQUEST \"stream\": ") + (r.stream ? "true" : "false") +
                        " disagrees with frame flags bit0 = " + (flag_stream ? "1" : "0"));
  }
  bool bad = false;
  r.system = optional_string(*doc, "system", bad);
  r.api_key = optional_string(*doc, "api_key", bad);
  if (bad) return body_error("REQUEST \"system\" or \"api_key\" is not a string");
  if (auto it = doc->find("temperature"); it != doc->end()) {
    if (!it->is_number()) return body_error("REQUEST \"temperature\" is not a number");
    r.temperature = it->get<double>();
  }
  if (auto it = doc->find("metadata"); it != doc->end() && !it->is_object())
    return body_error("REQUEST \"metadata\" is not an object");
  return r;
}

Result<ResponseBody> parse_response(ByteView p) {
  if (p.size() >= kMinResponseBody)
    if (auto fast = read_response_fast(p.subspan(4))) {
      fast->stream_id = load_u32(p.data());
      fast->json.assign(as_text(p.subspan(4)));
      return std::move(*fast);
    }
  return parse_response_by_document(p);
}

Result<ResponseBody> parse_response_by_document(ByteView p) {
  if (p.size() < kMinResponseBody)
    return body_error(length_detail("RESPONSE", p.size(), kMinResponseBody));
  ResponseBody r;
  r.stream_id = load_u32(p.data());
  auto doc = parse_json_object(p.subspan(4), "RESPONSE");
  if (!doc) return doc.error();
  r.json.assign(as_text(p.subspan(4)));
  bool bad = false;
  auto id = optional_string(*doc, "id", bad);
  auto model = optional_string(*doc, "model", bad);
  auto stop = optional_string(*doc, "stop_reason", bad);
  r.content = optional_string(*doc, "content", bad);
  if (bad || !id || !model || !stop)
    return body_error("RESPONSE needs string \"id\", \"model\" and \"stop_reason\"");
  r.id = *id;
  r.model = *model;
  if (*stop == "end_turn") r.stop_reason = StopReason::EndTurn;
  else if (*stop == "max_tokens") r.stop_reason = StopReason::MaxTokens;
  else if (*stop == "cancelled") r.stop_reason = StopReason::Cancelled;
  else return body_error("RESPONSE stop_reason \"" + *stop + "\" is not end_turn, max_tokens or cancelled");
  auto usage = doc->find("usage");
  if (usage == doc->end() || !usage->is_object()) return body_error("RESPONSE lacks \"usage\"");
  auto in = count_member(*usage, "input_tokens", "RESPONSE usage");
  if (!in) return in.error();
  auto out = count_member(*usage, "output_tokens", "RESPONSE usage");
  if (!out) return out.error();
  r.input_tokens = *in;
  r.output_tokens = *out;
  auto timing = parse_timing(*doc);
  if (!timing) return timing.error();
  r.timing = *timing;
  return r;
}

void TokenText::assign(ByteView bytes) {
  size_ = bytes.size();
  if (size_ > kInline) {
    heap_.assign(bytes.begin(), bytes.end());
    return;
  }
  heap_.clear();
  if (size_ > 0) std::memcpy(inline_.data(), bytes.data(), size_);
}

namespace {

// A STREAM_TOKEN body into `t`.
std::optional<Error> read_token(ByteView p, TokenBody& t) {
  if (p.size() < kMinTokenBody) return body_error(length_detail("STREAM_TOKEN", p.size(), kMinTokenBody));
  t.stream_id = load_u32(p.data());
  t.token_index = load_u32(p.data() + 4);
  t.token_count = load_u16(p.data() + 8);
  if (t.token_count == 0) return body_error("STREAM_TOKEN token_count is 0");
  t.text.assign(p.subspan(10));
  t.invalid_utf8 = !is_valid_utf8(t.text);
  return std::nullopt;
}

}  // namespace

Result<TokenBody> parse_token(ByteView p) {
  TokenBody t;
  if (auto error = read_token(p, t)) return *error;
  return t;
}

Result<CancelBody> parse_cancel(ByteView p) {
  if (p.size() < kMinCancelBody) return body_error(length_detail("CANCEL", p.size(), kMinCancelBody));
  return CancelBody{load_u32(p.data()), load_u16(p.data() + 4)};
}

Result<ErrorBody> parse_error(ByteView p) {
  if (p.size() < kMinErrorBody) return body_error(length_detail("ERROR", p.size(), kMinErrorBody));
  ErrorBody e;
  e.stream_id = load_u32(p.data());
  e.code = load_u16(p.data() + 4);
  e.retry_after_ms = load_u32(p.data() + 6);
  e.message.assign(p.begin() + 10, p.end());
  e.invalid_utf8 = !is_valid_utf8(e.message);
  return e;
}

Result<Body> parse_body(FrameType type, std::uint8_t frame_flags, ByteView plaintext) {
  auto wrap = [](auto result) -> Result<Body> {
    if (!result) return result.error();
    return Body{std::move(*result)};
  };
  switch (type) {
    case FrameType::Request: return wrap(parse_request(plaintext, frame_flags));
    case FrameType::Response: return wrap(parse_response(plaintext));
    case FrameType::StreamToken: return wrap(parse_token(plaintext));
    case FrameType::Cancel: return wrap(parse_cancel(plaintext));
    case FrameType::Error: return wrap(parse_error(plaintext));
  }
  return body_error("unknown frame type");
}

Result<bool> parse_body_into(FrameType type, std::uint8_t frame_flags, ByteView plaintext, std::optional<Body>& out) {
  if (type == FrameType::StreamToken) {
    // The last frame's token, if that is what `out` holds: read_token sets every member.
    TokenBody& token = out && std::holds_alternative<TokenBody>(*out)
                           ? std::get<TokenBody>(*out)
                           : std::get<TokenBody>(out.emplace(std::in_place_type<TokenBody>));
    auto error = read_token(plaintext, token);
    if (!error) return true;
    out.reset();
    return *error;
  }
  auto body = parse_body(type, frame_flags, plaintext);
  if (!body) {
    out.reset();
    return body.error();
  }
  out = std::move(*body);
  return true;
}

Bytes encode_raw(std::uint32_t stream_id, ByteView rest) {
  Bytes out;
  out.reserve(4 + rest.size());
  append_u32(out, stream_id);
  append(out, rest);
  return out;
}

namespace {

Bytes encode_json(std::uint32_t stream_id, const json& doc) {
  return encode_raw(stream_id, as_bytes(dump_json(doc)));
}

}  // namespace

Bytes encode_request(std::uint32_t stream_id, const RequestSpec& s) {
  json doc = json::object();
  doc["model"] = s.model;
  doc["messages"] = json::array();
  for (const auto& m : s.messages) doc["messages"].push_back({{"role", m.role}, {"content", m.content}});
  if (s.max_tokens) doc["max_tokens"] = *s.max_tokens;
  doc["stream"] = s.stream;
  if (s.system) doc["system"] = *s.system;
  if (s.temperature) doc["temperature"] = *s.temperature;
  if (s.api_key) doc["api_key"] = *s.api_key;
  // metadata_json is meant to be an object's text; anything else is left out rather than thrown.
  if (s.metadata_json) {
    auto metadata = parse_json(*s.metadata_json);
    if (metadata && metadata->is_object()) doc["metadata"] = std::move(*metadata);
  }
  return encode_json(stream_id, doc);
}

Bytes encode_response(std::uint32_t stream_id, const ResponseSpec& s) {
  json doc = {{"id", s.id}, {"model", s.model}, {"stop_reason", to_string(s.stop_reason)}};
  if (s.content) doc["content"] = *s.content;
  doc["usage"] = {{"input_tokens", s.input_tokens}, {"output_tokens", s.output_tokens}};
  if (s.timing)
    doc["timing"] = {{"queue_us", s.timing->queue_us},
                     {"context_wait_us", s.timing->context_wait_us},
                     {"prefill_us", s.timing->prefill_us},
                     {"decode_us", s.timing->decode_us}};
  return encode_json(stream_id, doc);
}

void encode_token(std::uint32_t stream_id, std::uint32_t token_index, std::uint16_t token_count, ByteView text,
                  Bytes& out) {
  out.clear();
  out.reserve(10 + text.size());
  append_u32(out, stream_id);
  append_u32(out, token_index);
  append_u16(out, token_count);
  append(out, text);
}

Bytes encode_token(std::uint32_t stream_id, std::uint32_t token_index, std::uint16_t token_count,
                   ByteView text) {
  Bytes out;
  encode_token(stream_id, token_index, token_count, text, out);
  return out;
}

Bytes encode_cancel(std::uint32_t stream_id, CancelReason reason) {
  Bytes out;
  append_u32(out, stream_id);
  append_u16(out, static_cast<std::uint16_t>(reason));
  return out;
}

Bytes encode_error(std::uint32_t stream_id, std::uint16_t code, std::uint32_t retry_after_ms,
                   std::string_view message) {
  Bytes out;
  append_u32(out, stream_id);
  append_u16(out, code);
  append_u32(out, retry_after_ms);
  append(out, as_bytes(message));
  return out;
}

Result<std::vector<ChatMessage>> parse_messages_json(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return doc.error();
  json wrapped = {{"messages", std::move(*doc)}};
  auto messages = parse_messages(wrapped);
  if (!messages) return make_error(ErrorClass::Usage, messages.error().detail.substr(8));  // drop "REQUEST "
  return messages;
}

std::string redact_request_json(std::string_view text) {
  auto parsed = parse_json(text);
  if (!parsed || !parsed->is_object()) {
    // Unparseable text may still hold a key: withhold it rather than guess where it ends.
    if (text.find("api_key") != std::string_view::npos)
      return "<" + std::to_string(text.size()) + " bytes withheld: unparseable JSON naming api_key>";
    return std::string(text);
  }
  json& doc = *parsed;
  // Every api_key member, at any depth: one inside metadata is as secret as the top-level one.
  // (A loop rather than recursion: nesting depth is the sender's choice.)
  std::vector<json*> pending{&doc};
  while (!pending.empty()) {
    json* node = pending.back();
    pending.pop_back();
    if (node->is_object()) {
      for (auto it = node->begin(); it != node->end(); ++it) {
        if (it.key() == "api_key") *it = "***";
        else pending.push_back(&*it);
      }
    } else if (node->is_array()) {
      for (auto& value : *node) pending.push_back(&value);
    }
  }
  return dump_json(doc);
}

}  // namespace anthro
