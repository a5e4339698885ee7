// The seam between wire formats and engines: a wire format is described once, as a Profile, and
// the capture decoder, the live client's targets and the endpoint ask the registry for it.
// Chosen as Wireshark chooses a dissector: by the TLS ALPN id when there is one, else by
// heuristics over the first client bytes, tried in registry order.
#pragma once

#include <span>
#include <string_view>

#include "util/bytes.h"

namespace anthro {

enum class ProfileId { AnthroV1, Http, SessionAffinity, TokenStream, LayerZero, Http2 };

// Which capture dissector reads a profile's application bytes into frames and fields.
// LayerZero: frames, refusals and sessions linked across connections (layerzero/trace.h).
// Http2: frames and HPACK (nghttp2's inflater), each stream's exchange read as Http's are.
enum class Dissector { AnthroV1, Http, Http2, LayerZero };

// Which part of the local endpoint serves a profile.
enum class Emulation { AnthroV1Frames, HttpBaseline, Http2Baseline, LayerZeroFrames };

// A target URL scheme the live client takes for a profile.
struct ProfileScheme {
  std::string_view name;  // before "://"
  bool tls;
  ProfileId profile;
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
  Dissector dissector;
  Emulation emulation;
  const Profile* rides_on;  // the profile whose wire it shares (session-affinity: HTTP), or nullptr
};

// Every profile, carriers before their riders; the order heuristics are tried in.
std::span<const Profile> profiles();
const Profile& profile(ProfileId id);
const Profile* find_profile(std::string_view name);

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

}  // namespace anthro
