#include "metrics/request_json.h"

#include <array>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>
#include <variant>

#include "metrics/stats.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

void RecordExtension::write_into(json& record) const { write_json(record[std::string(json_key())]); }

json text_fields(ByteView text, bool invalid) {
  if (!invalid) return {{"text", std::string(as_text(text))}};
  return {{"text", nullptr}, {"invalid_utf8", true}, {"text_hex", to_hex(text)}};
}

namespace {

// A request record's members, each as a value of the JSON it is written as; Absent ones are
// left out.
struct Absent {};
using Packets = std::pair<std::uint64_t, std::uint64_t>;
using MemberValue = std::variant<Absent, std::nullptr_t, bool, std::uint64_t, std::int64_t, double, std::string_view,
                                 const Timing*, Packets, const std::vector<double>*>;
struct Member {
  std::string_view key;
  MemberValue value;
};

MemberValue value_of(double v) { return v; }
MemberValue value_of(std::uint64_t v) { return v; }
MemberValue value_of(std::uint32_t v) { return std::uint64_t{v}; }
MemberValue value_of(int v) { return std::int64_t{v}; }
MemberValue value_of(const std::string& v) { return std::string_view(v); }
template <class T>
MemberValue or_null(const std::optional<T>& v) {
  return v ? value_of(*v) : MemberValue(nullptr);
}

// Every member but the text, in the order nlohmann::json keeps an object's keys (sorted), so
// that request_json_line can write them as they come.
std::array<Member, 32> members(const RequestResult& r, bool itl_samples) {
  const RequestFigures& f = r.figures;
  auto text_or_null = [](const char* s) { return s ? MemberValue(std::string_view(s)) : MemberValue(nullptr); };
  return {{{"auth_failures", r.auth_failures},
           {"cancel_latency_ms", or_null(f.cancel_latency_ms)},
           {"e2e_ms", or_null(f.e2e_ms)},
           {"end", std::string_view(to_string(r.end))},
           {"error", or_null(r.error)},
           {"error_code", or_null(r.error_code)},
           {"invalid_utf8_frames", r.invalid_utf8_frames},
           {"itl_ms", itl_samples ? MemberValue(&f.itl_ms) : Absent{}},
           {"jitter_ms", or_null(f.jitter_ms)},
           {"max_gap_ms", or_null(f.max_gap_ms)},
           {"max_tokens", or_null(r.max_tokens)},
           {"mean_itl_ms", or_null(f.mean_itl_ms)},
           {"p99_itl_ms", or_null(f.p99_itl_ms)},
           {"packets", r.packets ? MemberValue(*r.packets) : Absent{}},
           {"probe", or_null(r.probe)},
           {"retry_after_ms", or_null(r.retry_after_ms)},
           {"sent_s", r.timeline.request_written},
           {"server_timing", r.server_timing ? MemberValue(&*r.server_timing) : nullptr},
           {"stop_reason", text_or_null(r.stop_reason ? to_string(*r.stop_reason) : nullptr)},
           {"stream_id", value_of(r.stream_id)},
           {"time_to_message_start_ms", or_null(f.time_to_message_start_ms)},
           {"token_duplicates", r.token_duplicates},
           {"token_gaps", r.token_gaps},
           {"tokens", f.tokens},
           {"tokens_per_s", or_null(f.tokens_per_s)},
           {"tpot_ms", or_null(f.tpot_ms)},
           {"ttfb_ms", or_null(f.ttfb_ms)},
           {"ttfot_ms", or_null(f.ttfot_ms)},
           {"ttft_ms", or_null(f.ttft_ms)},
           {"usage_mismatch", f.usage_mismatch},
           {"usage_output_tokens", or_null(f.usage_output_tokens)},
           {"worker", r.worker ? value_of(*r.worker) : Absent{}}}};
}

json timing_json(const Timing& t) {
  return {{"queue_us", t.queue_us}, {"context_wait_us", t.context_wait_us}, {"prefill_us", t.prefill_us},
          {"decode_us", t.decode_us}};
}

json to_json(const MemberValue& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Absent>) return nullptr;
        else if constexpr (std::is_same_v<T, std::string_view>) return std::string(x);
        else if constexpr (std::is_same_v<T, const Timing*>) return timing_json(*x);
        else if constexpr (std::is_same_v<T, Packets>) return {x.first, x.second};
        else if constexpr (std::is_same_v<T, const std::vector<double>*>) return *x;
        else return x;
      },
      v);
}

