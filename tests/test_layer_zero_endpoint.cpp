// Layer Zero over real sockets: the local endpoint's lz+lab port driven by the
// Layer Zero client (core/layerzero/client.h). A connection cut mid-answer by the lz-cut fault
// is resumed on a second connection with every MODEL_OUTPUT delivered exactly once and the
// same text as an uncut run (and as the simulated model's own text); a client whose clock runs
// 1 s ahead has its resume refused with TERMINATE clock-skew; a damaged frame is answered by
// TERMINATE checksum and a close.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include "layerzero/format.h"
#include "endpoint_fixture.h"
#include "layerzero/client.h"
#include "profiles_vectors.h"
#include "raw_peer.h"
#include "test_paths.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::lz;
using namespace anthro::test;

namespace {

constexpr const char* kPrompt = "查北京天气, and why do resumes need sequence ids?";

std::unique_ptr<EndpointFixture> lz_endpoint(std::vector<std::string> faults = {}) {
  auto e = std::make_unique<EndpointFixture>(std::move(faults), 20, 2, 24);
  e->config().own_listen[lz::profile_id()] = "127.0.0.1:0";
  e->start();
  return e;
}

LzClientConfig client_for(EndpointFixture& e) {
  LzClientConfig c;
  c.port = port_of(e.endpoint().url("lz+lab"));
  c.terms = {"claude-3-5-sonnet", 5000, 0x16};
  c.prompt = kPrompt;
  c.timeout_s = 10;
  return c;
}

LzRunResult run(const LzClientConfig& c) {
  auto r = run_lz_prompt(c);
  if (!r) qFatal("layer-zero run: %s", r.error().detail.c_str());
  return *r;
}

// The simulated model's reply to the prompt, from the model itself (its text depends on the
// seed and prompt only).
std::string model_text(EndpointFixture& e) {
  SimulatedModel model(e.config().model);
  return model.full_text(ReplyRequest{"claude-3-5-sonnet", kPrompt, e.config().default_max_tokens, 0, {}});
}

// The first frame a server sent, or nullopt when it sent none before closing.
std::optional<DataFrame> first_frame(ByteView s2c) {
  std::optional<DataFrame> first;
  FrameSplitter s(Direction::ServerToClient);
  s.feed(s2c, [&](const FrameView& f) {
    if (!first) first = f.to_frame();
  });
  return first;
}

Bytes init_frame(const SessionInit& init) { return *encode_frame(0, PayloadType::SessionInit, *encode_payload(init)); }

std::vector<std::uint32_t> sequence_ids(const LzRunResult& r) {
  std::vector<std::uint32_t> ids;
  for (const auto& o : r.outputs) ids.push_back(o.sequence_id);
  return ids;
}

// 1, 2, … n with nothing missing or repeated.
bool consecutive_from_one(const std::vector<std::uint32_t>& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != i + 1) return false;
  return !ids.empty();
}

}  // namespace

class TestLayerZeroEndpoint : public QObject {
  Q_OBJECT

 private slots:
  void uncut_answer_on_one_connection() {
    auto e = lz_endpoint();
    QVERIFY(!e->endpoint().url("lz+lab").empty());
    QVERIFY(!e->endpoint().url("lz").empty());  // the TLS port takes ALPN layer-zero
    LzRunResult r = run(client_for(*e));
    QVERIFY2(r.complete, r.detail.c_str());
    QCOMPARE(r.connections, 1u);
    QCOMPARE(r.resumes, 0u);
    QCOMPARE(r.text, model_text(*e));
    QVERIFY(consecutive_from_one(sequence_ids(r)));
    QCOMPARE(r.repeats, std::uint64_t{0});
  }

  void cut_answer_resumes_on_a_second_connection() {
    auto uncut_endpoint = lz_endpoint();
    const LzRunResult uncut = run(client_for(*uncut_endpoint));
    QVERIFY(uncut.complete);

    auto e = lz_endpoint({"lz-cut=3"});
    LzRunResult r = run(client_for(*e));
    QVERIFY2(r.complete, r.detail.c_str());
    QCOMPARE(r.connections, 2u);
    QCOMPARE(r.resumes, 1u);
    QCOMPARE(r.text, uncut.text);
    QCOMPARE(r.text, model_text(*e));
    QCOMPARE(r.outputs.size(), uncut.outputs.size());
    QVERIFY(consecutive_from_one(sequence_ids(r)));  // each MODEL_OUTPUT exactly once
    // Two frames came on the first connection; the third, lost with it, was resent on the second.
    QCOMPARE(r.outputs.at(1).connection, 1u);
    QCOMPARE(r.outputs.at(2).sequence_id, 3u);
    QCOMPARE(r.outputs.at(2).connection, 2u);
    QCOMPARE(r.outputs.back().connection, 2u);
  }

  // The TLS port: ALPN layer-zero selects the same emulation, and a cut resumes over TLS too.
  void over_tls_with_alpn_layer_zero() {
    auto e = lz_endpoint({"lz-cut=5"});
    LzClientConfig c = client_for(*e);
    c.port = port_of(e->endpoint().url("lz"));
    c.tls = true;
    c.ca_file = e->endpoint().cert_path();
    LzRunResult r = run(c);
    QVERIFY2(r.complete, r.detail.c_str());
    QCOMPARE(r.connections, 2u);
    QCOMPARE(r.text, model_text(*e));
    QVERIFY(consecutive_from_one(sequence_ids(r)));
  }

