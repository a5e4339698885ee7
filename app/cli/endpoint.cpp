// `anthro-wb endpoint`: the local anthro-v1 endpoint until SIGINT or SIGTERM.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/session_options.h"
#include "endpoint/endpoint.h"
#include "endpoint/replay_source.h"
#include "model/faults.h"

namespace anthro::cli {

namespace {

// A replay plays the recording's own timing and faults: the simulated model's options would do
// nothing, so they are refused rather than silently ignored.
void check_replay_options(Args& args) {
  if (!args.has("--replay")) {
    if (args.has("--keylog")) args.fail("--keylog is for the capture of --replay: give --replay CAPTURE too");
    return;
  }
  for (const char* option : {"--fault", "--ttft-ms", "--itl-ms", "--tokens"})
    if (args.has(option))
      args.fail(std::string(option) + " shapes the simulated model, which --replay replaces: the recording's own timing and faults play");
}

}  // namespace

int run_endpoint(const std::vector<std::string>& argv) {
  Args args("endpoint", argv);
  EndpointConfig config;
  config.tls_listen = args.value_or("--listen", "");
  config.lab_listen = args.value_or("--lab-listen", "");
  config.http_listen = args.value_or("--http-listen", "");
  config.metrics_listen = args.value_or("--metrics-listen", "");
  read_own_emulation_options(args, config);
  if (config.tls_listen.empty() && config.lab_listen.empty() && config.http_listen.empty() && config.own_listen.empty()) {
    config.tls_listen = "127.0.0.1:7443";
    config.lab_listen = "127.0.0.1:7080";
  }
  config.cert_path = args.value_or("--cert", "");
  config.key_path = args.value_or("--key", "");
  if (config.tls_listen.empty() && (args.has("--cert") || args.has("--key")))
    args.fail("--cert and --key are for the TLS socket, which is off: give --listen HOST:PORT too");
  config.server_key_path = args.value_or("--server-key", "");
  if (auto v = args.value("--ttft-ms")) {
    auto d = parse_distribution(*v, "--ttft-ms");
    if (!d) args.fail(d.error().detail);
    else config.model.ttft = *d;
  }
  if (auto v = args.value("--itl-ms")) {
    auto d = parse_distribution(*v, "--itl-ms");
    if (!d) args.fail(d.error().detail);
    else config.model.itl = *d;
  }
  if (auto n = args.count("--tokens", 1, UINT32_MAX)) config.model.tokens = static_cast<std::uint32_t>(*n);
  if (auto n = args.count("--seed")) config.model.seed = *n;
  if (auto n = args.count("--max-connections", 1, 1000000)) config.max_connections = *n;
  struct Timeout {
    const char* option;
    double& seconds;
  };
  for (Timeout t : {Timeout{"--handshake-timeout", config.handshake_timeout_s}, Timeout{"--idle-timeout", config.idle_timeout_s},
                    Timeout{"--header-timeout", config.header_timeout_s}, Timeout{"--body-timeout", config.body_timeout_s},
                    Timeout{"--send-timeout", config.send_timeout_s}})
    if (auto s = args.number(t.option)) {
      if (*s < 0) args.fail(std::string(t.option) + " " + *args.value(t.option) + ": a timeout is 0 (none) or more seconds");
      else t.seconds = *s;
    }
  read_rider_options(args, config);
  auto faults = parse_faults(args.values("--fault"));
  if (!faults) args.fail(faults.error().detail);
  else config.model.faults = *faults;
  if (auto name = args.value("--require-api-key-env")) {
    const char* key = std::getenv(name->c_str());
    if (!key || !*key) args.fail("--require-api-key-env " + *name + ": that variable is not set");
    else config.required_api_key = key;
  }
  if (!args.positional().empty()) args.fail("unexpected argument \"" + args.positional()[0] + "\"");
  check_replay_options(args);
  if (!args.ok()) return usage_error("endpoint", args.error());
  if (auto path = args.value("--replay")) {
    auto source = load_replay(*path, CaptureKeySources{args.values("--keylog"), args.values("--server-key")});
    if (!source) return error_exit("endpoint", source.error());
    for (const auto& line : replay_summary(*source)) std::cerr << line << "\n";
    config.replay = std::make_shared<const std::vector<RecordedStream>>(std::move(source->streams));
  }

  // Block the signals before the loop thread starts, so only sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto endpoint = Endpoint::start(config);
  if (!endpoint) return error_exit("endpoint", endpoint.error());
  for (const auto& l : (*endpoint)->listeners()) std::cout << "listening " << l.url() << "\n";
  if (std::string faults_text = describe(config.model.faults); !faults_text.empty())
    std::cerr << "faults: " << faults_text << "\n";
  std::cout.flush();
  int received = 0;
  sigwait(&signals, &received);
  (*endpoint)->stop();
  return 0;
}

}  // namespace anthro::cli
