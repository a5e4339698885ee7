#include "session/merge.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

struct MergeInput {
  std::string path;
  json doc;
};

Result<MergeInput> read_result(const std::string& path) {
  auto text = read_file(path, file_limit::kResult);
  if (!text) return make_error(ErrorClass::Input, text.error().detail);
  auto doc = parse_json(*text);
  if (!doc) return make_error(ErrorClass::Input, path + ": " + doc.error().detail);
  std::string kind = doc->is_object() && (*doc)["kind"].is_string() ? (*doc)["kind"].get<std::string>() : "";
  if (kind != "bench" && kind != "session")
    return make_error(ErrorClass::Input, path + ": " + (kind.empty() ? "no kind" : "a " + kind + " result") +
                                             ": merge takes bench or session results");
  return MergeInput{path, std::move(*doc)};
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

// The refusals that need two files: the same one twice, another kind, target or workload.
std::optional<std::string> mismatch(const MergeInput& a, const MergeInput& b) {
  const std::string both = a.path + " and " + b.path;
  if (same_file(a.path, b.path)) return b.path + " is given twice: its requests would count twice";
  if (a.doc["kind"] != b.doc["kind"])
    return both + " are results of different kinds (" + a.doc["kind"].get<std::string>() + ", " +
           b.doc["kind"].get<std::string>() + "): merge takes results of one kind";
  json ta = a.doc.value("target", json()), tb = b.doc.value("target", json());
  if (ta != tb) return both + " ran against different targets: " + dump_json(ta) + " vs " + dump_json(tb);
  return std::nullopt;
}

template <class R>
std::optional<std::string> workload_mismatch(const std::vector<std::pair<std::string, R>>& parts) {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (auto d = workload_difference(parts[0].second.workload, parts[i].second.workload))
      return parts[0].first + " and " + parts[i].first + " ran different workloads: " + *d;
  return std::nullopt;
}

template <class R>
Result<MergedResult> merge_parsed(const std::vector<MergeInput>& inputs,
                                  Result<R> (*read)(const json&, const std::string&),
                                  R (*merge)(std::vector<std::pair<std::string, R>>)) {
  std::vector<std::pair<std::string, R>> parts;
  for (const auto& in : inputs) {
    auto r = read(in.doc, in.path);
    if (!r) return r.error();
    parts.emplace_back(in.path, std::move(*r));
  }
  if (auto why = workload_mismatch(parts)) return make_error(ErrorClass::Input, *why);
  return MergedResult{merge(std::move(parts))};
}

// Runs that did not overlap: the merged duration holds the time between them, and says so.
std::vector<std::string> gaps_between(std::vector<BenchWorker> spans) {
  std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.start_unix_s < b.start_unix_s; });
  std::vector<std::string> out;
  double end = spans.empty() ? 0 : spans[0].start_unix_s;
  for (const auto& w : spans) {
    if (w.start_unix_s > end) {
      char gap[48];
      std::snprintf(gap, sizeof gap, "%.3f s", w.start_unix_s - end);
      out.push_back(w.file + " started " + gap + " after every earlier run had ended: the merged duration includes the gap");
    }
    end = std::max(end, w.start_unix_s + w.duration_s);
  }
  return out;
}

// A request of part `name` as the merged result keeps it: naming the file it came from (unless
// an earlier merge named one), sent on the merged run's clock (RunStart::shift_of).
void take_request(RequestResult& r, const std::string& name, double clock_shift) {
  r.timeline.request_written += clock_shift;
  if (!r.worker) r.worker = name;
}

RunStart start_of(const BenchResult& r) { return {r.start_unix_s, r.start_clock_s}; }

// One part's records moved onto the merged run: start_s from its start, sent_s onto the
// earliest part's clock, request numbers and connections after the earlier parts'.
struct Shift {
  double start_s = 0, clock_s = 0;
  std::uint64_t index = 0;
  unsigned connection = 0;
};

void append_records(BenchResult& merged, const std::string& name, BenchResult& part, Shift& shift) {
  std::uint64_t next_index = shift.index;
  unsigned next_connection = shift.connection;
  for (auto& rec : part.records) {
    rec.index += shift.index;
    rec.connection += shift.connection;
    rec.start_s += shift.start_s;
    take_request(rec.result, name, shift.clock_s);
    next_index = std::max(next_index, rec.index + 1);
    next_connection = std::max(next_connection, rec.connection + 1);
    merged.records.push_back(std::move(rec));
  }
  shift.index = next_index;
  shift.connection = next_connection;
}

using SessionParts = std::vector<std::pair<std::string, SessionResult>>;

// The merged session's clock: the earliest part's start. None when a part has none (written
// before sessions kept it): every request then keeps its own machine's clock, as the warning says.
std::optional<RunStart> merged_start(const SessionParts& parts, std::vector<std::string>& warnings) {
  std::optional<RunStart> earliest;
  for (const auto& [name, part] : parts) {
    if (!part.start) {
      warnings.push_back(name + " has no start_unix_s (written by an anthro-wb older than its anchors): request sent_s "
                                "are left on each file's own clock, so times across files do not line up");
      return std::nullopt;
    }
    if (!earliest || part.start->unix_s < earliest->unix_s) earliest = part.start;
  }
  return earliest;
}

