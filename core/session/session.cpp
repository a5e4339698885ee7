#include "session/session.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>

#include "metrics/request_json.h"
#include "session/client.h"
#include "util/json.h"

namespace anthro {

using namespace net;
using nlohmann::json;

namespace {

PerProfile<SessionRunner>& runners() {
  static PerProfile<SessionRunner> table("register_session_runner");
  return table;
}

}  // namespace

void register_session_runner(ProfileId id, SessionRunner run) {
  if (!run) throw std::logic_error("register_session_runner: no runner");
  runners().add(id, run);
}

SessionRunner session_runner(ProfileId id) {
  const SessionRunner* run = runners().find(id);
  return run ? *run : nullptr;
}

RunStart RunStart::now() {
  RunStart s;
  s.unix_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  s.clock_s = steady_now_s();
  return s;
}

Result<SessionResult> run_session(const SessionConfig& config) {
  auto target = parse_session_target(config.target);
  if (!target) return target.error();
  const RunStart start = RunStart::now();
  SessionResult result;
  if (target->own_client()) {
    result = session_runner(target->profile)(config, *target, {});
  } else {
    auto setup = prepare_client(config);
    if (!setup) return setup.error();
    asio::io_context io;
    SessionClient client(config, *setup);
    co_spawn(io, client.run(), [&](std::exception_ptr e, SessionResult r) { result = client.outcome(e, std::move(r)); });
    io.run();
  }
  result.workload = workload_of(config);
  result.start = start;
  return result;
}

namespace {

json session_workers_json(const std::vector<SessionWorker>& workers) {
  json out = json::array();
  for (const auto& w : workers)
    out.push_back({{"file", w.file}, {"requests", w.requests}, {"start_unix_s", json_or_null(w.start_unix_s)},
                   {"transport", w.transport}, {"alpn", w.alpn.empty() ? json(nullptr) : json(w.alpn)},
                   {"suite", w.suite.empty() ? json(nullptr) : json(w.suite)},
                   {"tls_suite", w.tls_suite.empty() ? json(nullptr) : json(w.tls_suite)},
                   {"connect_ms", json_or_null(w.connect_ms)}, {"handshake_ms", json_or_null(w.handshake_ms)},
                   {"error", w.error ? json(*w.error) : json(nullptr)}});
  return out;
}

}  // namespace

std::string session_json(const SessionResult& s) {
  json j = {{"kind", "session"},
            {"schema_version", SessionResult::kSchemaVersion},
            {"target", s.target},
            {"transport", s.transport},
            {"protocol", profile(s.profile).name},
            {"alpn", s.alpn.empty() ? json(nullptr) : json(s.alpn)},
            {"suite", s.suite.empty() ? json(nullptr) : json(s.suite)},
            {"tls_suite", s.tls_suite.empty() ? json(nullptr) : json(s.tls_suite)},
            {"negotiation", s.profile != ProfileId::AnthroV1 ? json(nullptr) : json(s.extension_used ? "extension" : "preface")},
            {"connect_ms", json_or_null(s.connect_ms)},
            {"handshake_ms", json_or_null(s.handshake_ms)},
            {"proxy", s.proxy.empty() ? json(nullptr) : json(s.proxy)},
            {"proxy_connect_ms", json_or_null(s.proxy_connect_ms)},
            {"error", s.error ? json(*s.error) : json(nullptr)},
            {"warnings", s.warnings},
            {"workload", workload_json(s.workload)},
            {"requests", json::array()}};
  for (const auto& r : s.requests) j["requests"].push_back(request_json(r, {.text = true, .itl_samples = true}));
  if (s.start) {
    j["start_unix_s"] = s.start->unix_s;
    j["start_clock_s"] = s.start->clock_s;
  }
  if (!s.workers.empty()) j["workers"] = session_workers_json(s.workers);
  return dump_json(j);
}

namespace {

std::string string_or_empty(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number_or_none(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

// What a session says of its one connection; the figures merge does not pool.
void read_connection(const json& doc, SessionResult& s) {
  s.transport = string_or_empty(doc, "transport");
  s.alpn = string_or_empty(doc, "alpn");
  s.suite = string_or_empty(doc, "suite");
  s.tls_suite = string_or_empty(doc, "tls_suite");
  s.extension_used = string_or_empty(doc, "negotiation") == "extension";
  if (const Profile* p = find_profile(string_or_empty(doc, "protocol"))) s.profile = p->id;
  s.connect_ms = number_or_none(doc, "connect_ms");
  s.handshake_ms = number_or_none(doc, "handshake_ms");
  s.proxy = string_or_empty(doc, "proxy");
  s.proxy_connect_ms = number_or_none(doc, "proxy_connect_ms");
  if (auto e = string_or_empty(doc, "error"); !e.empty()) s.error = e;
  for (const auto& w : doc.value("warnings", json::array()))
    if (w.is_string()) s.warnings.push_back(w.get<std::string>());
}

// The anchors, when the file has them (sessions written before them have none).
Result<std::optional<RunStart>> read_start(const json& doc) {
  if (!doc.contains("start_unix_s") && !doc.contains("start_clock_s")) return std::optional<RunStart>();
  for (const char* key : {"start_unix_s", "start_clock_s"})
    if (!doc.contains(key) || !doc[key].is_number())
      return make_error(ErrorClass::Input, std::string(key) + ": expected a number (with start_unix_s or start_clock_s)");
  return std::optional<RunStart>(RunStart{doc["start_unix_s"].get<double>(), doc["start_clock_s"].get<double>()});
}

Result<SessionWorker> read_worker(const json& w) {
  if (!w.is_object() || !w.contains("file") || !w["file"].is_string() || !w.contains("requests") ||
      !w["requests"].is_number_unsigned())
    return make_error(ErrorClass::Input, "expected an object with file and requests");
  SessionWorker out;
  out.file = w["file"].get<std::string>();
  out.requests = w["requests"].get<std::uint64_t>();
  out.start_unix_s = number_or_none(w, "start_unix_s");
  out.transport = string_or_empty(w, "transport");
  out.alpn = string_or_empty(w, "alpn");
  out.suite = string_or_empty(w, "suite");
  out.tls_suite = string_or_empty(w, "tls_suite");
  out.connect_ms = number_or_none(w, "connect_ms");
  out.handshake_ms = number_or_none(w, "handshake_ms");
  if (auto e = string_or_empty(w, "error"); !e.empty()) out.error = e;
  return out;
}

}  // namespace

Result<SessionResult> session_from_json(const json& doc, const std::string& origin) {
  auto bad = [&](const std::string& why) { return make_error(ErrorClass::Input, origin + ": " + why); };
  if (!doc.is_object() || doc.value("kind", "") != "session") return bad("not a session result");
  SessionResult s;
  s.target = string_or_empty(doc, "target");
  read_connection(doc, s);
  if (!doc.contains("workload")) return bad("no workload (written by an anthro-wb older than merge): run it again");
  auto workload = workload_from_json(doc["workload"]);
  if (!workload) return bad(workload.error().detail);
  s.workload = *workload;
  const json& requests = doc.contains("requests") ? doc["requests"] : json();
  if (!requests.is_array()) return bad("requests: expected an array");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto r = request_from_json(requests[i], {.text = true, .itl_samples = true});
    if (!r) return bad("requests[" + std::to_string(i) + "]." + r.error().detail);
    s.requests.push_back(std::move(*r));
  }
  auto start = read_start(doc);
  if (!start) return bad(start.error().detail);
  s.start = *start;
  const json workers = doc.value("workers", json::array());
  if (!workers.is_array()) return bad("workers: expected an array");
  for (std::size_t i = 0; i < workers.size(); ++i) {
    auto w = read_worker(workers[i]);
    if (!w) return bad("workers[" + std::to_string(i) + "]: " + w.error().detail);
    s.workers.push_back(std::move(*w));
  }
  return s;
}

}  // namespace anthro
