#include "endpoint/replay_source.h"

#include <algorithm>

#include "metrics/request_json.h"
#include "profile/profile.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {
namespace {

using nlohmann::json;

// The protocols the endpoint replays: anthro-v1, and the HTTP baseline, whose two versions one
// server answers. A stream of another format has none.
std::optional<ProfileId> replayed_protocol(const Profile* p) {
  if (!p) return std::nullopt;
  ProfileId carrier = carrier_of(*p).id;
  if (carrier == ProfileId::Http2) return ProfileId::Http;
  if (carrier == ProfileId::AnthroV1 || carrier == ProfileId::Http) return carrier;
  return std::nullopt;
}

constexpr std::size_t kMaxReplayTokens = std::size_t{1} << 22;

// Streams and what was left out of them, as a file is read.
struct Collected {
  std::vector<RecordedStream> streams;
  std::vector<double> sent;  // each stream's request time, to put them in order
  std::size_t unanswered = 0, other_formats = 0, waits_cut = 0, tokens = 0, textless = 0;

  // False once the streams hold more tokens than a replay keeps.
  bool add(const RequestResult& r, std::string_view text, std::optional<ProfileId> protocol) {
    if (!protocol) {
      ++other_formats;
      return true;
    }
    auto s = recorded_stream(r, text, *protocol);
    if (!s) {
      ++unanswered;
      return true;
    }
    waits_cut += s->waits_cut;
    tokens += s->plan.tokens.size();
    textless += text.empty() && !s->plan.tokens.empty();
    streams.push_back(std::move(*s));
    sent.push_back(r.timeline.request_written);
    return tokens <= kMaxReplayTokens;
  }
};

// Every stream's token steps are kept in memory while the endpoint runs.
const std::string kTooManyTokens = "more than 4194304 recorded tokens: a replay keeps at most that many (cut the capture or result)";

// The streams in the order their requests were sent (connections interleave), and the notes.
ReplaySource in_request_order(const std::string& path, Collected c) {
  std::vector<std::size_t> order(c.streams.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.sent[a] < c.sent[b]; });
  ReplaySource out{path, {}, {}};
  for (std::size_t i : order) out.streams.push_back(std::move(c.streams[i]));
  if (c.unanswered) out.notes.push_back(std::to_string(c.unanswered) + " requests the server never answered (no token, no end) are left out");
  if (c.other_formats)
    out.notes.push_back(std::to_string(c.other_formats) + " streams of formats the endpoint does not replay are left out");
  if (c.textless)
    out.notes.push_back(std::to_string(c.textless) + " streams were recorded without their text: their tokens replay empty");
  if (c.waits_cut)
    out.notes.push_back(std::to_string(c.waits_cut) + " waits longer than " + std::to_string(static_cast<int>(kMaxReplayWaitMs / 60000)) +
                        " min are cut to that");
  return out;
}

Error bad_input(const std::string& path, const std::string& why) { return make_error(ErrorClass::Input, path + ": " + why); }

// ---- captures

std::string undecoded(const CaptureAnalysis& a) {
  std::size_t hidden = 0;
  for (const auto& c : a.connections) {
    DecryptionState d = c.info.decryption;
    hidden += d == DecryptionState::NoKey || d == DecryptionState::Authentication || d == DecryptionState::Tls;
  }
  if (hidden == 0) return "";
  return "; " + std::to_string(hidden) + " of " + std::to_string(a.connections.size()) +
         " connections could not be decrypted: give their keys with --keylog (TLS, ANTHRO_V1 lines) or --server-key";
}

Result<ReplaySource> from_capture(const std::string& path, const CaptureKeySources& keys) {
  AnalyzeOptions options;
  options.keep_timelines = true;
  auto analysis = analyze_capture(path, keys, {}, options);
  if (!analysis) return make_error(ErrorClass::Input, analysis.error().detail);
  Collected c;
  for (const auto& conn : analysis->connections) {
    auto protocol = replayed_protocol(conn.info.profile ? &profile(*conn.info.profile) : nullptr);
    for (std::size_t i = 0; i < conn.streams.size(); ++i)
      if (!c.add(conn.streams[i], CaptureAnalysis::text(conn, i), protocol)) return bad_input(path, kTooManyTokens);
  }
  if (c.streams.empty())
    return bad_input(path, "no stream to replay in " + std::to_string(analysis->connections.size()) + " connections" + undecoded(*analysis));
  return in_request_order(path, std::move(c));
}

