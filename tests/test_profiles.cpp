// The profile registry (core/profile): lookups by ALPN id, scheme and name; recognition of real
// first bytes (the vector conversation's preface, a live client's request line, session
// affinity's headers) and of garbage and truncated bytes; captures dissected through it.
#include <QFloat16>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <random>

#include "affinity/format.h"
#include "layerzero/format.h"
#include "tokenstream/format.h"
#include "capture/capture_decoder.h"
#include "capture/connection_reader.h"
#include "capture/packet.h"
#include "capture_generator.h"
#include "crypto/keylog.h"
#include "diagnosis/checklist.h"
#include "endpoint/endpoint.h"
#include "profile/profile.h"
#include "protocol/stream_decoder.h"
#include "session/target.h"
#include "test_paths.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

// A request head as the live HTTP client writes it (core/session/client_http.cpp).
std::string messages_request(const std::string& extra_headers = "") {
  const std::string body = R"({"model":"m","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]})";
  return "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1:7080\r\ncontent-type: application/json\r\n"
         "accept: text/event-stream\r\ncontent-length: " + std::to_string(body.size()) +
         "\r\nanthropic-version: 2023-06-01\r\n" + extra_headers + "\r\n" + body;
}

// The lab preface as a client sends it: the magic, then the vectors' offer.
Bytes lab_preface() {
  Bytes preface(kPrefaceMagic.begin(), kPrefaceMagic.end());
  append(preface, hex(vectors()["blobs"]["offer"]));
  return preface;
}

std::string name_of(const Profile* p) { return p ? std::string(p->name) : "nothing"; }

struct Dissected {
  std::vector<CaptureConnection> conns;
  std::string first_client_bytes;
};

// A capture through the decoder, as analyze reads it.
Dissected dissect(const std::string& pcap, const KeyRing& ring) {
  Dissected out;
  CaptureEvents events;
  events.on_plaintext = [&](const CaptureConnection&, Direction d, ByteView b, double) {
    if (d == Direction::ClientToServer && out.first_client_bytes.empty()) out.first_client_bytes = as_text(b);
  };
  events.on_connection_end = [&](const CaptureConnection& c) { out.conns.push_back(c); };
  CaptureDecoder decoder(ring, events);
  auto reader = CaptureReader::open(pcap);
  if (!reader.ok()) qFatal("cannot open %s", pcap.c_str());
  while (auto p = (*reader)->next())
    if (auto seg = parse_tcp(*p); seg.ok() && *seg) decoder.feed(**seg);
  decoder.finish();
  return out;
}

}  // namespace

class TestProfiles : public QObject {
  Q_OBJECT
 private slots:
  void registryHoldsTheSixProfiles() {
    QCOMPARE(profiles().size(), std::size_t{6});
    QCOMPARE(name_of(find_profile("http2")), std::string("http2"));
    // Each carrier reads its own connections and serves them; a rider is its carrier's to read
    // and serve; a format with a dissector of its own needs no reader.
    for (ProfileId carrier : {ProfileId::AnthroV1, ProfileId::Http, ProfileId::Http2}) {
      QVERIFY(connection_reader(carrier) != nullptr);
      QCOMPARE(served_by(profile(carrier)), &profile(carrier));
      QVERIFY(profile(carrier).dissect == nullptr);
    }
    QCOMPARE(&carrier_of(profile(token_stream_id())), &profile(ProfileId::Http));
    QCOMPARE(served_by(profile(token_stream_id())), &profile(ProfileId::Http));
    QVERIFY(connection_reader(token_stream_id()) == nullptr);
    QCOMPARE(find_profile("token-stream")->rides_on, profile(ProfileId::Http).name);
    QCOMPARE(profile(token_stream_id()).checklist_id, std::string_view("token-stream"));
    QCOMPARE(name_of(find_profile("layer-zero")), std::string("layer-zero"));
    QVERIFY(profile(lz::profile_id()).dissect != nullptr);
    QVERIFY(connection_reader(lz::profile_id()) == nullptr);
    QCOMPARE(served_by(profile(lz::profile_id())), &profile(lz::profile_id()));
    QCOMPARE(own_port_formats(), std::vector<const Profile*>{&profile(lz::profile_id())});
    QVERIFY(profile(lz::profile_id()).rides_on.empty());
    QCOMPARE(name_of(find_profile("anthro-v1")), std::string("anthro-v1"));
    QCOMPARE(find_profile("session-affinity")->rides_on, profile(ProfileId::Http).name);
    QCOMPARE(&carrier_of(profile(session_affinity_id())), &profile(ProfileId::Http));
    QCOMPARE(profile(session_affinity_id()).checklist_id, std::string_view("session-affinity"));
    QCOMPARE(profile(session_affinity_id()).rollout_plan_id, std::string_view("session-affinity-four-stages"));
    QCOMPARE(profile(ProfileId::AnthroV1).rollout_plan_id, std::string_view("anthro-v1-five-stages"));
    QCOMPARE(profile(ProfileId::AnthroV1).checklist_id, std::string_view("latency"));
    QVERIFY(find_profile("h2") == nullptr);
  }

