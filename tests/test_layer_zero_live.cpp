// Live sessions against Layer Zero (lz+lab:// and lz://) through run_session and
// LiveSession, the paths of `anthro-wb session` and the GUI's live page: each prompt is a
// Layer Zero session recorded as a request, one token per MODEL_OUTPUT, TTFT from the USER_INPUT
// the ACK released; a cut connection is resumed inside one request; a cancel ends the session
// with TERMINATE normal; the local endpoint's certificate is trusted without flags.
#include <QFloat16>
#include <QObject>
#include <QRegularExpression>
#include <QString>
#include <QTest>

#include <mutex>

#include <nlohmann/json.hpp>

#include "layerzero/format.h"
#include "endpoint_fixture.h"
#include "layerzero/client.h"
#include "model/simulated_model.h"
#include "raw_peer.h"
#include "session/live_session.h"
#include "util/files.h"

using namespace anthro;
using namespace anthro::test;

namespace {

constexpr double kTtftMs = 60;
constexpr const char* kModel = "claude-3-5-sonnet";

std::unique_ptr<EndpointFixture> lz_endpoint(std::vector<std::string> faults = {}, double itl_ms = 2,
                                             std::uint32_t tokens = 24) {
  auto e = std::make_unique<EndpointFixture>(std::move(faults), kTtftMs, itl_ms, tokens);
  e->config().own_listen[lz::profile_id()] = "127.0.0.1:0";
  e->start();
  return e;
}

SessionConfig lz_session(EndpointFixture& e, const char* scheme) {
  SessionConfig c = e.session(scheme);
  c.model = kModel;
  return c;
}

// What the simulated model answers the session's prompt: its text depends on seed and prompt only.
std::string model_text(EndpointFixture& e, const SessionConfig& c) {
  SimulatedModel model(e.config().model);
  return model.full_text(ReplyRequest{kModel, c.messages.back().content, e.config().default_max_tokens, 0});
}

// The same prompt through the Layer Zero client alone: how many MODEL_OUTPUT frames it delivers.
std::size_t outputs_of_plain_client(EndpointFixture& e, const SessionConfig& c) {
  lz::LzClientConfig plain = lz::default_client_config();
  plain.port = port_of(e.endpoint().url("lz+lab"));
  plain.terms.model_id = kModel;
  plain.prompt = c.messages.back().content;
  auto run = lz::run_lz_prompt(plain);
  if (!run || !run->complete) qFatal("plain Layer Zero run failed");
  return run->outputs.size();
}

}  // namespace

class TestLayerZeroLive : public QObject {
  Q_OBJECT

 private slots:
  void sessionRecordsEachOutputAsAToken() {
    auto e = lz_endpoint();
    SessionConfig c = lz_session(*e, "lz+lab");
    c.repeat = 2;
    const SessionResult s = EndpointFixture::run(c);
    QVERIFY2(!s.error, s.error ? s.error->c_str() : "");
    QCOMPARE(s.transport, std::string("lab"));
    QCOMPARE(s.profile, lz::profile_id());  // its own client ran it
    QCOMPARE(s.requests.size(), std::size_t{2});
    const std::size_t outputs = outputs_of_plain_client(*e, c);
    for (const RequestResult& r : s.requests) {
      QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
      QCOMPARE(r.end, RequestEnd::Response);
      QCOMPARE(r.stop_reason, std::optional<StopReason>(StopReason::EndTurn));
      QCOMPARE(r.text, model_text(*e, c));
      QCOMPARE(r.figures.tokens, std::uint64_t{outputs});
      // Written before the model's first-token delay, not at the first output or the connect.
      QVERIFY(r.figures.ttft_ms);
      QVERIFY2(*r.figures.ttft_ms >= kTtftMs - 1, qPrintable(QString::number(*r.figures.ttft_ms)));
      QVERIFY(r.figures.e2e_ms && *r.figures.e2e_ms >= *r.figures.ttft_ms);
      QVERIFY(r.figures.tokens_per_s);
    }
  }