// ---- saved results

constexpr double kMsPerSecond = 1000;
constexpr std::uint64_t kMaxRebuiltTokens = 65536;  // arrivals made up without ITL samples

// The gaps between a record's token arrivals, in ms: its ITL samples, else gaps of its mean with
// its widest in the middle, so a stall survives.
std::vector<double> recorded_gaps(const RequestFigures& f) {
  if (!f.itl_ms.empty() || f.tokens < 2) return f.itl_ms;
  double mean = std::max(0.0, f.mean_itl_ms.value_or(0));
  std::vector<double> gaps(f.tokens - 1, mean);
  double widest = f.max_gap_ms.value_or(mean);
  if (f.tokens < 3 || !(widest > mean)) return gaps;
  double rest = std::max(0.0, (mean * static_cast<double>(f.tokens - 1) - widest) / static_cast<double>(f.tokens - 2));
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

// A saved record keeps its figures, not its arrivals: they are rebuilt from TTFT and the gaps,
// its text cut over them.
Result<bool> rebuild_timeline(RequestResult& r) {
  const RequestFigures& f = r.figures;
  RequestTimeline& t = r.timeline;
  if (f.tokens > kMaxRebuiltTokens && f.itl_ms.empty())
    return make_error(ErrorClass::Input, "tokens: more than 65536 without itl_ms samples");
  if (f.tokens > 0 && f.ttft_ms) {
    double at = t.request_written + std::max(0.0, *f.ttft_ms) / kMsPerSecond;
    t.tokens.push_back({at, 1});
    for (double gap : recorded_gaps(f)) t.tokens.push_back({at += std::max(0.0, gap) / kMsPerSecond, 1});
    std::vector<std::size_t> cuts = text_cuts(r.text, t.tokens.size());
    for (std::size_t i = 0; i < cuts.size(); ++i)
      t.tokens[i].text_bytes = static_cast<std::uint32_t>(cuts[i] - (i ? cuts[i - 1] : 0));
  }
  if (f.e2e_ms) t.end = t.request_written + std::max(0.0, *f.e2e_ms) / kMsPerSecond;
  t.usage_output_tokens = f.usage_output_tokens;
  return true;
}

// One saved record as replay plays it: read as every result's records are, its arrivals rebuilt.
Result<RequestResult> recorded_from_json(const json& j) {
  auto has = [&](const char* key) { return j.is_object() && j.contains(key); };
  auto r = request_from_json(j, {.text = has("text"), .itl_samples = has("itl_ms")});
  if (!r) return r;
  auto rebuilt = rebuild_timeline(*r);
  if (!rebuilt) return rebuilt.error();
  return r;
}

// The protocol a group of records (a session, a bench run, a connection) spoke, by what it says.
std::optional<ProfileId> protocol_of(const json& group) {
  auto text = [&](const char* key) {
    auto it = group.find(key);
    return it != group.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto name = text("protocol"); !name.empty()) return replayed_protocol(find_profile(name));
  if (auto alpn = text("alpn"); !alpn.empty()) return replayed_protocol(profile_for_alpn(alpn));
  if (auto it = group.find("anthro"); it != group.end() && it->is_boolean()) return it->get<bool>() ? ProfileId::AnthroV1 : ProfileId::Http;
  if (auto transport = text("transport"); !transport.empty())
    return transport == "http" ? ProfileId::Http : transport == "lab" ? ProfileId::AnthroV1 : replayed_protocol(&tls_default_profile());
  std::string target = text("target");
  if (auto colon = target.find("://"); colon != std::string::npos) return replayed_protocol(profile_for_scheme(target.substr(0, colon)));
  return std::nullopt;
}

Result<bool> add_records(const std::string& where, const json& group, const char* member, Collected& c) {
  auto records = group.find(member);
  if (records == group.end() || !records->is_array()) return make_error(ErrorClass::Input, where + member + ": not an array of request records");
  auto protocol = protocol_of(group);
  for (std::size_t i = 0; i < records->size(); ++i) {
    auto r = recorded_from_json((*records)[i]);
    if (!r) return make_error(ErrorClass::Input, where + member + "[" + std::to_string(i) + "]: " + r.error().detail);
    if (!c.add(*r, r->text, protocol)) return make_error(ErrorClass::Input, kTooManyTokens);
  }
  return true;
}

Result<bool> add_result(const json& doc, Collected& c) {
  std::string kind = doc.contains("kind") && doc["kind"].is_string() ? doc["kind"].get<std::string>() : "";
  if (kind == "session") return add_records("", doc, "requests", c);
  if (kind == "bench") return add_records("", doc, "records", c);
  if (kind != "analysis" && kind != "diagnosis")
    return make_error(ErrorClass::Input, "not a result with request records (kind " + (kind.empty() ? "missing" : "\"" + kind + "\"") +
                                             "): a session, bench, analyze or diagnose result has them");
  auto connections = doc.find("connections");
  if (connections == doc.end() || !connections->is_array()) return make_error(ErrorClass::Input, "connections: not an array");
  for (std::size_t i = 0; i < connections->size(); ++i) {
    const json& conn = (*connections)[i];
    if (!conn.is_object()) return make_error(ErrorClass::Input, "connections[" + std::to_string(i) + "]: not an object");
    auto added = add_records("connections[" + std::to_string(i) + "].", conn, "streams", c);
    if (!added) return added;
  }
  return true;
}

Result<ReplaySource> from_result(const std::string& path) {
  auto text = read_file(path, file_limit::kResult);
  if (!text) return make_error(ErrorClass::Input, text.error().detail);
  auto doc = parse_json(*text);
  if (!doc) return bad_input(path, doc.error().detail);
  if (!doc->is_object()) return bad_input(path, "not a result: the document is not a JSON object");
  Collected c;
  if (auto added = add_result(*doc, c); !added) return bad_input(path, added.error().detail);
  if (c.streams.empty()) return bad_input(path, "no stream to replay: its records hold no answered request of anthro-v1 or HTTP");
  return in_request_order(path, std::move(c));
}

}  // namespace

