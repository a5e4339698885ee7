#include "session/target.h"

#include "session/session.h"

#include <cstdlib>

#include "profile/profile.h"

namespace anthro {
namespace {

Error bad(const std::string& url, const std::string& why) { return make_error(ErrorClass::Usage, "--target \"" + url + "\": " + why); }

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
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) t.path = rest.substr(slash);
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
    if (t.path == "/v1/messages") t.api = HttpApi::Messages;
    else if (t.path == "/v1/chat/completions") t.api = HttpApi::ChatCompletions;
    else return bad(url, "HTTP targets end in /v1/messages or /v1/chat/completions");
  } else if (!t.path.empty() && t.path != "/") {
    return bad(url, "anthro-v1 targets take no path");
  }
  return t;
}

}  // namespace

std::string http_baseline_url(const Target& t) {
  if (!t.tls) return {};
  std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return "https://" + host + ":" + std::to_string(t.port) + "/v1/messages";
}

}  // namespace anthro