std::vector<SessionWorker> workers_of(const std::string& name, const SessionResult& part) {
  if (!part.workers.empty()) return part.workers;  // a merged result merged again
  SessionWorker w;
  w.file = name;
  w.requests = part.requests.size();
  if (part.start) w.start_unix_s = part.start->unix_s;
  w.transport = part.transport;
  w.alpn = part.alpn;
  w.suite = part.suite;
  w.tls_suite = part.tls_suite;
  w.connect_ms = part.connect_ms;
  w.handshake_ms = part.handshake_ms;
  w.error = part.error;
  return {w};
}

// The merged session's connection fields are the first worker's: said when another connected otherwise.
std::optional<std::string> connection_difference(const std::vector<SessionWorker>& workers) {
  auto shape = [](const SessionWorker& w) { return std::tie(w.transport, w.alpn, w.suite, w.tls_suite); };
  for (const auto& w : workers)
    if (shape(w) != shape(workers.front()))
      return w.file + " connected otherwise than " + workers.front().file + " (ALPN, suite or TLS suite): the merged " +
             "session's connection fields are " + workers.front().file + "'s; `workers` has each file's";
  return std::nullopt;
}

}  // namespace

std::string MergedResult::text() const {
  if (auto* bench = std::get_if<BenchResult>(&result)) return bench_json(*bench);
  return session_json(std::get<SessionResult>(result));
}

BenchResult merge_bench(std::vector<std::pair<std::string, BenchResult>> parts) {
  BenchResult m;
  m.target = parts.at(0).second.target;
  m.workload = parts[0].second.workload;
  auto earliest = std::min_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
    return a.second.start_unix_s < b.second.start_unix_s;
  });
  m.start_unix_s = earliest->second.start_unix_s;
  m.start_clock_s = earliest->second.start_clock_s;
  Shift shift;
  for (auto& [name, part] : parts) {
    shift.start_s = part.start_unix_s - m.start_unix_s;
    // From the merged start, not by the wall clock: its seconds since 1970 would round away
    // the duration's last digits.
    m.duration_s = std::max(m.duration_s, shift.start_s + part.duration_s);
    m.connections += part.connections;
    for (const auto& [code, n] : part.errors) m.errors[code] += n;
    for (const auto& w : part.warnings) m.warnings.push_back(name + ": " + w);
    if (part.workers.empty()) m.workers.push_back({name, part.records.size(), part.connections, part.start_unix_s, part.duration_s});
    else m.workers.insert(m.workers.end(), part.workers.begin(), part.workers.end());
    shift.clock_s = start_of(m).shift_of(start_of(part));
    append_records(m, name, part, shift);
  }
  for (auto& gap : gaps_between(m.workers)) m.warnings.push_back(std::move(gap));
  summarize_bench(m);
  return m;
}

SessionResult merge_sessions(std::vector<std::pair<std::string, SessionResult>> parts) {
  SessionResult m = parts.at(0).second;  // its connection's figures: merge pools requests, not connections
  m.requests.clear();
  m.warnings.clear();
  m.error.reset();
  m.workers.clear();
  std::vector<std::string> unanchored;
  m.start = merged_start(parts, unanchored);
  for (auto& [name, part] : parts) {
    if (part.error && !m.error) m.error = name + ": " + *part.error;
    for (const auto& w : part.warnings) m.warnings.push_back(name + ": " + w);
    for (auto& w : workers_of(name, part)) m.workers.push_back(std::move(w));
    const double clock_shift = m.start ? m.start->shift_of(*part.start) : 0;
    for (auto& r : part.requests) {
      take_request(r, name, clock_shift);
      m.requests.push_back(std::move(r));
    }
  }
  for (auto& w : unanchored) m.warnings.push_back(std::move(w));
  if (auto d = connection_difference(m.workers)) m.warnings.push_back(*d);
  return m;
}

Result<MergedResult> merge_result_files(const std::vector<std::string>& paths) {
  if (paths.size() < 2) return make_error(ErrorClass::Usage, "give two or more result files to merge");
  std::vector<MergeInput> inputs;
  for (const auto& path : paths) {
    auto in = read_result(path);
    if (!in) return in.error();
    for (const auto& earlier : inputs)
      if (auto why = mismatch(earlier, *in)) return make_error(ErrorClass::Input, *why);
    inputs.push_back(std::move(*in));
  }
  if (inputs[0].doc["kind"] == "bench") return merge_parsed<BenchResult>(inputs, bench_from_json, merge_bench);
  return merge_parsed<SessionResult>(inputs, session_from_json, merge_sessions);
}

}  // namespace anthro