  void byAlpn() {
    QCOMPARE(name_of(profile_for_alpn("anthro-v1")), std::string("anthro-v1"));
    QCOMPARE(name_of(profile_for_alpn("http/1.1")), std::string("http"));  // the carrier, not its rider
    QCOMPARE(name_of(profile_for_alpn("layer-zero")), std::string("layer-zero"));
    QCOMPARE(name_of(profile_for_handshake("layer-zero", true)), std::string("layer-zero"));
    QCOMPARE(name_of(profile_for_alpn("h2")), std::string("http2"));
    QCOMPARE(name_of(profile_for_alpn("h2c")), std::string("nothing"));
    QCOMPARE(name_of(profile_for_alpn("")), std::string("nothing"));
    QCOMPARE(name_of(profile_for_alpn("ANTHRO-V1")), std::string("nothing"));  // ALPN ids are bytes
    // A handshake as a capture sees it.
    QCOMPARE(name_of(profile_for_handshake("anthro-v1", true)), std::string("anthro-v1"));
    QCOMPARE(name_of(profile_for_handshake("", true)), std::string("http"));
    QCOMPARE(name_of(profile_for_handshake("", false)), std::string("nothing"));
    QCOMPARE(name_of(profile_for_handshake("h2", true)), std::string("http2"));
    QCOMPARE(tls_default_profile().id, ProfileId::Http);
  }

