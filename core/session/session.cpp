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
  if (target->own_client()) return session_runner(target->profile)(config, *target, {});
  auto setup = prepare_client(config);
  if (!setup) return setup.error();
  asio::io_context io;
  SessionClient client(config, *setup);
  SessionResult result;
  co_spawn(io, client.run(), [&](std::exception_ptr e, SessionResult r) { result = client.outcome(e, std::move(r)); });
  io.run();
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
            {"requests", json::array()}};
  for (const auto& r : s.requests) j["requests"].push_back(request_json(r, {.text = true, .itl_samples = true}));
  return dump_json(j);
}

}  // namespace anthro
