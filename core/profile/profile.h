// The seam between wire formats and engines: a wire format is described once, as a Profile, and
// the capture decoder, the live client's targets and the endpoint ask the registry for it.
// Chosen as Wireshark chooses a dissector: by the TLS ALPN id when there is one, else by
// heuristics over the first client bytes, tried in registry order.
#pragma once

#include <any>
#include <atomic>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "profile/dissector.h"
#include "util/bytes.h"

namespace anthro {

// The registry's id of a wire format. The three carriers others build on are named: their
// folders register them under these ids (register_carrier_profile). Every other format
// (register_builtin_profile, register_profile) gets the next number.
enum class ProfileId : std::uint16_t { AnthroV1, Http, Http2 };

// A target URL scheme the live client takes for a profile.
struct ProfileScheme {
  std::string_view name;  // before "://"
  bool tls;
};

struct Profile {
  ProfileId id;
  std::string_view name;                      // "anthro-v1", as the CLI and JSON spell it
  std::string_view display_name;
  std::span<const std::string_view> alpn;     // the TLS ALPN ids that choose it
  // Does a cleartext connection starting with these client bytes speak it? Never reads past
  // the span; a span too short to tell is no. A profile riding on another is asked only once
  // its carrier said yes. nullptr: recognised by ALPN or its carrier only.
  bool (*recognise)(ByteView first_client_bytes);
  std::span<const ProfileScheme> schemes;     // the live client's target schemes
  std::string_view checklist_id;              // resources/checklists/<id>.json
  std::string_view rollout_plan_id;           // resources/rollout-plans/<id>.json
  // The name of the profile whose wire it shares (say "http"), or empty. A rider is read from
  // captures and served by its carrier's parts, which ask the riders for theirs.
  std::string_view rides_on;
  // A format read by a dissector of its own: a new one for each connection, and how a kept
  // frame reads (profile/dissector.h); the Type column's words its frames take (string
  // literals: rows hand out their data() as C strings), and its inspector columns. A carrier
  // registers its connection reader instead (capture/connection_reader.h).
  std::unique_ptr<ConnectionDissector> (*dissect)() = nullptr;
  KeptFrameView (*describe)(const KeptFrame& frame) = nullptr;
  std::span<const std::string_view> frame_types = {};
  std::span<const std::string_view> columns = {};
  // The record a capture (or a live run) keeps of the format beyond its rows: what its
  // dissector kept of each connection (ConnectionDissector::take_record), in capture order,
  // joined into one (say, sessions linked across connections); two such joined into one
  // (a live run's and a capture's). Null: the connections' records as a std::vector<std::any>.
  std::any (*join_records)(std::vector<std::any>&& connections) = nullptr;
  void (*merge_records)(std::any& into, std::any&& more) = nullptr;
  // The request headers the format adds (lower case), whose values captures show: a header
  // neither public (net::public_header) nor a format's is masked, as a secret may hide under
  // any name (--header-env).
  std::span<const std::string_view> headers = {};
};

// Each format's joined record, by its profile (Profile::join_records).
using FormatRecords = std::map<ProfileId, std::any>;
// `more` joined into `into`, each format's by its merge_records (or kept when `into` had none).
void merge_records(FormatRecords& into, FormatRecords&& more);

// Every profile, carriers before their riders; the order heuristics are tried in. The
// built-in ones first, then those registered, in the order they were.
std::span<const Profile* const> profiles();
const Profile& profile(ProfileId id);  // id must be one profiles() holds
// Adds a plug-in wire format (its `id` is set to the next number) and returns it as kept. Names
// must be new and its carrier (rides_on) registered before it; a registration that breaks
// either throws. Call before the registry is read elsewhere (a static initialiser of the
// format's own folder), with the registrations of its other parts (register_probe, ...).
const Profile& register_profile(Profile p);
// A built-in format's own registration (its registry row; its `id` is set to the next number),
// called by its folder's register function from register_builtin_formats only.
const Profile& register_builtin_profile(Profile p);
// The same for the named carriers (anthro-v1, HTTP/1.1, HTTP/2): `id` is kept.
const Profile& register_carrier_profile(Profile p);
// The profile whose wire `p` shares (Profile::rides_on), or `p` itself.
const Profile& carrier_of(const Profile& p);
// A registered format's id, as its folder keeps it: set from what register_builtin_profile (or
// register_profile) returned; read before anything read the registry, it registers the
// built-in formats first (never from within: the id is set before the rest registers).
class RegisteredId {
 public:
  ProfileId operator()() const;
  void set(ProfileId id) {
    id_ = id;
    set_ = true;
  }

 private:
  ProfileId id_{};
  std::atomic<bool> set_{false};
};

// Registers every built-in format (core/formats/builtin.cpp: one line each): its row and its
// parts in the engines' tables. Run once, before the registry is first read.
void register_builtin_formats();
const Profile* find_profile(std::string_view name);
// Whether a capture shows a request header's value: not a secret by its name
// (net::secret_header), and public (net::public_header) or a registered format's
// (Profile::headers).
bool header_value_shown(std::string_view lower_case_name);

// The profile an ALPN id names; nullptr for an empty or unknown one.
const Profile* profile_for_alpn(std::string_view alpn);
// What a TLS server speaks when no ALPN was selected: the HTTP baseline.
const Profile& tls_default_profile();
// A finished TLS handshake as an observer sees it: the selected ALPN's profile; none selected
// after the client offered some, the server's default; no ALPN at all, nothing can be told.
const Profile* profile_for_handshake(std::string_view selected_alpn, bool client_offered_alpn);

// Can a target of `scheme` be diagnosed with checklist `checklist_id`: is it the checklist of
// the scheme's profile, or of a profile riding on that one?
bool scheme_serves_checklist(std::string_view scheme, std::string_view checklist_id);

const ProfileScheme* find_scheme(std::string_view scheme);
const Profile* profile_for_scheme(std::string_view scheme);

// The profile whose heuristic claims a cleartext connection's first client bytes (a rider
// before its carrier), or nullptr.
const Profile* recognise_connection(ByteView first_client_bytes);
// How a cleartext connection no heuristic claims is read: as anthro-v1, whose decoder also finds
// frames in a capture that starts mid-connection or whose server spoke first.
const Profile& unrecognised_cleartext_profile();

// One kind of part the formats register in an engine (a live client, an emulation, a live
// workload): at most one a profile, read once the built-in formats registered theirs.
template <class Part>
class PerProfile {
 public:
  explicit PerProfile(const char* what) : what_(what) {}
  void add(ProfileId id, Part part) {
    if (!table_.emplace(id, std::move(part)).second) throw std::logic_error(std::string(what_) + ": twice for one profile");
  }
  const Part* find(ProfileId id) const {
    auto it = all().find(id);
    return it == table_.end() ? nullptr : &it->second;
  }
  const std::map<ProfileId, Part>& all() const {
    (void)profiles();  // registers the built-in formats, once
    return table_;
  }

 private:
  const char* what_;
  std::map<ProfileId, Part> table_;
};

}  // namespace anthro