Result<ReplaySource> load_replay(const std::string& path, const CaptureKeySources& keys) {
  auto start = read_file_start(path, 64);
  if (!start) return make_error(ErrorClass::Input, start.error().detail);
  std::size_t first = start->find_first_not_of(" \t\r\n");
  bool json_text = first != std::string::npos && ((*start)[first] == '{' || (*start)[first] == '[');
  return json_text ? from_result(path) : from_capture(path, keys);
}

std::vector<std::string> replay_summary(const ReplaySource& source) {
  std::map<ProfileId, std::size_t> count, probes;
  for (const auto& s : source.streams) {
    ++count[s.protocol];
    if (s.probe) ++probes[s.protocol];
  }
  std::string line = "replay: " + source.file + ": " + std::to_string(source.streams.size()) + " streams";
  for (ProfileId id : {ProfileId::AnthroV1, ProfileId::Http})
    line += std::string(id == ProfileId::AnthroV1 ? ": " : ", ") + std::string(profile(id).name) + " " + std::to_string(count[id]) +
            (probes[id] ? " (" + std::to_string(probes[id]) + " of them probes)" : "");
  std::vector<std::string> lines{line};
  for (ProfileId id : {ProfileId::AnthroV1, ProfileId::Http})
    if (!count[id])
      lines.push_back("replay: no " + std::string(profile(id).name) + " stream: its requests get the streams of another protocol");
  for (const auto& note : source.notes) lines.push_back("replay: " + note);
  return lines;
}

}  // namespace anthro
