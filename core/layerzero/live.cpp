#include "layerzero/live.h"

#include "layerzero/client.h"

namespace anthro {

namespace {

// One prompt's Layer Zero session as the client saw it, into the request's end.
void record_end(RequestRecorder& rec, const Result<lz::LzRunResult>& run, double started, double timeout_s, bool sent) {
  const double now = steady_now_s();
  if (!run) {
    // The client gives up on the whole run at its timeout; every other failure is the network's.
    // A prompt never sent has no end to time (its E2E would run from the clock's epoch).
    const bool timed_out = now - started >= timeout_s;
    rec.ended(timed_out ? RequestEnd::Timeout : RequestEnd::ConnectionClosed, run.error().detail,
              sent ? std::optional<double>(now) : std::nullopt);
  } else if (run->cancelled) {
    // No cancel latency: the TERMINATE that stopped it gets no answer of its own to time.
    rec.response(now, StopReason::Cancelled, std::nullopt, {});
  } else if (run->complete) {
    rec.response(now, StopReason::EndTurn, std::nullopt, {});  // the text came with the outputs
  } else if (run->terminated_by_server) {
    rec.ended(RequestEnd::Error, std::string("TERMINATE ") + lz::to_string(*run->terminated) + ": " + run->detail, now);
  } else {
    rec.ended(RequestEnd::ProtocolError, run->detail, now);
  }
  rec.finish();
}

lz::LzClientConfig client_config(const SessionConfig& config, const Target& target, std::shared_ptr<KeyLogSink> keylog,
                                 unsigned index) {
  lz::LzClientConfig c = layer_zero_client_config(lz::default_client_config(), config, target);
  c.keylog = std::move(keylog);
  c.terms.model_id = config.model;
  c.prompt = config.messages.empty() ? std::string() : config.messages.back().content;
  c.timeout_s = config.timeout_s;
  c.name = "session-" + std::to_string(index + 1);
  return c;
}

}  // namespace

lz::LzClientConfig layer_zero_client_config(lz::LzClientConfig base, const SessionConfig& config, const Target& target) {
  base.host = target.host;
  base.port = target.port;
  base.tls = target.tls;
  base.ca_file = config.ca_file;
  base.insecure = config.insecure;
  base.proxy = config.proxy;
  if (!config.api_key.empty()) base.api_key = config.api_key;
  return base;
}

SessionResult run_layer_zero_session(const SessionConfig& config, const Target& target, const SessionHooks& hooks) {
  SessionResult result;
  result.target = target.url;
  result.transport = target.transport();
  result.profile = target.profile;
  if (target.tls) result.alpn = "layer-zero";
  if (auto route = net::proxy_route(config.proxy, target.host, target.tls, false); route && *route)
    result.proxy = (*route)->server.url();  // (a bad proxy variable fails each prompt, named)
  std::shared_ptr<KeyLogSink> keylog;
  if (!config.keylog_path.empty()) keylog = std::make_shared<KeyLogSink>(config.keylog_path);
  for (unsigned i = 0; i < config.repeat && !(hooks.stop && hooks.stop->load()); ++i) {
    RequestResult& r = result.requests.emplace_back();
    RequestRecorder rec(r);
    lz::LzClientConfig c = client_config(config, target, keylog, i);
    c.stop = hooks.stop;
    bool sent = false;
    c.on_prompt_sent = [&rec, &sent](double ts) {
      sent = true;
      rec.request_sent(ts);
    };
    c.on_output = [&](const lz::LzOutput& out, double ts) {
      rec.tokens(ts, 1, out.text, true);
      if (config.on_text) config.on_text(out.text);
      if (hooks.on_output) hooks.on_output(r);
    };
    const double started = steady_now_s();
    const auto run = lz::run_lz_prompt(c);
    record_end(rec, run, started, config.timeout_s, sent);
    if (!run && !sent) {  // it never reached the server: nor will the prompts after it
      result.error = run.error().detail;
      if (hooks.on_request) hooks.on_request(r);
      break;
    }
    if (hooks.on_request) hooks.on_request(r);
  }
  if (keylog)
    if (auto problem = keylog->error()) result.warnings.push_back(*problem);
  return result;
}

}  // namespace anthro
