// The --target URLs of cli.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.h"
#include "util/result.h"

namespace anthro {

// The API an HTTP target's path names.
enum class HttpApi { None, Messages, ChatCompletions };

// Which client speaks a target is its profile's: anthro-v1's, a wire format's own
// (session_runner), else the HTTP client.
struct Target {
  ProfileId profile = ProfileId::AnthroV1;  // whose scheme it was written in
  HttpApi api = HttpApi::None;              // the HTTP client's targets only
  bool tls = true;
  std::string host;  // without brackets
  std::uint16_t port = 0;
  std::string path;  // HTTP only
  std::string url;   // as given
  // host:port, an IPv6 host in brackets: HTTP/1.1's Host and HTTP/2's :authority.
  std::string authority() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
  bool own_client() const;  // a wire format's own live client speaks it
  bool http() const;        // the HTTP client speaks it
  // "tls", "lab" or "http", the transport names of the JSON output.
  std::string transport() const { return http() ? "http" : tls ? "tls" : "lab"; }
};

// anthro://host:port, anthro+lab://host:port, http(s)://host[:port]/PATH[?QUERY] where PATH
// ends in /messages (v1/messages, or a gateway's) or /chat/completions
// (/openai/deployments/NAME/chat/completions?api-version=…); IPv6 hosts in brackets.
Result<Target> parse_target(const std::string& url);
// The API a path names by its end (a query aside); None for any other.
HttpApi http_api_of_path(std::string_view path);
// The environment variable holding a target's API key when none is named: ANTHROPIC_API_KEY
// for anthro-v1 and the Messages API, OPENAI_API_KEY for chat completions; null for others.
const char* default_api_key_variable(const Target& t);
// A target of `id`'s own live client (one of its profile's schemes), which bench and
// rollout refuse.
Result<Target> parse_own_target(const std::string& url, ProfileId id);
// What a live session takes: parse_target's targets and those of the formats' own clients.
Result<Target> parse_session_target(const std::string& url);

// A request header of the user's (cli.md `--header`, `--header-env`, `--anthropic-version`),
// sent on every HTTP request: it replaces a header of the same name the client would send
// (anthropic-version, accept), else it is added.
struct RequestHeader {
  std::string name;  // lower case: HTTP/2 requires it, HTTP/1.1 does not mind
  std::string value;
};
inline constexpr std::size_t kMaxRequestHeaders = 64;
// "NAME: VALUE" (or NAME:VALUE). Refuses a name that is no HTTP token, a value with a control
// byte (CR, LF, NUL: a header must not split the request), over 8 KiB, the headers that frame
// the request (host, content-length, transfer-encoding, connection, …), and — unless the value
// came `from_environment` — the credential headers (x-api-key, authorization,
// proxy-authorization, cookie), which never come from a command line.
Result<RequestHeader> parse_request_header(std::string_view text, bool from_environment);
// NAME with the value of environment variable `variable` (--header-env NAME:ENV, the GUI's
// "NAME: $ENV"): a secret kept off command lines and forms. Errors name the variable, never a value.
Result<RequestHeader> environment_request_header(std::string_view name, std::string_view variable);
// "$ENV" or "${ENV}": the variable a header's value names; nullopt for a value written out.
std::optional<std::string_view> environment_reference(std::string_view value);

// The profiles with a live client of their own (Target::own_client), in registry order.
std::vector<const Profile*> own_client_profiles();

// The HTTP baseline an anthro-v1 TLS port also serves (ALPN http/1.1):
// https://host:port/v1/messages; empty for a cleartext target.
std::string http_baseline_url(const Target& t);

}  // namespace anthro
