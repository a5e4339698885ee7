// `anthro-wb rollout`: a grayscale-rollout rehearsal from a plan (cli.md, checklists.md).
#include <algorithm>
#include <csignal>
#include <iostream>

#include "cli/commands.h"
#include "cli/metrics_out.h"
#include "cli/session_options.h"
#include "endpoint/endpoint.h"
#include "model/faults.h"
#include "rollout/rollout.h"
#include "util/message.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

RolloutControl control;  // SIGINT pauses: the result stays resumable
extern "C" void on_interrupt(int) { control.pause = true; }

void read_stages(Args& args, RolloutConfig& c) {
  std::string stage = args.value_or("--stage", c.resume ? "" : "all");
  if (stage.empty()) {
    c.last_stage = c.resume->last_stage;  // resuming: as far as the first run was asked to go
  } else if (stage != "all") {
    auto n = args.count("--stage", 1, c.plan.stages.size());
    if (n) c.first_stage = c.last_stage = *n - 1;
  }
}

void read_regions(Args& args, RolloutConfig& c) {
  for (const auto& spec : args.values("--region")) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) args.fail("--region \"" + spec + "\": expected NAME=URL");
    else c.regions[spec.substr(0, eq)] = spec.substr(eq + 1);
  }
}

void read_resume(Args& args, RolloutConfig& c) {
  auto path = args.value("--resume");
  if (!path) {
    if (args.has("--promote")) args.fail("--promote lets a paused stage through: it needs --resume RESULT.json");
    return;
  }
  auto text = read_file(*path, file_limit::kResult);
  auto result = text ? parse_rollout_result(*text, *path) : Result<RolloutResult>(text.error());
  if (!result) return args.fail(result.error().detail);
  c.resume = std::move(*result);
  c.promote = args.has("--promote");
  if (!args.has("--seed")) c.seed = c.resume->seed;
  if (!c.requests_per_stage) c.requests_per_stage = c.resume->requests_per_stage;
  if (c.resume->embedded_endpoint) return;  // its endpoint is gone: a new one takes its place
  if (c.baseline.empty()) c.baseline = c.resume->baseline;
  if (c.candidate.empty()) c.candidate = c.resume->candidate;
  for (const auto& [name, url] : c.resume->regions) c.regions.emplace(name, url);
}

// Without --baseline and --candidate: the embedded endpoint's HTTP baseline and its anthro-v1 port,
// with a short model so a whole plan runs in minutes. A plan of a format riding on HTTP rehearses
// that format instead: the cleartext Messages API, the format served for the candidate (its
// requests carry the format's fields; the baseline's plain requests take the old path).
Result<std::unique_ptr<Endpoint>> embedded_endpoint(RolloutConfig& c, const Faults& faults) {
  const Profile* format = find_profile(c.plan.profile);
  const bool rides_on_http = format && format->rides_on == "http";
  EndpointConfig e;
  e.tls_listen = "127.0.0.1:0";
  if (rides_on_http) {
    e.http_listen = "127.0.0.1:0";
    if (const Profile* p = find_profile(c.plan.profile)) offer_embedded_format(e, p->id);
  }
  e.model.ttft = {40, 8};
  e.model.itl = {2, 0.5};
  e.model.tokens = 20;
  e.model.faults = faults;
  auto endpoint = Endpoint::start(e);
  if (!endpoint) return endpoint.error();
  std::string messages = (*endpoint)->url(rides_on_http ? "http" : "https") + "/v1/messages";
  if (c.baseline.empty()) c.baseline = messages;
  if (c.candidate.empty()) c.candidate = rides_on_http ? messages : (*endpoint)->url("anthro");
  c.embedded_endpoint = true;
  Endpoint* served = endpoint->get();
  c.candidate_metrics = [served] { return served->metrics_text(); };
  return endpoint;
}

// Core names the input it refuses in the interface's words ("baseline: …"); the command line
// names the option that set it ("--baseline: …", cli.md's text).
Error in_option_words(Error e) {
  if (std::ranges::find(kRolloutInputs, e.reason) != std::end(kRolloutInputs)) e.detail = "--" + e.detail;
  return e;
}

