#include "cli/session_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "affinity/serve.h"
#include "affinity/format.h"
#include "layerzero/format.h"
#include "layerzero/workload.h"
#include "session/target.h"
#include "tokenstream/format.h"
#include "util/files.h"

namespace anthro::cli {

LoadOptions read_load_options(Args& args) {
  LoadOptions o;
  if (auto f = args.number("--cancel-rate")) {
    if (*f < 0 || *f > 1) args.fail("--cancel-rate must be a fraction from 0 to 1");
    o.cancel_rate = *f;
  }
  o.retry_naive = args.has("--retry-naive");
  if (auto s = args.number("--hold-connections", NumberRange::NonNegative)) o.hold_connections_s = *s;
  if (auto s = args.count("--seed")) o.seed = *s;
  return o;
}

void read_trust_options(Args& args, SessionConfig& c) {
  if (auto d = args.number("--timeout-s", NumberRange::Positive)) c.timeout_s = *d;
  c.ca_file = args.value_or("--cacert", "");
  c.insecure = args.has("--insecure");
  if (auto name = args.value("--api-key-env")) {
    const char* key = std::getenv(name->c_str());
    if (!key || !*key) args.fail("--api-key-env " + *name + ": that variable is not set");
    else c.api_key = key;
  }
  c.model = args.value_or("--model", c.model);
  if (const char* keylog = std::getenv("SSLKEYLOGFILE")) c.keylog_path = keylog;
  read_request_headers(args, c);
  read_proxy_options(args, c);
}

void read_proxy_options(Args& args, SessionConfig& c) {
  const auto given = args.value("--proxy");
  const auto password_variable = args.value("--proxy-password-env");
  if (args.has("--no-proxy")) {
    if (given || password_variable) args.fail("--no-proxy: not with --proxy or --proxy-password-env");
    c.proxy.source = net::ProxySetting::Source::Off;
    return;
  }
  if (password_variable && !given) return args.fail("--proxy-password-env: needs --proxy http://USER@HOST:PORT");
  if (!given) return;
  auto server = net::parse_proxy_url(*given, "--proxy", false);
  if (!server) return args.fail(server.error().detail);
  if (password_variable) {
    if (server->user.empty()) return args.fail("--proxy-password-env: --proxy names no USER@ to give it to");
    const char* password = std::getenv(password_variable->c_str());
    if (!password) return args.fail("--proxy-password-env " + *password_variable + ": that variable is not set");
    server->password = password;
  }
  c.proxy.source = net::ProxySetting::Source::Given;
  c.proxy.given = std::move(*server);
}

void read_request_headers(Args& args, SessionConfig& c) {
  auto add = [&](const std::string& option, const std::string& text, bool from_environment) {
    auto header = parse_request_header(text, from_environment);
    if (!header) return args.fail(option + ": " + header.error().detail);
    if (c.headers.size() == kMaxRequestHeaders)
      return args.fail(option + ": more than " + std::to_string(kMaxRequestHeaders) + " headers");
    c.headers.push_back(std::move(*header));
  };
  for (const auto& text : args.values("--header")) add("--header", text, false);
  for (const auto& spec : args.values("--header-env")) {
    const auto colon = spec.rfind(':');
    const std::string name = spec.substr(0, colon), variable = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (colon == std::string::npos || variable.empty()) {
      args.fail("--header-env \"" + spec + "\": expected NAME:ENV (the header's name, the variable holding its value)");
      continue;
    }
    auto header = environment_request_header(name, variable);
    if (!header) args.fail("--header-env " + spec + ": " + header.error().detail);
    else if (c.headers.size() == kMaxRequestHeaders) args.fail("--header-env: more than " + std::to_string(kMaxRequestHeaders) + " headers");
    else c.headers.push_back(std::move(*header));
  }
  if (auto version = args.value("--anthropic-version")) add("--anthropic-version", "anthropic-version: " + *version, false);
}

void read_default_api_key(Args& args, SessionConfig& c, const std::string& target_url) {
  if (args.has("--api-key-env") || !c.api_key.empty()) return;
  auto target = parse_session_target(target_url);
  const char* variable = target ? default_api_key_variable(*target) : nullptr;
  if (const char* key = variable ? std::getenv(variable) : nullptr; key && *key) c.api_key = key;
}

void read_keylog_output(Args& args, SessionConfig& c) {
  if (auto path = args.value("--keylog")) c.keylog_path = *path;
}

bool print_warnings(const std::string& command, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << "anthro-wb " << command << ": warning: " << w << "\n";
  return !warnings.empty();
}

void read_affinity_options(Args& args, SessionConfig& c) {
  const bool on = args.has("--affinity");
  AffinityClientConfig options;
  auto turns = args.count("--affinity-turns", 1, 1000);
  if (turns) options.turns = static_cast<unsigned>(*turns);
  options.keep_session_id = args.has("--keep-session-id");
  if (auto id = args.value("--session-id")) {
    if (id->empty() || id->size() > 200) args.fail("--session-id: expected a non-empty id of at most 200 characters");
    options.fixed_session_id = *id;
  }
  bool set = options.keep_session_id || options.fixed_session_id || turns;
  if (set && !on) args.fail("--affinity-turns, --keep-session-id and --session-id need --affinity");
  if (!on) return;
  use_session_affinity(c) = options;
  auto target = parse_target(c.target);
  if (target && target->api != HttpApi::Messages)
    args.fail("--affinity: session affinity is a Messages API feature; give an http(s)://HOST:PORT/v1/messages target");
}

void read_token_stream_options(Args& args, SessionConfig& c) {
  const bool on = args.has("--token-stream");
  TokenStreamClientOptions options;
  if (auto id = args.value("--context-id")) {
    if (!on) args.fail("--context-id needs --token-stream");
    if (id->empty() || id->size() > 200 || id->find_first_of("\r\n") != std::string::npos)
      args.fail("--context-id: expected a header value of 1 to 200 characters on one line");
    options.context_id = *id;
  }
  if (auto alignment = args.value("--alignment")) {
    if (!on) args.fail("--alignment needs --token-stream");
    if (alignment->size() > 200 || alignment->find_first_of("\r\n") != std::string::npos)
      args.fail("--alignment: expected a header value of at most 200 characters on one line, or none");
    options.alignment = *alignment == "none" ? std::nullopt : std::optional<std::string>(*alignment);
  }
  options.text_decoding = args.has("--text-decoding");
  if (options.text_decoding && !on) args.fail("--text-decoding needs --token-stream");
  if (!on) return;
  use_token_stream(c) = options;
  if (session_affinity_client(c)) args.fail("--token-stream and --affinity are two different protocols; give one");
  auto target = parse_target(c.target);
  if (target && target->api != HttpApi::Messages)
    args.fail("--token-stream: the token stream is a Messages API feature; give an http(s)://HOST:PORT/v1/messages target");
}

// HTTP/2 is chosen by ALPN, so over TLS only; the session-affinity client reads HTTP/1.1 replies.
void read_http2_option(Args& args, SessionConfig& c) {
  c.http2 = args.has("--http2");
  if (!c.http2) return;
  auto target = parse_session_target(c.target);
  if (target && (!target->http() || !target->tls))
    args.fail("--http2: HTTP/2 is offered by ALPN over TLS; give an https://HOST:PORT/v1/messages target");
  if (session_affinity_client(c)) args.fail("--http2 and --affinity: the session-affinity client speaks HTTP/1.1");
}

// A format's own client sends one prompt under its own terms: what only anthro-v1 or the HTTP
// APIs have is refused, not ignored.
void refuse_for_own_client(Args& args, const SessionConfig& c) {
  auto target = parse_session_target(c.target);
  if (!target || !target->own_client()) return;
  const std::string display(profile(target->profile).display_name);
  for (const char* option : {"--system", "--max-tokens", "--no-stream", "--cancel-after-tokens", "--close-without-cancel",
                             "--read-delay-ms", "--ring-kib", "--no-extension", "--affinity", "--token-stream"})
    if (args.has(option)) args.fail(std::string(option) + ": not for a " + display + " target (" + c.target + ")");
  if (c.messages.size() > 1) args.fail("--messages: a " + display + " session sends one prompt, not a conversation");
}

void read_session_options(Args& args, SessionConfig& c, bool positional_allowed) {
  c.target = args.value_or("--target", "");
  if (c.target.empty()) args.fail("--target is required");
  if (auto target = parse_session_target(c.target); !target) args.fail("--target " + target.error().detail);
  if (auto file = args.value("--messages")) {
    auto text = read_file(*file, file_limit::kMessages);  // its errors name the file
    auto messages = text ? parse_messages_json(*text) : Result<std::vector<ChatMessage>>(text.error());
    if (!text) args.fail("--messages " + text.error().detail);
    else if (!messages) args.fail("--messages " + *file + ": " + messages.error().detail);
    else c.messages = *messages;
  } else {
    c.messages = {{"user", args.value_or("--prompt", "Hello! 👋 Tell me about transport layers.")}};
  }
  if (auto v = args.value("--system")) c.system = *v;
  c.model = args.value_or("--model", c.model);
  if (auto n = args.count("--max-tokens", 1, UINT32_MAX)) c.max_tokens = static_cast<std::uint32_t>(*n);
  c.stream = !args.has("--no-stream");
  if (auto n = args.count("--cancel-after-tokens", 1, UINT32_MAX)) c.cancel_after_tokens = static_cast<std::uint32_t>(*n);
  c.close_without_cancel = args.has("--close-without-cancel");
  if (c.close_without_cancel && !c.cancel_after_tokens) c.cancel_after_tokens = 5;
  if (auto d = args.number("--read-delay-ms", NumberRange::NonNegative)) c.read_delay_ms = *d;
  if (auto n = args.count("--ring-kib", 64, 65535)) c.ring_kib = static_cast<std::uint16_t>(*n);
  c.tls_extension = !args.has("--no-extension");
  read_affinity_options(args, c);
  read_token_stream_options(args, c);
  read_http2_option(args, c);
  read_trust_options(args, c);
  refuse_for_own_client(args, c);
  read_default_api_key(args, c, c.target);
  if (auto target = parse_session_target(c.target); target && !target->http() && !c.headers.empty())
    args.fail("--header, --header-env and --anthropic-version are for HTTP targets (http://, https://), not " + c.target);
  if (!positional_allowed && !args.positional().empty())
    args.fail("unexpected argument \"" + args.positional()[0] + "\"");
}

const std::vector<std::string>& own_client_option_names() {
  static const std::vector<std::string> names = {"--lz-heartbeat-ms", "--lz-tool-delay-ms", "--lz-clock-offset-ms",
                                                 "--lz-buffer-usage", "--lz-budget-ms"};
  return names;
}

void read_own_client_options(Args& args, LiveWorkloadConfig& live) {
  if (std::ranges::none_of(own_client_option_names(), [&](const std::string& o) { return args.has(o); })) return;
  lz::LzClientConfig& c = lz::client_options(live);
  if (auto v = args.number("--lz-heartbeat-ms", NumberRange::Positive)) c.heartbeat_ms = *v;
  if (auto v = args.number("--lz-tool-delay-ms", NumberRange::NonNegative)) c.tool_delay_ms = *v;
  if (auto n = args.count("--lz-buffer-usage", 0, 255)) c.buffer_usage = static_cast<std::uint8_t>(*n);
  if (auto n = args.count("--lz-budget-ms", 1, UINT32_MAX)) c.terms.budget_ms = static_cast<std::uint32_t>(*n);
  if (auto v = args.number("--lz-clock-offset-ms")) {
    if (std::fabs(*v) > 1e9) return args.fail("--lz-clock-offset-ms: beyond ±1e9 ms");
    const auto offset = static_cast<std::int64_t>(*v * 1e6);
    c.clock = [offset] { return static_cast<std::uint64_t>(static_cast<std::int64_t>(lz::system_clock_ns()) + offset); };
  }
}

// The emulated GPU instance's context slots (off without --affinity-slots).
void read_affinity_emulation(Args& args, EndpointConfig& config) {
  if (auto n = args.count("--affinity-slots", 1, 1000000)) emulate_affinity(config).slot_count = *n;
  if (auto s = args.number("--affinity-idle-s", NumberRange::Positive)) emulate_affinity(config).idle_s = *s;
  if (auto ms = args.number("--affinity-gc-ms", NumberRange::NonNegative)) emulate_affinity(config).gc_pause_ms = *ms;
  if ((args.has("--affinity-idle-s") || args.has("--affinity-gc-ms")) && !args.has("--affinity-slots"))
    args.fail("--affinity-idle-s and --affinity-gc-ms need --affinity-slots N");
}

void read_rider_options(Args& args, EndpointConfig& config) {
  read_affinity_emulation(args, config);
  if (args.has("--token-stream-tenant") && !args.has("--token-stream")) args.fail("--token-stream-tenant needs --token-stream");
  if (args.has("--token-stream")) {
    TokenStreamServerOptions& served = serve_token_stream(config);
    if (auto n = args.count("--token-stream-tenant", 0, 0xFFFFFFFF)) served.tenant = static_cast<std::uint32_t>(*n);
  }
}

void read_own_emulation_options(Args& args, EndpointConfig& config) {
  if (auto listen = args.value_or("--lz-listen", ""); !listen.empty()) config.own_listen[lz::profile_id()] = listen;
  lz::emulation_options(config).tool_calls = args.has("--lz-tool-calls");
}

}  // namespace anthro::cli