// Numbers as nlohmann::json writes them: integers in decimal, doubles shortest round-trip
// (its own to_chars), a double that is not finite as null.
void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}
template <class Int>
void append_number(std::string& out, Int v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// The value as dump_json writes it; false for a string that is not valid UTF-8, which
// dump_json alone writes (replaced).
bool append_value(std::string& out, const MemberValue& v) {
  return std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Absent> || std::is_same_v<T, std::nullptr_t>) {
          out += "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          out += x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          if (!is_valid_utf8(as_bytes(x))) return false;
          out += '"';
          append_json_escaped(out, x);
          out += '"';
        } else if constexpr (std::is_same_v<T, const Timing*>) {
          const std::pair<const char*, std::uint64_t> fields[] = {{"{\"context_wait_us\":", x->context_wait_us},
                                                                  {",\"decode_us\":", x->decode_us},
                                                                  {",\"prefill_us\":", x->prefill_us},
                                                                  {",\"queue_us\":", x->queue_us}};
          for (const auto& [key, n] : fields) {
            out += key;
            append_number(out, n);
          }
          out += '}';
        } else if constexpr (std::is_same_v<T, Packets>) {
          out += '[';
          append_number(out, x.first);
          out += ',';
          append_number(out, x.second);
          out += ']';
        } else if constexpr (std::is_same_v<T, const std::vector<double>*>) {
          out += '[';
          for (std::size_t i = 0; i < x->size(); ++i) {
            if (i) out += ',';
            append_number(out, (*x)[i]);
          }
          out += ']';
        } else {
          append_number(out, x);
        }
        return true;
      },
      v);
}

// request_json_line appended to `out` without building the object: false (and `out` as it
// was) where only nlohmann writes it the same (formats' parts, text that is not UTF-8).
bool write_line(std::string& out, const RequestResult& r, std::string_view text, bool itl_samples) {
  if (!r.extensions.all().empty() || !is_valid_utf8(as_bytes(text))) return false;
  const std::size_t start = out.size();
  out.reserve(start + 700 + text.size());
  char sep = '{';
  for (const Member& m : members(r, itl_samples)) {
    if (std::holds_alternative<Absent>(m.value)) continue;
    out += sep;
    sep = ',';
    out += '"';
    out += m.key;
    out += "\":";
    if (!append_value(out, m.value)) {
      out.resize(start);
      return false;
    }
  }
  out += ",\"text\":\"";
  append_json_escaped(out, text);
  out += "\"}";
  return true;
}

}  // namespace

json request_json(const RequestResult& r, RequestJsonParts parts) {
  json j = json::object();
  // Formats' parts first: no format's key is a member's (a record read back keeps only the
  // members it did not read as its part), and where one is, the member wins.
  for (const auto& [id, part] : r.extensions.all()) part->write_into(j);
  for (const Member& m : members(r, parts.itl_samples))
    if (!std::holds_alternative<Absent>(m.value)) j[std::string(m.key)] = to_json(m.value);
  // Invalid UTF-8 must not make the document unparseable: such text goes as hex.
  if (parts.text) j.update(text_fields(as_bytes(r.text), !is_valid_utf8(as_bytes(r.text))));
  return j;
}

std::string request_json_line(const RequestResult& r, std::string_view text, bool itl_samples) {
  std::string out;
  append_request_json_line(out, r, text, itl_samples);
  return out;
}

