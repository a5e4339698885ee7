#include "cli/command_table.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "model/faults.h"

namespace anthro::cli {
namespace {

Options operator+(Options a, const Options& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Options without(Options a, const std::string& name) {
  a.erase(std::remove_if(a.begin(), a.end(), [&](const Option& o) { return o.name == name; }), a.end());
  return a;
}

// What every command that connects reads: TLS trust, API key, model, timeout.
const Options kTrust = {
    {"--cacert", "FILE", "trust this CA certificate (the local endpoint's own is trusted without it)"},
    {"--insecure", "", "do not verify the server's TLS certificate"},
    {"--api-key-env", "NAME", "read the API key from environment variable NAME (never from the command line); without "
                              "it an anthro-v1 or Messages API target takes ANTHROPIC_API_KEY and a chat-completions "
                              "target OPENAI_API_KEY, when set"},
    {"--header", "'NAME: VALUE'", "add a header to each HTTP request (repeatable; it replaces the client's own of that "
                                  "name); credentials go with --header-env"},
    {"--header-env", "NAME:ENV", "add header NAME with the value of environment variable ENV (repeatable): a secret "
                                 "kept off the command line and out of every output"},
    {"--anthropic-version", "V", "the anthropic-version header of Messages API requests (2023-06-01)"},
    {"--proxy", "URL", "connect through this HTTP proxy, http://[USER@]HOST:PORT (CONNECT for TLS and lab targets, "
                       "absolute-form requests for http:// ones); without it HTTPS_PROXY, HTTP_PROXY and NO_PROXY "
                       "are read as curl reads them"},
    {"--proxy-password-env", "NAME", "with a USER in --proxy: the proxy's password, from environment variable NAME"},
    {"--no-proxy", "", "connect directly, whatever the environment says"},
    {"--model", "NAME", "the model named in each request"},
    {"--timeout-s", "S", "give up on a request S seconds after it was written (60)"},
};

// The request of `session`, `bench` and `diagnose`'s live run.
const Options kRequest = {
    {"--target", "URL", "anthro://HOST:PORT (TLS), anthro+lab://HOST:PORT (cleartext), http[s]://HOST[:PORT]/PATH[?QUERY] "
                        "with PATH ending in /messages (v1/messages) or /chat/completions (a gateway's path and query "
                        "as they are); session and diagnose also take lz://HOST:PORT (TLS) and lz+lab://HOST:PORT "
                        "(Layer Zero)"},
    {"--prompt", "TEXT", "the user message"},
    {"--messages", "FILE.json", "the conversation as a JSON array of {\"role\", \"content\"} (instead of --prompt)"},
    {"--system", "TEXT", "the system prompt"},
    {"--max-tokens", "N", "max_tokens of each request"},
    {"--no-stream", "", "one response instead of a stream of tokens"},
    {"--cancel-after-tokens", "N", "send CANCEL after N tokens"},
    {"--close-without-cancel", "", "close the connection instead of cancelling (after 5 tokens unless --cancel-after-tokens)"},
    {"--read-delay-ms", "N", "a slow reader: wait N ms between reads"},
    {"--ring-kib", "N", "the receive ring advertised, in KiB (64 to 65535)"},
    {"--no-extension", "", "negotiate anthro-v1 in the in-band preface only, not the TLS extension"},
    {"--affinity", "", "/v1/messages: session affinity (Session-ID, Context-Hash, 409 followed), "
                       "one conversation per connection"},
    {"--affinity-turns", "N", "with --affinity: user turns per conversation before a new one (4)"},
    {"--keep-session-id", "", "with --affinity, a client fault: ignore X-Anthropic-New-Session-ID after a 409"},
    {"--session-id", "ID", "with --affinity: every conversation uses this session id (shared by all connections)"},
    {"--http2", "", "https:// targets: offer ALPN h2 first (HTTP/2 when the server selects it, else HTTP/1.1)"},
    {"--token-stream", "", "/v1/messages: the token stream (u32 token ids named through GET /v1/vocab)"},
    {"--context-id", "ID", "with --token-stream: X-Claude-Context-ID, sent as given (4294967297: tenant 1, session 1)"},
    {"--alignment", "VALUE", "with --token-stream, a client fault: X-Claude-Token-Alignment as sent (4), or none to leave it out"},
    {"--text-decoding", "", "with --token-stream, a client fault: read the ids as text, as TextDecoder would, and "
                            "report the JSON parse error (POST /v1/client-errors)"},
};

// The client faults `bench` and `diagnose` share (checklists.md).
const Options kLoad = {
    {"--cancel-rate", "F", "fraction of requests (0 to 1) that send CANCEL after 5 tokens"},
    {"--retry-naive", "", "retry a 429 at once instead of after its retry_after_ms"},
    {"--hold-connections", "S", "keep the connections open S seconds after the last request"},
    {"--seed", "N", "seed of the random choices (arrivals, cancels, prompts)"},
};

const Options kCaptureKeys = {
    {"--keylog", "FILE", "NSS key log with ANTHRO_V1 lines (repeatable)"},
    {"--server-key", "PEM", "the server's static X25519 key (repeatable)"},
};

const Options kLang = {{"--lang", "LANG", "en or zh_CN"}};

// The commands that read a capture (threads_option in cli/args.h).
const Options kThreads = {
    {"--threads", "N", "threads reading a capture (default: every core; 1 for one); the output does not depend on it"}};

// Where `session` and `bench` write their keys (not `diagnose`, whose --keylog reads them).
const Options kKeylogOut = {
    {"--keylog", "FILE", "append the TLS and ANTHRO_V1 keys here, mode 0600 (default: $SSLKEYLOGFILE); "
                         "a file that cannot be written is a warning and exit 2"}};

// Where `bench`, `diagnose` and `rollout` send their figures as Prometheus text (cli/metrics_out.h).
const Options kMetricsOut = {
    {"--metrics-file", "FILE.prom", "also write the figures for node_exporter's textfile collector (atomically)"},
    {"--pushgateway", "URL", "also push the figures to this Prometheus Pushgateway (job anthro_wb_COMMAND)"},
    {"--pushgateway-instance", "NAME", "the push's instance label, so workers keep groups of their own (default: the host "
                                       "name, with -$JOB_COMPLETION_INDEX in a Kubernetes Indexed Job)"}};

std::vector<CommandSpec> build_specs() {
  return {
      {"endpoint", "runs the local anthro-v1 endpoint until SIGINT/SIGTERM", "",
       {{"--listen", "HOST:PORT", "TLS port: ALPN anthro-v1 gets frames, http/1.1 the HTTP baseline (127.0.0.1:7443)"},
        {"--lab-listen", "HOST:PORT", "cleartext anthro-v1 port (127.0.0.1:7080)"},
        {"--http-listen", "HOST:PORT", "cleartext HTTP baseline port"},
        {"--metrics-listen", "HOST:PORT", "Prometheus text exposition at /metrics"},
        {"--lz-listen", "HOST:PORT", "cleartext Layer Zero port (TLS takes ALPN layer-zero on --listen)"},
        {"--lz-tool-calls", "", "Layer Zero: a session allowing tools (0x02) gets a TOOL_CALL before each reply"},
        {"--cert", "PEM", "TLS certificate (generated on first use when absent)"},
        {"--key", "PEM", "TLS private key (generated on first use when absent)"},
        {"--server-key", "PEM", "anthro-v1 static X25519 key (generated on first use when absent); with --replay it also "
                                "opens the capture's anthro-v1 frames"},
        {"--replay", "CAPTURE|RESULT.json", "answer with the recorded streams of a capture or a saved result in turn "
                                            "(texts, TTFT, gaps, errors, resets; per protocol) instead of the simulated model"},
        {"--keylog", "FILE", "with --replay: NSS key log for the capture (repeatable; its own embedded keys are used too)"},
        {"--ttft-ms", "MEAN[:STDDEV]", "time to first token of the simulated model"},
        {"--itl-ms", "MEAN[:STDDEV]", "inter-token latency of the simulated model"},
        {"--tokens", "N", "default reply length, capped by max_tokens"},
        {"--seed", "N", "seed of the simulated model"},
        {"--fault", kFaultValue, "misbehave as checklists.md describes (repeatable)"},
        {"--require-api-key-env", "NAME", "refuse requests without the API key held in environment variable NAME"},
        {"--max-connections", "N", "beyond N connections, answer 503 with the reason and close (1024)"},
        {"--handshake-timeout", "S", "close a connection whose TLS handshake or anthro-v1 preface takes longer (10; 0 none)"},
        {"--idle-timeout", "S", "close a connection idle this long: no stream in flight, nothing read (60; 0 none)"},
        {"--header-timeout", "S", "close an HTTP connection whose request head takes longer (10; 0 none)"},
        {"--body-timeout", "S", "HTTP request body: close after S without progress at 1 KiB/s (30; 0 none)"},
        {"--send-timeout", "S", "close a connection whose peer has not taken a write within S: it stopped reading (30; 0 none)"},
        {"--affinity-slots", "N", "emulate session affinity on /v1/messages with N context slots (off)"},
        {"--affinity-idle-s", "S", "with --affinity-slots: collect a session idle longer than S (300)"},
        {"--affinity-gc-ms", "MS", "with --affinity-slots: TTFT a collection adds to the request that waited for it (200)"},
        {"--token-stream", "", "serve the token stream on /v1/messages and GET /v1/vocab (off)"},
        {"--token-stream-tenant", "N", "with --token-stream: the API key's tenant; a context id of another is 401"}}},
      {"session", "live requests against a target, tokens streamed to stdout", "",
       kRequest + kTrust + kKeylogOut +
           Options{{"--repeat", "N", "N requests on the same connection, one after another"},
                   {"--format", "text|json", "human-readable (default) or one JSON document"}}},
      {"bench", "load generation against a target, with a latency summary", "",
       kRequest + kTrust + kLoad + kKeylogOut + kMetricsOut +
           Options{{"--concurrency", "N", "closed loop: N requests in flight"},
                   {"--rate", "R", "open loop: R requests per second"},
                   {"--arrivals", "constant|poisson", "open-loop arrivals (constant)"},
                   {"--requests", "N", "stop after N requests"},
                   {"--duration", "S", "stop after S seconds"},
                   {"--records", "FILE", "per-request records, JSONL (or CSV by extension)"},
                   {"--slo", "ttft:MS,tpot:MS,e2e:MS", "goodput counts the requests within these"},
                   {"--format", "text|json", "human-readable (default) or one JSON document"}}},
      {"decode", "frames of a capture file (pcap or pcapng), with keys", "CAPTURE",
       kCaptureKeys + Options{{"--format", "text|jsonl", "human-readable (default) or one JSON object per frame"}}},
      {"analyze", "per-connection, per-stream timing and TCP health of a capture file", "CAPTURE",
       kCaptureKeys + kThreads + Options{{"--format", "text|json", "human-readable (default) or one JSON document"}}},
      {"capture", "live capture with libpcap into pcapng, keys embedded", "",
       {{"--interface", "IF", "the interface to capture on (lo, eth0, any)"},
        {"--filter", "BPF", "capture filter, as tcpdump takes it (\"tcp port 7443\")"},
        {"--output", "FILE.pcapng", "where the capture is written (atomically, when it stops)"},
        {"--duration", "S", "stop after S seconds (default: at SIGINT)"},
        {"--keylog", "FILE", "key log embedded in the pcapng as a Decryption Secrets Block"}}},
      {"diagnose", "the latency-diagnosis checklist: a live target, a capture, this machine", "[CAPTURE]",
       // Its --system probes this machine: the live run takes no system prompt.
       without(kRequest, "--system") + kTrust + kLoad + kCaptureKeys + kThreads + kLang + kMetricsOut +
           Options{{"--requests", "N", "size of the live workload (200)"},
                   {"--concurrency", "N", "connections of the live workload (4)"},
                   {"--baseline", "URL", "the HTTP baseline for the UTF-8 pair"},
                   {"--system", "", "probe this machine (NIC drops, CPU governor, clock)"},
                   {"--sysfs-root", "DIR", "read /sys from DIR (implies --system)"},
                   {"--procfs-root", "DIR", "read /proc from DIR (implies --system)"},
                   {"--threshold", "ID=VALUE", "override a checklist threshold, or ID.NAME=VALUE (repeatable)"},
                   {"--checklist", "ID|FILE", "a built-in checklist (latency, session-affinity, token-stream, layer-zero) or "
                                          "one of your own (JSON, as resources/checklists/latency.json)"},
                   {"--tool-schema", "FILE", "layer-zero: a tool's input_schema, compared with --handler-schema (repeatable, in pairs)"},
                   {"--handler-schema", "FILE", "layer-zero: the tool handler's own schema"},
                   {"--lz-heartbeat-ms", "MS", "layer-zero client: heartbeat interval (200; another is a client fault)"},
                   {"--lz-tool-delay-ms", "MS", "layer-zero client: answer each TOOL_CALL this late (0)"},
                   {"--lz-clock-offset-ms", "MS", "layer-zero client: its clock this far from the real one (0)"},
                   {"--lz-buffer-usage", "0..255", "layer-zero client: the buffer usage its heartbeats report (0; 0xB3 = 179 asks for backpressure)"},
                   {"--lz-budget-ms", "MS", "layer-zero client: SESSION_INIT budget_ms (2000)"},
                   {"--format", "text|json", "human-readable (default) or one JSON document"},
                   {"--fail-on", "fail|warn", "exit 1 on a failed item (default) or on a warning too"},
                   {"--output", "FILE", "also write the JSON result to FILE"},
                   {"--quiet", "", "no progress on stderr"}}},
      {"rollout", "a grayscale-rollout rehearsal: a plan's stages, gates judged, rollback rehearsed", "",
       kTrust + kLang + kMetricsOut +
           Options{{"--plan", "NAME|FILE",
                    "a built-in plan (anthro-v1-five-stages, session-affinity-four-stages) or a JSON file"},
                   {"--baseline", "URL", "the serving target (default: the embedded endpoint's HTTP baseline)"},
                   {"--candidate", "URL", "the new target (default: the embedded endpoint's anthro-v1 port; for "
                                          "session-affinity-four-stages its Messages API with session affinity)"},
                   {"--endpoint-fault", kFaultValue, "the embedded endpoint misbehaves as `endpoint --fault` (repeatable)"},
                   {"--region", "NAME=URL", "a region's endpoint for region stages (repeatable)"},
                   {"--stage", "N|all", "run only stage N (all)"},
                   {"--requests-per-stage", "N", "requests of each stage"},
                   {"--concurrency", "N", "connections per arm (4)"},
                   {"--seed", "N", "seed of the split and the workload"},
                   {"--format", "text|json", "human-readable (default) or one JSON document"},
                   {"--output", "FILE", "write the result JSON (what --resume reads)"},
                   {"--resume", "RESULT.json", "continue a paused rollout, pooling more samples"},
                   {"--promote", "", "with --resume: let the paused stage through"},
                   {"--rollback-load-s", "S", "seconds of load during the rollback rehearsal"},
                   {"--quiet", "", "no progress on stderr"}}},
      {"compare", "two results or two captures judged against each other: no worse, worse, or what more is needed",
       "BASE CANDIDATE",
       kCaptureKeys + kThreads + Options{{"--margin", "F", "how much worse a figure may be, as a fraction (0.05: 5 %)"},
                              {"--rate-margin", "F", "error and cancel rates: how much higher, absolute (default: --margin; 0.01: 1 point)"},
                              {"--seed", "N", "seed of the bootstrap (1)"},
                              {"--format", "text|json", "human-readable (default) or one JSON document"},
                              {"--output", "FILE", "also write the JSON result to FILE (atomically)"}}},
      {"report", "renders a saved result as HTML, PDF, Markdown or JSON, redacted", "RESULT.json",
       kLang + Options{{"--to", "html|pdf|md|json", "the report's format"},
                       {"--output", "FILE", "where the report is written (atomically)"},
                       {"--redact-prompts", "", "also redact prompts and answers"}}},
      {"hash", "session affinity's Context-Hash of a messages file: canonical and Python's default, and why they differ",
       "MESSAGES.json",
       {{"--reply", "TEXT", "also the response's hash, with TEXT appended as the assistant's reply"},
        {"--format", "text|json", "human-readable (default) or one JSON document"}}},
      {"lint-schema",
       "Layer Zero's tool-schema linter: every constraint on which two JSON Schemas disagree (exit 1 if any)",
       "A.json B.json",
       {{"--format", "text|json", "a table (default) or one JSON document"},
        {"--json", "", "the same as --format json"}}},
      {"merge", "results of one workload from several workers (bench or session) merged into one", "R1.json R2.json...",
       {{"--output", "FILE", "where the merged result is written (atomically)"},
        {"--format", "text|json", "a summary (default) or the merged result on stdout too"}}},
      {"demo", "the headless tour: endpoint, captured session, analysis, diagnosis and reports", "", {}},
  };
}

}  // namespace

const std::vector<CommandSpec>& command_specs() {
  static const std::vector<CommandSpec> specs = build_specs();
  return specs;
}

const CommandSpec& command_spec(const std::string& name) {
  for (const auto& s : command_specs())
    if (s.name == name) return s;
  std::cerr << "anthro-wb: no command table entry for '" << name << "'\n";
  std::abort();
}

std::string command_help(const CommandSpec& spec) {
  std::string out = "Usage: anthro-wb " + spec.name + (spec.options.empty() ? "" : " [options]") +
                    (spec.arguments.empty() ? "" : " " + spec.arguments) + "\n\n" + spec.summary + "\n\noptions:\n";
  auto left = [](const Option& o) { return o.name + (o.value.empty() ? "" : " " + o.value); };
  std::size_t width = 10;
  for (const auto& o : spec.options) width = std::max(width, left(o).size());
  width = std::min<std::size_t>(width, 30);
  Options all = spec.options;
  all.push_back({"--help, -h", "", "this help"});
  for (const auto& o : all) {
    std::string l = left(o);
    out += "  " + l;
    if (l.size() > width) out += "\n  " + std::string(width, ' ');
    else out += std::string(width - l.size(), ' ');
    out += "  " + o.help + "\n";
  }
  return out;
}

bool asks_for_help(const std::vector<std::string>& argv, const Options& options) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") return true;
    if (a == "--") return false;
    auto it = std::find_if(options.begin(), options.end(), [&](const Option& o) { return o.name == a; });
    if (it != options.end() && !it->value.empty()) ++i;  // its value, even if it reads "--help"
  }
  return false;
}

