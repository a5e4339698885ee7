#include "session/target.h"

#include "session/session.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "net/http_io.h"
#include "profile/profile.h"

namespace anthro {
namespace {

// In no interface's words: the CLI puts `--target ` before it, a page its field's name.
Error bad(const std::string& url, const std::string& why) { return make_error(ErrorClass::Usage, "\"" + url + "\": " + why); }

// The schemes of the profiles the live client speaks, for the error that lists them.
std::string scheme_names() {
  std::string out;
  for (const Profile* p : profiles())
    for (const ProfileScheme& s : p->schemes) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

bool has_own_client(ProfileId id) { return id != ProfileId::AnthroV1 && session_runner(id); }

Result<Target> parse_url(const std::string& url, bool own_clients);

}  // namespace

HttpApi http_api_of_path(std::string_view path) {
  path = path.substr(0, path.find('?'));
  if (path.ends_with("/messages")) return HttpApi::Messages;
  if (path.ends_with("/chat/completions")) return HttpApi::ChatCompletions;
  return HttpApi::None;
}

const char* default_api_key_variable(const Target& t) {
  if (t.profile == ProfileId::AnthroV1 || t.api == HttpApi::Messages) return "ANTHROPIC_API_KEY";
  if (t.api == HttpApi::ChatCompletions) return "OPENAI_API_KEY";
  return nullptr;
}

bool Target::own_client() const { return has_own_client(profile); }

bool Target::http() const { return profile != ProfileId::AnthroV1 && !own_client(); }

Result<Target> parse_target(const std::string& url) { return parse_url(url, false); }

std::vector<const Profile*> own_client_profiles() {
  std::vector<const Profile*> out;
  for (const Profile* p : profiles())
    if (has_own_client(p->id)) out.push_back(p);
  return out;
}

Result<Target> parse_session_target(const std::string& url) { return parse_url(url, true); }

Result<Target> parse_own_target(const std::string& url, ProfileId id) {
  auto t = parse_url(url, true);
  if (t && (!t->own_client() || t->profile != id)) {
    std::string schemes;
    for (const ProfileScheme& s : profile(id).schemes) schemes += (schemes.empty() ? "" : " or ") + std::string(s.name) + "://HOST:PORT";
    return bad(url, "not a " + std::string(profile(id).display_name) + " target (" + schemes + ")");
  }
  return t;
}

namespace {

Result<Target> parse_url(const std::string& url, bool own_clients) {
  Target t;
  t.url = url;
  auto sep = url.find("://");
  if (sep == std::string::npos) return bad(url, "expected SCHEME://HOST:PORT");
  std::string scheme = url.substr(0, sep), rest = url.substr(sep + 3);
  const ProfileScheme* known = find_scheme(scheme);
  if (!known) return bad(url, "unknown scheme \"" + scheme + "\" (" + scheme_names() + ")");
  t.profile = profile_for_scheme(scheme)->id;
  const std::string display(profile(t.profile).display_name);
  if (t.own_client() && !own_clients)
    return bad(url, "a " + display + " target is for session, diagnose and the live-session page, not for bench or rollout");
  t.tls = known->tls;
  rest = rest.substr(0, rest.find('#'));  // a fragment is never sent
  auto slash = rest.find_first_of("/?");
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) t.path = (rest[slash] == '?' ? "/" : "") + rest.substr(slash);
  // The path goes into the request line as it is: anything that could end or split it is refused.
  if (auto bad_char = std::find_if(t.path.begin(), t.path.end(),
                                   [](unsigned char ch) { return ch <= 0x20 || ch >= 0x7F; });
      bad_char != t.path.end())
    return bad(url, "the path holds a space, a control or a non-ASCII byte (percent-encode it)");
  std::string port;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) return bad(url, "unclosed [ in the host");
    t.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    t.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (t.host.empty()) return bad(url, "no host");
  if (port.empty()) {
    if (!t.http()) return bad(url, std::string(profile(t.profile).name) + " targets need a port");
    t.port = t.tls ? 443 : 80;
  } else {
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (*end || p <= 0 || p > 65535) return bad(url, "bad port \"" + port + "\"");
    t.port = static_cast<std::uint16_t>(p);
  }
  if (t.own_client()) {
    if (!t.path.empty() && t.path != "/") return bad(url, display + " targets take no path");
  } else if (t.http()) {
    t.api = http_api_of_path(t.path);
    if (t.api == HttpApi::None)
      return bad(url, "an HTTP target's path ends in /messages (Anthropic Messages API) or /chat/completions "
                      "(OpenAI-compatible), before any ?query");
  } else if (!t.path.empty() && t.path != "/") {
    return bad(url, "anthro-v1 targets take no path");
  }
  return t;
}

}  // namespace

namespace {

bool token_char(unsigned char c) {
  return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<RequestHeader> parse_request_header(std::string_view text, bool from_environment) {
  const std::string shown(text.substr(0, text.find_first_of(":\r\n")));
  auto fail = [&](const std::string& why) { return make_error(ErrorClass::Usage, "header \"" + shown + "\": " + why); };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return fail("expected NAME: VALUE");
  const std::string_view name = trimmed(text.substr(0, colon)), value = trimmed(text.substr(colon + 1));
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return token_char(static_cast<unsigned char>(c)); }))
    return fail("the name is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)");
  if (value.size() > 8192) return fail("the value is over 8 KiB");
  if (std::any_of(value.begin(), value.end(), [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F; }))
    return fail("the value holds a control byte (CR, LF, NUL …)");
  RequestHeader h{std::string(name), std::string(value)};
  std::transform(h.name.begin(), h.name.end(), h.name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view framing : {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "te",
                                   "upgrade", "proxy-connection", "trailer", "expect"})
    if (h.name == framing) return fail("set by the client (it frames the request)");
  if (!from_environment && net::credential_header(h.name)) return fail("a credential: give it with --header-env NAME:ENV, never on the command line");
  return h;
}

Result<RequestHeader> environment_request_header(std::string_view name, std::string_view variable) {
  const std::string shown(name.substr(0, name.find_first_of("\r\n")));
  if (variable.empty() || !std::all_of(variable.begin(), variable.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return make_error(ErrorClass::Usage, "header \"" + shown + "\": \"" + std::string(variable) + "\" is no environment variable's name");
  const char* value = std::getenv(std::string(variable).c_str());
  if (!value || !*value) return make_error(ErrorClass::Usage, "header \"" + shown + "\": " + std::string(variable) + " is not set");
  return parse_request_header(std::string(name) + ": " + value, true);
}

std::optional<std::string_view> environment_reference(std::string_view value) {
  value = trimmed(value);
  if (value.starts_with("${") && value.ends_with("}")) return value.substr(2, value.size() - 3);
  if (value.starts_with("$")) return value.substr(1);
  return std::nullopt;
}

std::string http_baseline_url(const Target& t) {
  if (!t.tls) return {};
  std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return "https://" + host + ":" + std::to_string(t.port) + "/v1/messages";
}

}  // namespace anthro
