#include "metrics/request_json.h"

#include <algorithm>
#include <cmath>

#include "metrics/stats.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

constexpr double kMsPerSecond = 1000;
constexpr std::uint64_t kMaxRebuiltTokens = 65536;

json timing_json(const Timing& t) {
  return {{"queue_us", t.queue_us}, {"context_wait_us", t.context_wait_us}, {"prefill_us", t.prefill_us},
          {"decode_us", t.decode_us}};
}

// Members of a record read back: each checked for its type, a wrong one named.
class RecordReader {
 public:
  explicit RecordReader(const json& j) : j_(j) {}
  std::optional<double> number(const char* key) {
    const json* v = member(key);
    if (!v) return std::nullopt;
    if (v->is_number()) return v->get<double>();
    return wrong(key, "a number");
  }
  std::optional<std::uint64_t> count(const char* key) {
    const json* v = member(key);
    if (!v) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    return wrong(key, "a count");
  }
  std::optional<std::string> text(const char* key) {
    const json* v = member(key);
    if (!v) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    return wrong(key, "a string");
  }
  std::vector<double> numbers(const char* key) {
    const json* v = member(key);
    if (!v) return {};
    std::vector<double> out;
    for (const json& x : v->is_array() ? *v : json::array()) {
      if (!x.is_number()) break;
      out.push_back(x.get<double>());
    }
    if (!v->is_array() || out.size() != v->size()) {
      wrong(key, "an array of numbers");
      return {};
    }
    return out;
  }
  const std::optional<std::string>& problem() const { return problem_; }
  void refuse(const char* key, const char* what) { wrong(key, what); }

 private:
  const json* member(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  std::nullopt_t wrong(const char* key, const char* what) {
    if (!problem_) problem_ = std::string(key) + ": not " + what;
    return std::nullopt;
  }
  const json& j_;
  std::optional<std::string> problem_;
};

// The gaps between a record's token arrivals, in ms (see request_from_json).
std::vector<double> record_gaps(RecordReader& in, std::uint64_t tokens) {
  std::vector<double> gaps = in.numbers("itl_ms");
  if (!gaps.empty() || tokens < 2) return gaps;
  double mean = std::max(0.0, in.number("mean_itl_ms").value_or(0));
  gaps.assign(tokens - 1, mean);
  double widest = in.number("max_gap_ms").value_or(mean);
  if (tokens < 3 || !(widest > mean)) return gaps;
  double rest = std::max(0.0, (mean * static_cast<double>(tokens - 1) - widest) / static_cast<double>(tokens - 2));
  std::fill(gaps.begin(), gaps.end(), rest);
  gaps[gaps.size() / 2] = widest;
  return gaps;
}

// Where each of `n` arrivals' text ends in `text`: whole words (" word") when there are n of
// them, else as even a share of its characters as UTF-8 allows.
std::vector<std::size_t> text_cuts(std::string_view text, std::size_t n) {
  std::vector<std::size_t> words;
  for (std::size_t i = 1; i < text.size(); ++i)
    if (text[i] == ' ' && text[i - 1] != ' ') words.push_back(i);
  words.push_back(text.size());
  if (words.size() == n) return words;
  std::vector<std::size_t> cuts;
  for (std::size_t k = 1; k <= n; ++k) {
    std::size_t at = k == n ? text.size() : text.size() * k / n;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    cuts.push_back(std::max(at, cuts.empty() ? std::size_t{0} : cuts.back()));
  }
  return cuts;
}

void read_timeline(RecordReader& in, RequestResult& r) {
  RequestTimeline& t = r.timeline;
  t.request_written = in.number("sent_s").value_or(0);
  std::uint64_t tokens = in.count("tokens").value_or(0);
  auto ttft = in.number("ttft_ms");
  // Rebuilt arrivals cost memory the file did not: a count without samples is bounded.
  if (tokens > kMaxRebuiltTokens && in.numbers("itl_ms").empty()) {
    in.refuse("tokens", "a count of at most 65536 without itl_ms samples");
    return;
  }
  if (tokens > 0 && ttft) {
    std::vector<double> gaps = record_gaps(in, tokens);
    double at = t.request_written + std::max(0.0, *ttft) / kMsPerSecond;
    t.tokens.push_back({at, 1});
    for (double gap : gaps) t.tokens.push_back({at += std::max(0.0, gap) / kMsPerSecond, 1});
    std::vector<std::size_t> cuts = text_cuts(r.text, t.tokens.size());
    for (std::size_t i = 0; i < cuts.size(); ++i)
      t.tokens[i].text_bytes = static_cast<std::uint32_t>(cuts[i] - (i ? cuts[i - 1] : 0));
  }
  if (auto e2e = in.number("e2e_ms")) t.end = t.request_written + std::max(0.0, *e2e) / kMsPerSecond;
  t.usage_output_tokens = in.count("usage_output_tokens");
}

std::optional<StopReason> stop_reason_named(const std::optional<std::string>& name) {
  for (StopReason s : {StopReason::EndTurn, StopReason::MaxTokens, StopReason::Cancelled})
    if (name && *name == to_string(s)) return s;
  return std::nullopt;
}

}  // namespace

Result<RequestResult> request_from_json(const json& j) {
  if (!j.is_object()) return make_error(ErrorClass::Input, "a request record is not a JSON object");
  RecordReader in(j);
  RequestResult r;
  r.stream_id = static_cast<std::uint32_t>(in.count("stream_id").value_or(0));
  if (auto hex = in.text("text_hex")) r.text = as_text(from_hex(*hex).value_or(Bytes()));
  else r.text = in.text("text").value_or("");
  read_timeline(in, r);
  auto end = in.text("end");
  r.end = end ? request_end_named(*end).value_or(RequestEnd::Open) : RequestEnd::Open;
  auto stop = in.text("stop_reason");
  r.stop_reason = stop_reason_named(stop);
  r.error = in.text("error");
  if (auto code = in.count("error_code")) r.error_code = static_cast<int>(std::min<std::uint64_t>(*code, 999));
  if (auto retry = in.count("retry_after_ms")) r.retry_after_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(*retry, UINT32_MAX));
  r.probe = in.text("probe");
  r.max_tokens = in.count("max_tokens");
  if (in.problem()) return make_error(ErrorClass::Input, "a request record's " + *in.problem());
  r.figures = compute_figures(r.timeline);
  return r;
}

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