  // The lz-cut fault drops the connection after three outputs: the request is still one, with
  // every output once and the text of an uncut answer.
  void cutConnectionIsResumedInsideOneRequest() {
    auto e = lz_endpoint({"lz-cut=3"});
    SessionConfig c = lz_session(*e, "lz+lab");
    const SessionResult s = EndpointFixture::run(c);
    QCOMPARE(s.requests.size(), std::size_t{1});
    const RequestResult& r = s.requests[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QCOMPARE(r.stop_reason, std::optional<StopReason>(StopReason::EndTurn));
    QCOMPARE(r.text, model_text(*e, c));
    QCOMPARE(r.token_duplicates, std::uint64_t{0});
  }

  // lz:// over TLS 1.3 with ALPN layer-zero, no --ca-file: the local endpoint's certificate is
  // trusted as for anthro://, and the key log gets the connection's secrets.
  void tlsTrustsTheLocalEndpointAndWritesTheKeyLog() {
    auto e = lz_endpoint();
    SessionConfig c = lz_session(*e, "lz");
    c.keylog_path = e->path("keys.log");
    const SessionResult s = EndpointFixture::run(c);
    QCOMPARE(s.transport, std::string("tls"));
    QCOMPARE(s.alpn, std::string("layer-zero"));
    QCOMPARE(s.requests.size(), std::size_t{1});
    QVERIFY2(!s.requests[0].error, s.requests[0].error ? s.requests[0].error->c_str() : "");
    QCOMPARE(s.requests[0].text, model_text(*e, c));
    auto log = read_file(c.keylog_path, file_limit::kKeyLog);
    QVERIFY(log);
    QVERIFY(QString::fromStdString(*log).contains(QRegularExpression("^CLIENT_TRAFFIC_SECRET_0 [0-9a-f]{64} ",
                                                                     QRegularExpression::MultilineOption)));
  }

  // Checking a certificate still happens: a CA file that did not sign the endpoint's fails
  // (another endpoint's, made in a data directory of its own).
  void tlsWithAnotherCaFails() {
    auto e = lz_endpoint();
    auto other = lz_endpoint();
    SessionConfig c = lz_session(*e, "lz");
    c.ca_file = other->endpoint().cert_path();
    const SessionResult s = EndpointFixture::run(c);
    QCOMPARE(s.requests.size(), std::size_t{1});
    QVERIFY(s.requests[0].error);
    QVERIFY2(QString::fromStdString(*s.requests[0].error).contains("TLS"), s.requests[0].error->c_str());
    QCOMPARE(s.requests[0].figures.tokens, std::uint64_t{0});
  }

  void jsonSaysLayerZero() {
    auto e = lz_endpoint();
    const SessionResult s = EndpointFixture::run(lz_session(*e, "lz+lab"));
    const auto doc = nlohmann::json::parse(session_json(s));
    QCOMPARE(doc["protocol"].get<std::string>(), std::string("layer-zero"));
    QCOMPARE(doc["transport"].get<std::string>(), std::string("lab"));
    QVERIFY(doc["negotiation"].is_null());
    QVERIFY(doc["suite"].is_null());
    QCOMPARE(doc["requests"][0]["stop_reason"].get<std::string>(), std::string("end_turn"));
  }

  // The GUI's path: every output reported as it arrives, with the time the request keeps.
  void liveSessionReportsEachOutput() {
    auto e = lz_endpoint();
    SessionConfig c = lz_session(*e, "lz+lab");
    std::mutex m;
    std::string text;
    std::vector<TokenArrival> arrivals;
    std::vector<RequestResult> done;
    std::vector<SessionResult> finished;
    LiveSessionEvents events;
    events.on_text = [&](std::uint32_t, std::string_view t) {
      std::lock_guard lock(m);
      text += t;
    };
    events.on_token = [&](std::uint32_t, const TokenArrival& a) {
      std::lock_guard lock(m);
      arrivals.push_back(a);
    };
    events.on_request_done = [&](const RequestResult& r) {
      std::lock_guard lock(m);
      done.push_back(r);
    };
    events.on_finished = [&](const SessionResult& r) {
      std::lock_guard lock(m);
      finished.push_back(r);
    };
    auto s = LiveSession::start(c, std::move(events));
    QVERIFY2(s, s ? "" : s.error().detail.c_str());
    (*s)->wait();
    QCOMPARE(finished.size(), std::size_t{1});
    QCOMPARE(done.size(), std::size_t{1});
    const RequestResult& r = done[0];
    QCOMPARE(text, r.text);
    QCOMPARE(text, model_text(*e, c));
    QCOMPARE(arrivals.size(), r.timeline.tokens.size());
    for (std::size_t i = 0; i < arrivals.size(); ++i) QCOMPARE(arrivals[i].t, r.timeline.tokens[i].t);
  }

  // Cancel mid-answer: the client ends the session with TERMINATE normal, the request stops
  // early as cancelled, no further prompt starts.
  void cancelEndsTheSessionWithTerminate() {
    auto e = lz_endpoint({}, 30, 200);
    SessionConfig c = lz_session(*e, "lz+lab");
    c.repeat = 3;
    std::atomic<unsigned> tokens{0};
    std::mutex m;
    std::vector<RequestResult> done;
    LiveSessionEvents events;
    events.on_token = [&](std::uint32_t, const TokenArrival&) { ++tokens; };
    events.on_request_done = [&](const RequestResult& r) {
      std::lock_guard lock(m);
      done.push_back(r);
    };
    auto s = LiveSession::start(c, std::move(events));
    QVERIFY(s);
    QTRY_VERIFY_WITH_TIMEOUT(tokens >= 3, 10000);
    (*s)->cancel();
    (*s)->wait();
    QCOMPARE(done.size(), std::size_t{1});
    const RequestResult& r = done[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QCOMPARE(r.stop_reason, std::optional<StopReason>(StopReason::Cancelled));
    QVERIFY(r.figures.tokens >= 3 && r.figures.tokens < 200);
  }

  // Bench and rollout take no Layer Zero target, and say what does.
  void benchRefusesLayerZero() {
    auto t = parse_target("lz+lab://127.0.0.1:9");
    QVERIFY(!t);
    QVERIFY2(QString::fromStdString(t.error().detail).contains("not for bench or rollout"), t.error().detail.c_str());
    QVERIFY(parse_session_target("lz+lab://127.0.0.1:9"));
    QVERIFY(!parse_session_target("lz+lab://127.0.0.1:9/v1/messages"));
  }
};

QTEST_GUILESS_MAIN(TestLayerZeroLive)
#include "test_layer_zero_live.moc"
