// Layer Zero in a capture (core/layerzero/trace.h through core/capture): a session the
// endpoint cuts mid-answer (lz-cut) and the client resumes, captured on lo while the Layer Zero
// client ran it, dissects into the frames the client itself wrote and read, and the two
// connections link into one session by the token the resume presented, nothing lost or repeated.
// With lz-resume-skip the frame skipped is named by its sequence id, the same from the capture as
// live. Hostile bytes end a direction's reading with the spec's refusal, never a crash.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <random>
#include <tuple>

#include "layerzero/format.h"
#include "lz_capture.h"

using namespace anthro;
using namespace anthro::lz;
using namespace anthro::test;

namespace {

using Row = std::tuple<std::uint32_t, PayloadType, std::uint32_t, std::uint32_t>;  // seq, type, length, value

std::vector<Row> rows(const ConnectionTrace& c, Direction dir) {
  std::vector<Row> out;
  for (const auto& f : c.frames)
    if (f.dir == dir) out.emplace_back(f.sequence_id, f.type, f.payload_length, f.value);
  return out;
}

struct Run {
  LzRunResult live;
  CaptureAnalysis captured;
};

// One prompt through the client against an endpoint with `faults`, captured on lo (lz_capture.h).
Run captured_run(const std::vector<std::string>& faults, bool tls = false) {
  LzCaptured run = capture_lz_run({faults, tls});
  auto analysis = analyze_capture(run.capture, run.keys());
  if (!analysis) qFatal("analysis: %s", analysis.error().detail.c_str());
  return {std::move(run.live), std::move(*analysis)};
}

}  // namespace

class TestLayerZeroCapture : public QObject {
  Q_OBJECT

 private slots:
  void cutSessionDissectsAsTheClientSawIt_data() {
    QTest::addColumn<bool>("tls");
    QTest::newRow("lz+lab") << false;
    QTest::newRow("lz over TLS, key log") << true;
  }
  void cutSessionDissectsAsTheClientSawIt() {
    QFETCH(bool, tls);
    Run run = captured_run({"lz-cut=3"}, tls);
    QVERIFY2(run.live.complete, run.live.detail.c_str());
    const Trace live = link_sessions(run.live.trace);
    const Trace& captured = lz::trace_of(run.captured.records);
    for (const Trace* t : {&live, &captured}) {
      QCOMPARE(t->connections.size(), std::size_t{2});
      QCOMPARE(t->sessions.size(), std::size_t{1});
      const SessionTrace& s = t->sessions[0];
      QCOMPARE(s.connections.size(), std::size_t{2});
      QCOMPARE(s.resumes, 1u);
      QVERIFY(!s.opened_unseen);
      QCOMPARE(s.from_server.lost + s.from_server.repeated + s.from_client.lost + s.from_client.repeated, std::uint64_t{0});
      QVERIFY(t->connections[1].resuming());
      QVERIFY(t->connections[0].refusals.empty());
    }
    for (std::size_t i = 0; i < 2; ++i)
      for (Direction dir : {Direction::ClientToServer, Direction::ServerToClient})
        QCOMPARE(rows(captured.connections[i], dir), rows(live.connections[i], dir));
    // The resume presents the token the first connection's ACK issued.
    QCOMPARE(captured.connections[1].init->resume->token, captured.connections[0].ack->token);
    // Every MODEL_OUTPUT the client delivered is in the capture, by sequence id.
    std::vector<std::uint32_t> outputs;
    for (const auto& c : captured.connections)
      for (const auto& f : c.frames)
        if (f.type == PayloadType::ModelOutput) outputs.push_back(f.sequence_id);
    QCOMPARE(outputs.size(), run.live.outputs.size());
    // The capture's connection rows say what was read.
    for (const auto& c : run.captured.connections) {
      QVERIFY(c.info.dissected_frames > 0);
      QCOMPARE(c.info.alpn, std::string(tls ? "layer-zero" : ""));
      QCOMPARE(decryption_text(c.info), std::string("ok"));
    }
  }

