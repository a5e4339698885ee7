#include "profile/profile.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

#include "net/http_io.h"

namespace anthro {
namespace {

// The rows registered: the built-in formats' (register_builtin_formats), then plug-ins.
// Stable addresses: a deque.
struct Registry {
  std::deque<Profile> added;
  std::vector<const Profile*> all;
  const Profile* named(std::string_view name) const {
    for (const Profile* p : all)
      if (p->name == name) return p;
    return nullptr;
  }
  const Profile& add(Profile p) {
    if (p.name.empty() || named(p.name)) throw std::logic_error("register_profile: \"" + std::string(p.name) + "\" is empty or taken");
    if (!p.rides_on.empty() && !named(p.rides_on))
      throw std::logic_error("register_profile: " + std::string(p.name) + " rides on \"" + std::string(p.rides_on) + "\", not registered");
    if (!p.dissect != !p.describe)
      throw std::logic_error("register_profile: " + std::string(p.name) + ": a dissector of its own needs dissect and describe");
    if (std::ranges::find(all, p.id, &Profile::id) != all.end())
      throw std::logic_error("register_profile: " + std::string(p.name) + ": its id is taken");
    all.push_back(&added.emplace_back(p));
    return added.back();
  }
  // A new number: past every id held, the named ones' included.
  const Profile& add_numbered(Profile p) {
    std::uint16_t next = 0;
    for (const Profile* q : all) next = std::max<std::uint16_t>(next, static_cast<std::uint16_t>(static_cast<std::uint16_t>(q->id) + 1));
    p.id = static_cast<ProfileId>(next);
    return add(std::move(p));
  }
};

Registry& bare_registry() {
  static Registry r;
  return r;
}

// The registry with the built-in formats registered, once, before it is first read.
Registry& registry() {
  static std::once_flag once;
  std::call_once(once, register_builtin_formats);
  return bare_registry();
}

const Profile* named(std::string_view name) { return registry().named(name); }

bool rides_on(const Profile& rider, const Profile& carrier) { return !rider.rides_on.empty() && rider.rides_on == carrier.name; }

const Profile* rider_recognised(const Profile& carrier, ByteView first) {
  for (const Profile* p : registry().all)
    if (rides_on(*p, carrier) && p->recognise && p->recognise(first)) return p;
  return nullptr;
}

}  // namespace

std::span<const Profile* const> profiles() { return registry().all; }

const Profile& profile(ProfileId id) { return **std::ranges::find(registry().all, id, &Profile::id); }

const Profile& register_profile(Profile p) { return registry().add_numbered(std::move(p)); }

const Profile& register_builtin_profile(Profile p) { return bare_registry().add_numbered(std::move(p)); }

const Profile& register_carrier_profile(Profile p) { return bare_registry().add(std::move(p)); }

const Profile& carrier_of(const Profile& p) { return p.rides_on.empty() ? p : *named(p.rides_on); }

const Profile* find_profile(std::string_view name) { return named(name); }

bool header_value_shown(std::string_view name) {
  if (net::secret_header(name)) return false;
  if (net::public_header(name)) return true;
  for (const Profile* p : profiles())
    if (std::find(p->headers.begin(), p->headers.end(), name) != p->headers.end()) return true;
  return false;
}

ProfileId RegisteredId::operator()() const {
  if (!set_) (void)profiles();
  return id_;
}

void merge_records(FormatRecords& into, FormatRecords&& more) {
  for (auto& [id, record] : more) {
    auto [at, fresh] = into.try_emplace(id);
    if (fresh || !at->second.has_value()) at->second = std::move(record);
    else if (const auto merge = profile(id).merge_records) merge(at->second, std::move(record));
  }
}

const Profile* profile_for_alpn(std::string_view alpn) {
  if (alpn.empty()) return nullptr;
  for (const Profile* p : profiles())
    if (std::ranges::find(p->alpn, alpn) != p->alpn.end()) return p;
  return nullptr;
}

const Profile& tls_default_profile() { return profile(ProfileId::Http); }

const Profile* profile_for_handshake(std::string_view selected_alpn, bool client_offered_alpn) {
  if (!selected_alpn.empty()) return profile_for_alpn(selected_alpn);
  return client_offered_alpn ? &tls_default_profile() : nullptr;
}

const ProfileScheme* find_scheme(std::string_view scheme) {
  for (const Profile* p : profiles())
    for (const ProfileScheme& s : p->schemes)
      if (s.name == scheme) return &s;
  return nullptr;
}

const Profile* profile_for_scheme(std::string_view scheme) {
  for (const Profile* p : profiles())
    if (std::ranges::find(p->schemes, scheme, &ProfileScheme::name) != p->schemes.end()) return p;
  return nullptr;
}

bool scheme_serves_checklist(std::string_view scheme, std::string_view checklist_id) {
  const Profile* own = profile_for_scheme(scheme);
  return own && std::ranges::any_of(profiles(), [&](const Profile* p) {
           return p->checklist_id == checklist_id && (p == own || rides_on(*p, *own));
         });
}

const Profile* recognise_connection(ByteView first_client_bytes) {
  for (const Profile* p : profiles()) {
    if (!p->rides_on.empty() || !p->recognise || !p->recognise(first_client_bytes)) continue;
    const Profile* rider = rider_recognised(*p, first_client_bytes);
    return rider ? rider : p;
  }
  return nullptr;
}

const Profile& unrecognised_cleartext_profile() { return profile(ProfileId::AnthroV1); }

}  // namespace anthro