void append_request_json_line(std::string& out, const RequestResult& r, std::string_view text, bool itl_samples) {
  if (write_line(out, r, text, itl_samples)) return;
  json j = request_json(r, {false, itl_samples});
  if (!is_valid_utf8(as_bytes(text))) {
    j.update(text_fields(as_bytes(text), true));
    out += dump_json(j);
    return;
  }
  std::string head = dump_json(j);
  head.pop_back();  // the closing brace: the text comes last
  out += head;
  out += ",\"text\":\"";
  append_json_escaped(out, text);
  out += "\"}";
}

namespace {

// Members request_from_json does not read (formats' parts), written back as they were read.
// Under an id no format is given (profile ids count up from 0).
class MembersAsRead : public RecordExtensionOf<MembersAsRead> {
 public:
  static constexpr auto kId = static_cast<ProfileId>(0xFFFF);
  json members = json::object();
  std::string_view json_key() const override { return {}; }
  void write_json(json& out) const override { out = members; }
  void write_into(json& record) const override { record.update(members); }
};

// Reads one record, throwing "MEMBER: what was expected" at the first bad member.
class RecordReader {
 public:
  explicit RecordReader(const json& j) : j_(j) {
    if (!j.is_object()) throw std::runtime_error("expected an object");
  }

  const json& at(const char* key) {
    read_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) bad(key, "missing");
    return *it;
  }
  double number(const char* key) {
    const json& v = at(key);
    if (!v.is_number()) bad(key, "expected a number");
    return v.get<double>();
  }
  std::optional<double> number_or_null(const char* key) {
    const json& v = at(key);
    if (!v.is_null() && !v.is_number()) bad(key, "expected a number or null");
    return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
  }
  std::uint64_t count(const char* key) {
    const json& v = at(key);
    if (!v.is_number_unsigned()) bad(key, "expected a whole number ≥ 0");
    return v.get<std::uint64_t>();
  }
  std::optional<std::uint64_t> count_or_null(const char* key) {
    if (at(key).is_null()) return std::nullopt;
    return count(key);
  }
  std::optional<std::string> text_or_null(const char* key) {
    const json& v = at(key);
    if (!v.is_null() && !v.is_string()) bad(key, "expected a string or null");
    return v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
  }
  bool flag(const char* key) {
    const json& v = at(key);
    if (!v.is_boolean()) bad(key, "expected true or false");
    return v.get<bool>();
  }
  std::vector<double> numbers(const char* key) {
    std::vector<double> out;
    const json& v = at(key);
    if (!v.is_array()) bad(key, "expected an array of numbers");
    for (const auto& x : v) {
      if (!x.is_number()) bad(key, "expected an array of numbers");
      out.push_back(x.get<double>());
    }
    return out;
  }
  // What no call above asked for.
  json unread() const {
    json out = json::object();
    for (const auto& [k, v] : j_.items())
      if (!read_.count(k)) out[k] = v;
    return out;
  }
  [[noreturn]] static void bad(const std::string& key, const std::string& why) {
    throw std::runtime_error(key + ": " + why);
  }

 private:
  const json& j_;
  std::set<std::string> read_;
};

template <class E>
E enum_named(RecordReader& in, const char* key, std::initializer_list<E> values) {
  const json& v = in.at(key);
  for (E e : values)
    if (v.is_string() && v.get<std::string>() == to_string(e)) return e;
  RecordReader::bad(key, "not one of the names it may have");
}

void read_figures(RecordReader& in, RequestFigures& f) {
  std::pair<const char*, std::optional<double>*> ms[] = {
      {"ttft_ms", &f.ttft_ms}, {"ttfot_ms", &f.ttfot_ms}, {"ttfb_ms", &f.ttfb_ms},
      {"time_to_message_start_ms", &f.time_to_message_start_ms}, {"e2e_ms", &f.e2e_ms},
      {"mean_itl_ms", &f.mean_itl_ms}, {"p99_itl_ms", &f.p99_itl_ms}, {"max_gap_ms", &f.max_gap_ms},
      {"jitter_ms", &f.jitter_ms}, {"tokens_per_s", &f.tokens_per_s}, {"tpot_ms", &f.tpot_ms},
      {"cancel_latency_ms", &f.cancel_latency_ms}};
  for (auto [key, field] : ms) *field = in.number_or_null(key);
  f.tokens = in.count("tokens");
  f.usage_output_tokens = in.count_or_null("usage_output_tokens");
  f.usage_mismatch = in.flag("usage_mismatch");
}

