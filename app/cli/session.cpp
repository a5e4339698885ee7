// `anthro-wb session`: live requests against a target, tokens streamed to stdout.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "session/session.h"
#include "util/files.h"

namespace anthro::cli {
namespace {

std::string fmt(const std::optional<double>& v, const char* unit) {
  if (!v) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", *v, unit);
  return buf;
}

void print_human(const SessionResult& s) {
  std::cout << "\n\n" << s.target << " (" << s.transport;
  if (!s.alpn.empty()) std::cout << ", ALPN " << s.alpn;
  if (!s.suite.empty()) std::cout << ", " << s.suite << (s.extension_used ? " via extension" : " via preface");
  if (!s.tls_suite.empty()) std::cout << ", " << s.tls_suite;
  std::cout << ")\nconnect " << fmt(s.connect_ms, "ms") << ", handshake " << fmt(s.handshake_ms, "ms") << "\n";
  for (const auto& r : s.requests) {
    const auto& f = r.figures;
    std::cout << "request " << r.stream_id << ": TTFT " << fmt(f.ttft_ms, "ms") << ", E2E " << fmt(f.e2e_ms, "ms")
              << ", " << f.tokens << " tokens, mean ITL " << fmt(f.mean_itl_ms, "ms") << ", p99 ITL "
              << fmt(f.p99_itl_ms, "ms") << ", " << fmt(f.tokens_per_s, "tokens/s")
              << ", stop " << (r.stop_reason ? to_string(*r.stop_reason) : "none");
    if (f.cancel_latency_ms) std::cout << ", cancel latency " << fmt(f.cancel_latency_ms, "ms");
    if (r.invalid_utf8_frames) std::cout << ", " << r.invalid_utf8_frames << " frames with invalid UTF-8";
    if (r.token_gaps || r.token_duplicates)
      std::cout << ", token index gaps " << r.token_gaps << " / repeats " << r.token_duplicates;
    if (f.usage_mismatch) std::cout << ", usage says " << *f.usage_output_tokens << " tokens";
    if (r.error) std::cout << ", error: " << *r.error;
    std::cout << "\n";
  }
  if (s.error) std::cout << "error: " << *s.error << "\n";
}

}  // namespace

int run_session_command(const std::vector<std::string>& argv) {
  Args args("session", argv,
            {"--target", "--prompt", "--messages", "--system", "--model", "--max-tokens", "--repeat",
             "--cancel-after-tokens", "--read-delay-ms", "--ring-kib", "--format", "--cacert", "--api-key-env",
             "--timeout-s"},
            {"--no-stream", "--close-without-cancel", "--insecure", "--no-extension"});
  SessionConfig c;
  c.target = args.value_or("--target", "");
  if (c.target.empty()) args.fail("--target is required");
  if (auto file = args.value("--messages")) {
    auto text = read_file(*file);
    auto messages = text ? parse_messages_json(*text) : Result<std::vector<ChatMessage>>(text.error());
    if (!messages) args.fail("--messages " + *file + ": " + messages.error().detail);
    else c.messages = *messages;
  } else {
    c.messages = {{"user", args.value_or("--prompt", "Hello! 👋 Tell me about transport layers.")}};
  }
  if (auto v = args.value("--system")) c.system = *v;
  c.model = args.value_or("--model", c.model);
  if (auto n = args.count("--max-tokens", 1, UINT32_MAX)) c.max_tokens = static_cast<std::uint32_t>(*n);
  c.stream = !args.has("--no-stream");
  if (auto n = args.count("--repeat", 1, 1000000)) c.repeat = static_cast<unsigned>(*n);
  if (auto n = args.count("--cancel-after-tokens", 1, UINT32_MAX)) c.cancel_after_tokens = static_cast<std::uint32_t>(*n);
  c.close_without_cancel = args.has("--close-without-cancel");
  if (c.close_without_cancel && !c.cancel_after_tokens) c.cancel_after_tokens = 5;
  if (auto d = args.number("--read-delay-ms")) c.read_delay_ms = *d;
  if (auto n = args.count("--ring-kib", 64, 65535)) c.ring_kib = static_cast<std::uint16_t>(*n);
  if (auto d = args.number("--timeout-s")) c.timeout_s = *d;
  c.ca_file = args.value_or("--cacert", "");
  c.insecure = args.has("--insecure");
  c.tls_extension = !args.has("--no-extension");
  if (auto name = args.value("--api-key-env")) {
    const char* key = std::getenv(name->c_str());
    if (!key || !*key) args.fail("--api-key-env " + *name + ": that variable is not set");
    else c.api_key = key;
  }
  if (const char* keylog = std::getenv("SSLKEYLOGFILE")) c.keylog_path = keylog;
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (!args.positional().empty()) args.fail("unexpected argument \"" + args.positional()[0] + "\"");
  if (!args.ok()) return usage_error("session", args.error());

  if (format == "text") c.on_text = [](std::string_view text) { std::cout << text << std::flush; };
  auto result = run_session(c);
  if (!result) return usage_error("session", result.error().detail);
  if (format == "json") std::cout << session_json(*result) << "\n";
  else print_human(*result);
  bool failed = result->error.has_value();
  for (const auto& r : result->requests) failed |= r.error.has_value();
  if (result->error) std::cerr << "anthro-wb session: " << *result->error << "\n";
  return failed ? 3 : 0;
}

}  // namespace anthro::cli