namespace {

std::vector<std::string> starting_with(const std::vector<std::string>& candidates, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (c.rfind(prefix, 0) == 0) out.push_back(c);
  return out;
}

// The names an option's value can be: the fault catalogue's, or the choices its value lists
// ("text|json"; "N|all" offers "all", "ID|FILE" nothing).
std::vector<std::string> choices(const Option& option) {
  if (option.value == kFaultValue) return fault_names();
  std::vector<std::string> out;
  if (option.value.find('|') == std::string::npos) return out;
  std::size_t start = 0;
  while (start <= option.value.size()) {
    std::size_t bar = std::min(option.value.find('|', start), option.value.size());
    std::string word = option.value.substr(start, bar - start);
    if (!word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; }))
      out.push_back(word);
    start = bar + 1;
  }
  return out;
}

const Option* option_named(const CommandSpec& spec, const std::string& name) {
  for (const auto& o : spec.options)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

std::vector<std::string> complete(const std::vector<std::string>& words, const std::vector<std::string>& commands) {
  const std::string current = words.empty() ? "" : words.back();
  if (words.size() <= 1) {
    std::vector<std::string> first = commands;
    first.push_back("--help");
    return starting_with(first, current);
  }
  if (std::find(commands.begin(), commands.end(), words[0]) == commands.end()) return {};
  const CommandSpec& spec = command_spec(words[0]);
  const std::string& previous = words[words.size() - 2];
  // --fault=NAME: bash splits the word at '=' (COMP_WORDBREAKS), or hands it over whole.
  if (previous == "=" && words.size() >= 3) {
    const Option* o = option_named(spec, words[words.size() - 3]);
    return o && !o->value.empty() ? starting_with(choices(*o), current) : std::vector<std::string>{};
  }
  if (auto eq = current.find('='); current.rfind("--", 0) == 0 && eq != std::string::npos) {
    const Option* o = option_named(spec, current.substr(0, eq));
    std::vector<std::string> out;
    if (o && !o->value.empty())
      for (const auto& c : starting_with(choices(*o), current.substr(eq + 1))) out.push_back(o->name + "=" + c);
    return out;
  }
  if (const Option* o = option_named(spec, previous); o && !o->value.empty()) return starting_with(choices(*o), current);
  if (current.empty() || current[0] != '-') return {};
  std::vector<std::string> names;
  for (const auto& o : spec.options) names.push_back(o.name);
  names.push_back("--help");
  return starting_with(names, current);
}

}  // namespace anthro::cli