std::optional<Timing> read_timing(RecordReader& in) {
  const json& v = in.at("server_timing");
  if (v.is_null()) return std::nullopt;
  RecordReader t(v);
  return Timing{t.count("queue_us"), t.count("context_wait_us"), t.count("prefill_us"), t.count("decode_us")};
}

void read_counters(RecordReader& in, RequestResult& r) {
  r.invalid_utf8_frames = in.count("invalid_utf8_frames");
  r.token_gaps = in.count("token_gaps");
  r.token_duplicates = in.count("token_duplicates");
  r.auth_failures = in.count("auth_failures");
}

void read_text(RecordReader& in, RequestResult& r) {
  const json& text = in.at("text");
  if (text.is_string()) {
    r.text = text.get<std::string>();
    return;
  }
  in.flag("invalid_utf8");
  const json& hex = in.at("text_hex");
  auto bytes = hex.is_string() ? from_hex(hex.get<std::string>()) : std::nullopt;
  if (!bytes) RecordReader::bad("text_hex", "expected hex digits");
  r.text.assign(bytes->begin(), bytes->end());
}

void read_record(RecordReader& in, RequestResult& r, RequestJsonParts parts) {
  std::uint64_t stream = in.count("stream_id");
  if (stream > UINT32_MAX) RecordReader::bad("stream_id", "larger than a stream id");
  r.stream_id = static_cast<std::uint32_t>(stream);
  r.end = enum_named(in, "end", {RequestEnd::Open, RequestEnd::Response, RequestEnd::Error, RequestEnd::ConnectionError,
                                 RequestEnd::ProtocolError, RequestEnd::ConnectionClosed, RequestEnd::Timeout,
                                 RequestEnd::SendFailed, RequestEnd::ClientClosed, RequestEnd::CancelClosed});
  r.timeline.request_written = in.number("sent_s");
  read_figures(in, r.figures);
  if (!in.at("stop_reason").is_null())
    r.stop_reason = enum_named(in, "stop_reason", {StopReason::EndTurn, StopReason::MaxTokens, StopReason::Cancelled});
  r.error = in.text_or_null("error");
  if (auto code = in.number_or_null("error_code")) r.error_code = static_cast<int>(*code);
  if (auto after = in.count_or_null("retry_after_ms")) r.retry_after_ms = static_cast<std::uint32_t>(*after);
  r.server_timing = read_timing(in);
  read_counters(in, r);
  r.probe = in.text_or_null("probe");
  r.max_tokens = in.count_or_null("max_tokens");
  if (parts.itl_samples) r.figures.itl_ms = in.numbers("itl_ms");
  if (parts.text) read_text(in, r);
}

}  // namespace

Result<RequestResult> request_from_json(const json& j, RequestJsonParts parts) {
  RequestResult r;
  try {
    RecordReader in(j);
    read_record(in, r, parts);
    json rest = in.unread();
    if (auto w = rest.find("worker"); w != rest.end() && w->is_string()) {
      r.worker = w->get<std::string>();
      rest.erase(w);
    }
    if (auto p = rest.find("packets"); p != rest.end() && p->is_array() && p->size() == 2 &&
                                       (*p)[0].is_number_unsigned() && (*p)[1].is_number_unsigned()) {
      r.packets = {(*p)[0].get<std::uint64_t>(), (*p)[1].get<std::uint64_t>()};
      rest.erase(p);
    }
    if (!rest.empty()) r.extensions.emplace<MembersAsRead>(MembersAsRead::kId).members = std::move(rest);
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, e.what());
  }
  return r;
}

json summary_json(const Summary& s) {
  auto num = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  return {{"n", s.n}, {"p50", num(s.p50)}, {"p90", num(s.p90)}, {"p95", num(s.p95)}, {"p99", num(s.p99)},
          {"mean", num(s.mean)}, {"stddev", num(s.stddev)}};
}

}  // namespace anthro