  void byScheme() {
    QCOMPARE(name_of(profile_for_scheme("anthro")), std::string("anthro-v1"));
    QCOMPARE(name_of(profile_for_scheme("anthro+lab")), std::string("anthro-v1"));
    QCOMPARE(name_of(profile_for_scheme("https")), std::string("http"));
    QCOMPARE(name_of(profile_for_scheme("http")), std::string("http"));
    QCOMPARE(name_of(profile_for_scheme("ftp")), std::string("nothing"));
    QCOMPARE(name_of(profile_for_scheme("")), std::string("nothing"));
    QVERIFY(find_scheme("anthro")->tls && !find_scheme("anthro+lab")->tls);
    QVERIFY(find_scheme("https")->tls && !find_scheme("http")->tls);
    QCOMPARE(name_of(profile_for_scheme("lz")), std::string("layer-zero"));
    QVERIFY(find_scheme("lz")->tls && !find_scheme("lz+lab")->tls);
    // bench and rollout do not speak Layer Zero: its targets are refused, saying where they go;
    // a live session takes them.
    auto lz = parse_target("lz+lab://127.0.0.1:7090");
    QVERIFY(!lz.ok());
    QVERIFY(lz.error().detail.find("for session, diagnose and the live-session page") != std::string::npos);
    auto session_lz = parse_session_target("lz+lab://127.0.0.1:7090");
    QVERIFY(session_lz.ok() && session_lz->own_client() && session_lz->transport() == "lab");
    // parse_target asks the registry: the same targets as before, the same refusal.
    auto lab = parse_target("anthro+lab://127.0.0.1:7070");
    QVERIFY(lab.ok() && lab->profile == ProfileId::AnthroV1 && lab->api == HttpApi::None && !lab->tls && lab->transport() == "lab");
    auto https = parse_target("https://[::1]:8443/v1/chat/completions");
    QVERIFY(https.ok() && https->http() && https->api == HttpApi::ChatCompletions && https->tls && https->port == 8443);
    // The Layer Zero client's own reading of them.
    auto lz_target = parse_own_target("lz+lab://127.0.0.1:7090", lz::profile_id());
    QVERIFY(lz_target.ok() && lz_target->own_client() && lz_target->api == HttpApi::None && !lz_target->tls && lz_target->port == 7090);
    QVERIFY(parse_own_target("lz://127.0.0.1:7443", lz::profile_id()).ok());
    QVERIFY(!parse_own_target("anthro://127.0.0.1:7443", lz::profile_id()).ok());
    QVERIFY(!parse_own_target("lz+lab://127.0.0.1", lz::profile_id()).ok());  // no port
    QVERIFY(!parse_own_target("lz+lab://127.0.0.1:1/path", lz::profile_id()).ok());
    auto unknown = parse_target("ftp://x:1");
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.error().detail, std::string("\"ftp://x:1\": unknown scheme \"ftp\" (anthro, anthro+lab, http, https, lz, lz+lab)"));
  }

  // Which targets a checklist can run against: its profile's schemes and its carrier's.
  void checklistsByScheme() {
    for (const char* scheme : {"anthro", "anthro+lab", "http", "https"})
      QVERIFY2(scheme_serves_checklist(scheme, "latency"), scheme);
    QVERIFY(scheme_serves_checklist("https", "session-affinity"));
    QVERIFY(scheme_serves_checklist("http", "session-affinity"));
    QVERIFY(!scheme_serves_checklist("anthro", "session-affinity"));
    QVERIFY(!scheme_serves_checklist("anthro+lab", "session-affinity"));
    QVERIFY(scheme_serves_checklist("http", "token-stream") && scheme_serves_checklist("https", "token-stream"));
    QVERIFY(!scheme_serves_checklist("anthro", "token-stream"));
    QVERIFY(!scheme_serves_checklist("ftp", "latency"));
    QVERIFY(!scheme_serves_checklist("https", "no-such-checklist"));
    // Every built-in checklist belongs to a profile, and every profile's checklist is built in.
    for (const Checklist* c : builtin_checklists())
      QVERIFY2(std::ranges::any_of(profiles(), [c](const Profile* p) { return p->checklist_id == c->id; }), c->id.c_str());
    for (const Profile* p : profiles())
      QVERIFY2(builtin_checklist(p->checklist_id) != nullptr, std::string(p->name).c_str());
    QVERIFY(scheme_serves_checklist("lz+lab", "layer-zero"));
    QVERIFY(scheme_serves_checklist("lz", "layer-zero"));
    QVERIFY(!scheme_serves_checklist("anthro", "layer-zero"));
  }

  void recognisesRealFirstBytes() {
    Bytes preface = lab_preface();
    QCOMPARE(name_of(recognise_connection(preface)), std::string("anthro-v1"));
    Bytes conversation = hex(vectors()["conversation"]["client_to_server"]);
    QCOMPARE(name_of(recognise_connection(conversation)), std::string("anthro-v1"));
    std::string request = messages_request();
    QCOMPARE(name_of(recognise_connection(as_bytes(request))), std::string("http"));
    QCOMPARE(name_of(recognise_connection(as_bytes(std::string("GET /metrics HTTP/1.1\r\n\r\n")))), std::string("http"));
    std::string affinity = messages_request("X-Anthropic-Session-ID: 0b7e4a8e-3f7c-4d0a-9c1e-2a5b6c7d8e9f\r\n");
    QCOMPARE(name_of(recognise_connection(as_bytes(affinity))), std::string("session-affinity"));
    std::string hashed = messages_request("x-anthropic-context-hash: 9f86d081884c7d65\r\n");
    QCOMPARE(name_of(recognise_connection(as_bytes(hashed))), std::string("session-affinity"));
    // A session-affinity header in the body is not a header.
    std::string in_body = messages_request() + "\r\nx-anthropic-session-id: x";
    QCOMPARE(name_of(recognise_connection(as_bytes(in_body))), std::string("http"));
    // The token stream: the vocabulary fetched first, or the media type asked for.
    std::string vocab = "GET /v1/vocab HTTP/1.1\r\nhost: 127.0.0.1:7080\r\n\r\n";
    QCOMPARE(name_of(recognise_connection(as_bytes(vocab))), std::string("token-stream"));
    std::string ids = "POST /v1/messages HTTP/1.1\r\nhost: h\r\nContent-Type:  Application/Vnd.Claude.Token-Stream; v=1\r\n"
                      "x-claude-token-alignment: 4\r\n\r\n{}";
    QCOMPARE(name_of(recognise_connection(as_bytes(ids))), std::string("token-stream"));
    std::string media_in_body = messages_request() + "\r\ncontent-type: application/vnd.claude.token-stream";
    QCOMPARE(name_of(recognise_connection(as_bytes(media_in_body))), std::string("http"));
    QCOMPARE(name_of(recognise_connection(as_bytes(std::string("GET /v1/vocabulary HTTP/1.1\r\n\r\n")))), std::string("http"));
    // Layer Zero's first frame, fresh or resuming (the profiles' vectors); its header alone is too short to tell.
    const nlohmann::json lz = nlohmann::json::parse(read_file(ANTHRO_PROFILES_VECTORS))["layer_zero"];
    for (int i : {0, 8}) {
      QCOMPARE(lz["frames"][i]["payload_type"].get<int>(), 0x10);
      const Bytes init = hex(lz["frames"][i]["frame"]);
      QCOMPARE(name_of(recognise_connection(init)), std::string("layer-zero"));
      QCOMPARE(name_of(recognise_connection(ByteView(init).first(8))), std::string("nothing"));
    }
    Bytes wrong_length = hex(lz["frames"][0]["frame"]);
    wrong_length[7] ^= 0x01;  // a payload length no model id gives
    QCOMPARE(name_of(recognise_connection(wrong_length)), std::string("nothing"));
    // TLS is recognised below the profiles, never by one of them.
    const Bytes client_hello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
    QCOMPARE(name_of(recognise_connection(client_hello)), std::string("nothing"));
  }

  void garbageAndTruncationAreNothing() {
    Bytes preface = lab_preface();
    std::string request = messages_request();
    for (std::size_t n : {0, 1, 3, 7}) {
      QCOMPARE(name_of(recognise_connection(ByteView(preface).first(n))), std::string("nothing"));
      QCOMPARE(name_of(recognise_connection(as_bytes(request).first(std::min<std::size_t>(n, 4)))), std::string("nothing"));
    }
    for (std::string_view bad : {"ANTHRO02", "anthro01", "POST/v1", "get / HTTP/1.1", "\r\n\r\n", "X-Anthropic-Session-ID: x"})
      QCOMPARE(name_of(recognise_connection(as_bytes(bad))), std::string("nothing"));
    std::mt19937 rng(15);
    for (int i = 0; i < 2000; ++i) {
      Bytes noise(rng() % 300);
      for (auto& b : noise) b = static_cast<std::uint8_t>(rng());
      if (i % 2) std::copy_n("POST ", std::min<std::size_t>(5, noise.size()), noise.begin());  // an HTTP start, then noise
      const Profile* p = recognise_connection(noise);
      QVERIFY(p == nullptr || &carrier_of(*p) == &profile(ProfileId::Http));
    }
    QCOMPARE(unrecognised_cleartext_profile().id, ProfileId::AnthroV1);
  }

  // The vectors' lab conversation: recognised by its preface, dissected into its six frames.
  void vectorPcapDissectsThroughTheRegistry() {
    std::string keylog = vectors_path("lab-conversation.keylog");
    KeyRing ring;
    ring.add(parse_keylog(read_file(keylog), keylog));
    Dissected d = dissect(vectors_path("lab-conversation.pcap"), ring);
    QCOMPARE(d.conns.size(), std::size_t{1});
    QCOMPARE(name_of(recognise_connection(as_bytes(d.first_client_bytes))), std::string("anthro-v1"));
    QCOMPARE(d.conns[0].transport, CaptureTransport::Lab);
    QCOMPARE(d.conns[0].frames, std::uint64_t{6});
    QCOMPARE(d.conns[0].frames_opened, std::uint64_t{6});
    QCOMPARE(decryption_text(d.conns[0]), std::string("ok"));
  }

  // Cleartext HTTP, with and without session affinity's headers: one dissector for both.
  void httpCapturesDissectThroughTheRegistry() {
    const std::string reply = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
    for (const std::string& request :
         {messages_request(), messages_request("X-Anthropic-Session-ID: 0b7e4a8e-3f7c-4d0a-9c1e-2a5b6c7d8e9f\r\n")}) {
      QTemporaryDir dir;
      std::string pcap = dir.filePath("http.pcap").toStdString();
      write_capture(pcap, exchange({{true, request}, {false, reply}}));
      Dissected d = dissect(pcap, KeyRing{});
      QCOMPARE(d.conns.size(), std::size_t{1});
      QCOMPARE(d.conns[0].transport, CaptureTransport::Http);
      QCOMPARE(d.conns[0].http_requests, std::uint64_t{1});
      QCOMPARE(d.conns[0].frames, std::uint64_t{0});
      QCOMPARE(&carrier_of(*recognise_connection(as_bytes(d.first_client_bytes))), &profile(ProfileId::Http));
    }
  }

  // Bytes no heuristic claims are read as the fallback, anthro-v1, as before the registry.
  void unclaimedCleartextFallsBackToAnthro() {
    QTemporaryDir dir;
    std::string pcap = dir.filePath("noise.pcap").toStdString();
    write_capture(pcap, exchange({{true, "hello?"}, {false, "\x01\x02\x03"}}));
    Dissected d = dissect(pcap, KeyRing{});
    QCOMPARE(d.conns.size(), std::size_t{1});
    QCOMPARE(d.conns[0].transport, CaptureTransport::Lab);
    QCOMPARE(d.conns[0].http_requests, std::uint64_t{0});
  }
};

QTEST_GUILESS_MAIN(TestProfiles)
#include "test_profiles.moc"