  void client_clock_one_second_ahead_is_refused_on_resume() {
    auto e = lz_endpoint({"lz-cut=3"});
    LzClientConfig c = client_for(*e);
    c.clock = [] { return system_clock_ns() + 1'000'000'000; };
    LzRunResult r = run(c);
    QCOMPARE(r.connections, 2u);  // a fresh INIT is not clock-checked; the resume is
    QVERIFY(r.terminated_by_server);
    QCOMPARE(r.terminated, std::optional<TerminateReason>(TerminateReason::ClockSkew));
    QVERIFY(!r.complete);
    QCOMPARE(r.resumes, 0u);
    QCOMPARE(r.outputs.size(), std::size_t{2});
    QVERIFY2(QString::fromStdString(r.detail).contains("clock-skew"), r.detail.c_str());
  }

  // --require-api-key-env guards Layer Zero on both its ports, as it does every other protocol:
  // without the key (or with a wrong one) TERMINATE unauthorized and no answer; with it, the answer.
  void a_required_key_guards_both_layer_zero_ports() {
    auto e = std::make_unique<EndpointFixture>(std::vector<std::string>{}, 20, 2, 24);
    e->config().own_listen[lz::profile_id()] = "127.0.0.1:0";
    e->config().required_api_key = "sk-lz-endpoint-key";
    e->start();
    for (const char* scheme : {"lz+lab", "lz"}) {
      LzClientConfig c = client_for(*e);
      c.port = port_of(e->endpoint().url(scheme));
      c.tls = std::string(scheme) == "lz";
      c.ca_file = e->endpoint().cert_path();
      for (std::optional<std::string> key : {std::optional<std::string>(), std::optional<std::string>("sk-lz-wrong")}) {
        c.api_key = key;
        LzRunResult refused = run(c);
        QVERIFY(refused.terminated_by_server);
        QCOMPARE(refused.terminated, std::optional<TerminateReason>(TerminateReason::Unauthorized));
        QVERIFY(refused.outputs.empty());
        QVERIFY(!refused.complete);
      }
      c.api_key = "sk-lz-endpoint-key";
      LzRunResult served = run(c);
      QVERIFY2(served.complete, served.detail.c_str());
      QCOMPARE(served.text, model_text(*e));
    }
  }

  // A flood of fresh sessions from the same address cannot push out a session whose token is
  // valid (before, 1,100 INITs evicted it from an LRU of 1,024): beyond the store's size fresh
  // sessions are closed, and the honest client's resume is answered with SESSION_ACK.
  void a_flood_of_fresh_sessions_leaves_a_resumable_session() {
    auto e = lz_endpoint();
    const std::uint16_t port = port_of(e->endpoint().url("lz+lab"));
    const SessionInit fresh{test::lz_vector_terms(), std::nullopt, std::nullopt};
    SessionToken token{};
    {
      RawPeer honest(port);
      honest.send(init_frame(fresh));
      auto ack = first_frame(honest.read_at_least(kFrameOverhead + 76));
      QVERIFY(ack && ack->type == PayloadType::SessionAck);
      token = decode_session_ack(ack->payload)->token;
    }
    std::size_t closed_without_ack = 0;
    for (int i = 0; i < 1100; ++i) {
      RawPeer attacker(port);
      attacker.send(init_frame(fresh));
      closed_without_ack += !first_frame(attacker.read_at_least(kFrameOverhead + 76));
    }
    QVERIFY2(closed_without_ack > 0, "the store took every fresh session: no bound was reached");
    RawPeer resumed(port);
    resumed.send(init_frame({test::lz_vector_terms(), ResumeFields{token, 0, system_clock_ns()}, std::nullopt}));
    auto answer = first_frame(resumed.read_at_least(kFrameOverhead + 76));
    QVERIFY(answer);
    if (answer->type == PayloadType::Terminate)
      QFAIL(qPrintable(QString("resume refused: TERMINATE ") + to_string(*decode_terminate(answer->payload)->reason())));
    QCOMPARE(answer->type, PayloadType::SessionAck);
  }

  void damaged_frame_gets_terminate_checksum_and_a_close() {
    auto e = lz_endpoint();
    RawPeer peer(port_of(e->endpoint().url("lz+lab")));
    QVERIFY(peer.connected());
    const nlohmann::json doc = nlohmann::json::parse(read_file(ANTHRO_PROFILES_VECTORS));
    Bytes init = hex(doc["layer_zero"]["frames"][0]["frame"]);
    peer.send(init);
    Bytes bad;
    for (const auto& n : doc["layer_zero"]["negatives"])
      if (n["name"] == "bad_crc") bad = hex(n["frame"]);
    peer.send(bad);
    const Bytes got = peer.read_all();
    QVERIFY(peer.closed());
    std::vector<DataFrame> frames;
    FrameSplitter s(Direction::ServerToClient);
    QVERIFY(!s.feed(got, [&](const FrameView& f) { frames.push_back(f.to_frame()); }));
    QVERIFY(!s.finish());
    QCOMPARE(frames.size(), std::size_t{2});
    QCOMPARE(frames[0].type, PayloadType::SessionAck);
    QCOMPARE(frames[1].type, PayloadType::Terminate);
    QCOMPARE(decode_terminate(frames[1].payload)->reason(), std::optional<TerminateReason>(TerminateReason::Checksum));
    QCOMPARE(e->endpoint().counters().protocol_errors, std::uint64_t{1});
  }
};

QTEST_GUILESS_MAIN(TestLayerZeroEndpoint)
#include "test_layer_zero_endpoint.moc"
