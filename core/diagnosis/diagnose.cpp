#include "diagnosis/diagnose.h"
#include "metrics/request_result.h"
#include "profile/profile.h"
#include "util/files.h"
#include "util/json.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace anthro {
namespace {


bool stopped(const DiagnoseConfig& c) { return c.stop && c.stop->load(); }

void say(const DiagnoseConfig& c, Message stage) {
  if (c.on_progress) c.on_progress({std::move(stage)});
}

// A live target must speak the checklist's profile, or carry it (a format riding on HTTP). A checklist of the user's own that no profile names runs anywhere.
std::optional<Error> target_misfits(const Checklist& checklist, const std::string& target) {
  if (std::ranges::none_of(profiles(), [&](const Profile* p) { return p->checklist_id == checklist.id; })) return std::nullopt;
  std::string scheme = target.substr(0, target.find("://"));
  if (scheme_serves_checklist(scheme, checklist.id)) return std::nullopt;
  std::string fits;
  for (const Profile* p : profiles())
    for (const ProfileScheme& s : p->schemes)
      if (scheme_serves_checklist(s.name, checklist.id)) fits += (fits.empty() ? "" : ", ") + std::string(s.name) + "://";
  return make_error(ErrorClass::Usage, "--target " + target + ": the " + checklist.id + " checklist runs against " + fits +
                                           " targets");
}

Result<Observations> observe_live(const DiagnoseConfig& config) {
  if (auto misfit = target_misfits(config.checklist, config.live->session.target)) return *misfit;
  // An unreachable target measures nothing: an error, not a checklist of inconclusive items.
  // Once the transport comes up, whatever the server does (refuse every request, select
  // another protocol) is the diagnosis's to judge.
  say(config, Message("diagnose.reaching", {{"target", config.live->session.target}}));
  if (auto reached = reach_target(config.live->session, config.stop); !reached) return reached.error();
  LiveWorkloadConfig live = *config.live;
  fit_workload(config.checklist, live);
  live.stop = config.stop;
  auto progress = config.on_progress;
  if (progress) live.on_progress = [progress](const MessageText& line) { progress({Message("diagnose.live").with("line", line)}); };
  live.on_requests = config.on_requests;
  say(config, Message("diagnose.running", {{"target", live.session.target}}));
  return run_live_workload(live);
}

// A capture whose encrypted connections all stayed closed measures nothing.
bool keys_opened_something(const CaptureAnalysis& a) {
  bool encrypted = false;
  for (const auto& c : a.connections) {
    // A decrypted TLS handshake tells its ALPN even when no application data followed.
    if (c.info.decryption == DecryptionState::Ok || !c.info.alpn.empty()) return true;
    encrypted |= c.info.decryption == DecryptionState::NoKey || c.info.decryption == DecryptionState::Authentication ||
                 c.info.decryption == DecryptionState::Tls;
  }
  return !encrypted;
}

Error no_keys(const CaptureAnalysis& a) {
  std::string why;
  for (const auto& c : a.connections)
    if (c.info.decryption != DecryptionState::NoFrames) {
      why = c.info.name + ": " + decryption_text(c.info);
      break;
    }
  return make_error(ErrorClass::Input, a.file + ": no connection could be decrypted (" + why +
                                           "); give its key log with --keylog FILE or the server key with --server-key PEM");
}

Result<Observations> observe_file(const DiagnoseConfig& config) {
  say(config, Message("diagnose.reading_capture", {{"file", *config.capture}}));
  AnalyzeOptions options;
  options.threads = config.threads;
  options.progress = [&config](std::uint64_t done, std::uint64_t size) {
    if (size) say(config, Message("diagnose.capture_percent", {{"percent", std::to_string(done * 100 / size)}}));
    return !stopped(config);
  };
  auto analysis = analyze_capture(*config.capture, config.keys, {}, options);
  if (!analysis) return analysis.error();
  return keys_opened_something(*analysis) ? Result<Observations>(observe_capture(*analysis)) : no_keys(*analysis);
}

Result<nlohmann::json> read_schema(const std::string& path) {
  auto text = read_file(path, file_limit::kSchema);
  if (!text) return make_error(ErrorClass::Input, text.error().detail);
  auto doc = parse_json(*text);
  if (!doc) return make_error(ErrorClass::Input, path + ": " + doc.error().detail);
  return *doc;
}

// No wire carries schemas: the pairs a tool-schema probe compares are files.
Result<bool> read_tool_schemas(const DiagnoseConfig& config, Observations& o) {
  for (const auto& [tool, handler] : config.tool_schemas) {
    auto a = read_schema(tool);
    if (!a) return a.error();
    auto b = read_schema(handler);
    if (!b) return b.error();
    o.tool_schemas.push_back({tool, handler, std::move(*a), std::move(*b)});
  }
  return true;
}

}  // namespace

Result<Diagnosis> run_diagnosis(const DiagnoseConfig& config) {
  if (!config.live && !config.capture && !config.system)
    return make_error(ErrorClass::Usage, "nothing to diagnose: give a target, a capture file or --system");
  Observations o;
  if (auto ok = read_tool_schemas(config, o); !ok) return ok.error();
  double system_start = steady_now_s();
  if (config.system) {
    say(config, Message("diagnose.system"));
    o.system = read_system_state(*config.system);
  }
  if (config.live) {
    auto live = observe_live(config);
    if (!live) return live.error();
    merge_observations(o, std::move(*live));
  }
  if (stopped(config)) return make_error(ErrorClass::Cancelled, "diagnosis cancelled");
  if (config.capture) {
    auto file = observe_file(config);
    if (!file) return file.error();
    merge_observations(o, std::move(*file));
  }
  if (config.system) {
    // NIC drops are a rate: the second reading at least a second after the first.
    double wait = 1.0 - (steady_now_s() - system_start);
    if (wait > 0 && !stopped(config)) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    add_nic_reading(o.system, *config.system);
  }
  if (stopped(config)) return make_error(ErrorClass::Cancelled, "diagnosis cancelled");
  say(config, Message("diagnose.evaluating", {{"n", std::to_string(config.checklist.items.size())}}));
  return evaluate(config.checklist, std::move(o));
}

}  // namespace anthro