  void skippedFrameIsNamedLiveAndCaptured() {
    Run run = captured_run({"lz-cut=3", "lz-resume-skip"});
    QVERIFY(!run.live.complete);  // the client refused the gap (TERMINATE sequence)
    QCOMPARE(run.live.terminated, std::optional<TerminateReason>(TerminateReason::Sequence));
    const Trace live = link_sessions(run.live.trace);
    for (const Trace* t : {&live, static_cast<const Trace*>(&lz::trace_of(run.captured.records))}) {
      QCOMPARE(t->sessions.size(), std::size_t{1});
      const SessionTrace& s = t->sessions[0];
      QCOMPARE(s.resumes, 1u);
      const std::uint32_t had = t->connections[1].init->resume->last_server_sequence_id;
      QCOMPARE(s.from_server.lost, std::uint64_t{1});
      QCOMPARE(s.from_server.lost_ids, std::vector<std::uint32_t>{had + 1});
      QCOMPARE(s.from_server.repeated, std::uint64_t{0});
    }
  }

  void repeatedFrameIsNamed() {
    Run run = captured_run({"lz-cut=3", "lz-resume-repeat"});
    QVERIFY2(run.live.complete, run.live.detail.c_str());
    QCOMPARE(run.live.repeats, std::uint64_t{1});
    const SessionTrace& s = lz::trace_of(run.captured.records).sessions.at(0);
    const std::uint32_t had = lz::trace_of(run.captured.records).connections[1].init->resume->last_server_sequence_id;
    QCOMPARE(s.from_server.repeated_ids, std::vector<std::uint32_t>{had});
    QCOMPARE(s.from_server.lost, std::uint64_t{0});
  }

  // A damaged CRC is refused as `checksum` at its frame's offset; a frame cut off is
  // `incomplete`; what follows a refusal is not read. Random bytes never crash the tracer.
  void hostileBytesAreRefusedInTheSpecsOrder() {
    Bytes good = *encode_frame(1, PayloadType::UserInput, as_bytes(std::string_view("hello")));
    Bytes bad = *encode_frame(2, PayloadType::UserInput, as_bytes(std::string_view("world")));
    bad.back() ^= 0x01;
    ConnectionTracer t("hostile");
    Bytes stream = good;
    append(stream, bad);
    append(stream, good);
    t.feed(Direction::ClientToServer, stream, 1.0);
    Bytes cut = *encode_frame(1, PayloadType::Heartbeat, Bytes(8, 0));
    cut.resize(cut.size() - 3);
    t.feed(Direction::ServerToClient, cut, 1.5);
    t.finish(2.0);
    const ConnectionTrace& c = t.trace();
    QCOMPARE(c.frames.size(), std::size_t{1});
    QCOMPARE(c.refusals.size(), std::size_t{2});
    QCOMPARE(c.refusals[0].refusal.reason, TerminateReason::Checksum);
    QCOMPARE(c.refusals[0].refusal.offset, std::uint64_t{good.size()});
    QCOMPARE(c.refusals[1].refusal.reason, TerminateReason::Incomplete);
    QCOMPARE(c.refusals[1].dir, Direction::ServerToClient);

    std::mt19937 rng(5);
    for (int round = 0; round < 200; ++round) {
      ConnectionTracer noise("noise");
      for (int piece = 0; piece < 8; ++piece) {
        Bytes junk(rng() % 64);
        for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
        noise.feed(piece % 2 ? Direction::ServerToClient : Direction::ClientToServer, junk, piece);
      }
      noise.finish(std::nullopt);
      Trace linked = link_sessions({noise.take()});
      QCOMPARE(linked.sessions.size(), std::size_t{1});
    }
  }
};

QTEST_GUILESS_MAIN(TestLayerZeroCapture)
#include "test_layer_zero_capture.moc"
