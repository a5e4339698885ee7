// `anthro-wb session`: live requests against a target, tokens streamed to stdout.
#include <cstdio>
#include <iostream>

#include "cli/session_options.h"
#include "cli/commands.h"
#include "session/session.h"

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
  std::cout << ")\n";
  if (!s.proxy.empty()) std::cout << "via proxy " << s.proxy << ": ";
  std::cout << "connect " << fmt(s.connect_ms, "ms");
  if (s.proxy_connect_ms) std::cout << ", CONNECT " << fmt(s.proxy_connect_ms, "ms");
  std::cout << ", handshake " << fmt(s.handshake_ms, "ms") << "\n";
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
    for (const auto& [id, part] : r.extensions.all()) std::cout << part->text();
    if (r.error) std::cout << ", error: " << *r.error;
    std::cout << "\n";
  }
  if (s.error) std::cout << "error: " << *s.error << "\n";
}

}  // namespace

int run_session_command(const std::vector<std::string>& argv) {
  Args args("session", argv);
  SessionConfig c;
  read_session_options(args, c);
  read_keylog_output(args, c);
  if (auto n = args.count("--repeat", 1, 1000000)) c.repeat = static_cast<unsigned>(*n);
  std::string format = args.value_or("--format", "text");
  if (format != "text" && format != "json") args.fail("--format \"" + format + "\": expected text or json");
  if (!args.ok()) return usage_error("session", args.error());

  if (format == "text") c.on_text = [](std::string_view text) { std::cout << text << std::flush; };
  auto result = run_session(c);
  if (!result) return error_exit("session", result.error());
  if (format == "json") std::cout << session_json(*result) << "\n";
  else print_human(*result);
  bool failed = result->error.has_value();
  for (const auto& r : result->requests) failed |= r.error.has_value();
  if (result->error) std::cerr << "anthro-wb session: " << *result->error << "\n";
  bool warned = print_warnings("session", result->warnings);
  return failed ? 3 : warned ? 2 : 0;
}

}  // namespace anthro::cli