int exit_status(const RolloutResult& r) {
  switch (r.state) {
    case RolloutState::Passed: return 0;
    case RolloutState::Paused: return 4;
    default: return 1;
  }
}

}  // namespace

int run_rollout_command(const std::vector<std::string>& argv) {
  Args args("rollout", argv);
  RolloutConfig c;
  auto plan = find_plan(args.value_or("--plan", "anthro-v1-five-stages"));
  if (!plan) return error_exit("rollout", plan.error());
  c.plan = std::move(*plan);
  c.plan_origin = args.value_or("--plan", "built-in anthro-v1-five-stages");
  read_trust_options(args, c.session);
  c.baseline = args.value_or("--baseline", "");
  c.candidate = args.value_or("--candidate", "");
  read_regions(args, c);
  if (!c.baseline.empty()) read_default_api_key(args, c.session, c.baseline);  // the embedded endpoint needs none
  if (auto n = args.count("--requests-per-stage", 1, 100000000)) c.requests_per_stage = *n;
  if (auto n = args.count("--concurrency", 1, 1000)) c.concurrency = static_cast<unsigned>(*n);
  if (auto n = args.count("--seed")) c.seed = *n;
  if (auto s = args.number("--rollback-load-s", NumberRange::NonNegative)) c.rollback_load_s = *s;
  read_resume(args, c);
  read_stages(args, c);
  MetricsOut metrics = read_metrics_out(args);
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  std::string lang = args.value_or("--lang", "en");
  if (lang != "en" && lang != "zh_CN") args.fail("--lang \"" + lang + "\": expected en or zh_CN");
  if (!args.positional().empty()) args.fail("unexpected argument \"" + args.positional()[0] + "\"");
  auto faults = parse_faults(args.values("--endpoint-fault"));
  if (!faults) args.fail(faults.error().detail);
  else if (*faults != Faults{} && !c.baseline.empty() && !c.candidate.empty())
    args.fail("--endpoint-fault sets the embedded endpoint's faults: leave out --baseline or --candidate");
  if (!args.ok()) return usage_error("rollout", args.error());

  std::unique_ptr<Endpoint> endpoint;
  if (c.baseline.empty() || c.candidate.empty()) {
    auto started = embedded_endpoint(c, *faults);
    if (!started) return error_exit("rollout", started.error());
    endpoint = std::move(*started);
  }
  c.control = &control;
  std::signal(SIGINT, on_interrupt);
  bool quiet = args.has("--quiet");
  c.on_event = [quiet, lang](const RolloutEvent& e) {
    if (!quiet && e.kind != RolloutEvent::Kind::Progress) std::cerr << "rollout: " << (e.text.empty() ? e.line : render(e.text, lang, e.line)) << "\n";
  };
  auto result = run_rollout(c);
  if (!result) return error_exit("rollout", in_option_words(result.error()));
  if (auto path = args.value("--output")) {
    if (auto ok = write_file_atomic(*path, rollout_json(*result, lang) + "\n"); !ok) return error_exit("rollout", ok.error());
  }
  if (format == "json") std::cout << rollout_json(*result, lang) << "\n";
  else std::cout << rollout_text(*result, lang);
  if (result->state == RolloutState::Paused) {
    std::cerr << "anthro-wb rollout: " << result->message
              << (args.has("--output") ? " (continue with --resume " + *args.value("--output") + ")"
                                       : " (give --output FILE to keep the result for --resume)")
              << "\n";
  }
  const PrometheusLabels arms = {{"baseline", result->baseline}, {"candidate", result->candidate}};
  bool sent = !metrics.wanted() ||
              send_metrics(metrics, "rollout", {{"candidate", result->candidate}}, rollout_prometheus(*result, arms));
  int status = exit_status(*result);
  return status == 0 && !sent ? 2 : status;
}

}  // namespace anthro::cli
