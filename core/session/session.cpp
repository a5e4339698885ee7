#include "session/session.h"

#include <nlohmann/json.hpp>

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

Result<SessionResult> run_session(const SessionConfig& config) {
  auto target = parse_session_target(config.target);
  if (!target) return target.error();
  if (target->own_client()) {
    SessionResult result = session_runner(target->profile)(config, *target, {});
    result.workload = workload_of(config);
    return result;
  }
  auto setup = prepare_client(config);
  if (!setup) return setup.error();
  asio::io_context io;
  SessionClient client(config, *setup);
  SessionResult result;
  co_spawn(io, client.run(), [&](std::exception_ptr e, SessionResult r) { result = client.outcome(e, std::move(r)); });
  io.run();
  result.workload = workload_of(config);
  return result;
}

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
            {"error", s.error ? json(*s.error) : json(nullptr)},
            {"warnings", s.warnings},
            {"workload", workload_json(s.workload)},
            {"requests", json::array()}};
  for (const auto& r : s.requests) j["requests"].push_back(request_json(r, {.text = true, .itl_samples = true}));
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
  if (auto e = string_or_empty(doc, "error"); !e.empty()) s.error = e;
  for (const auto& w : doc.value("warnings", json::array()))
    if (w.is_string()) s.warnings.push_back(w.get<std::string>());
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
  return s;
}

}  // namespace anthro
