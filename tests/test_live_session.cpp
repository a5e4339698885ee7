// LiveSession against a real embedded endpoint: tokens as they arrive, one event per request
// and one at the end, cancel() mid-stream and before the first token (a real CANCEL on
// anthro-v1, a closed connection on HTTP), each token's arrival time, and a destructor that
// does not hang.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "endpoint_fixture.h"
#include "session/live_session.h"

using namespace anthro;
using namespace anthro::test;

namespace {

// What the events delivered, written on the session's thread and read after wait().
struct Recorder {
  std::mutex mutex;
  std::map<std::uint32_t, std::string> text;  // by stream id
  std::vector<RequestResult> done;
  std::vector<SessionResult> finished;
  std::atomic<unsigned> text_calls{0};

  LiveSessionEvents events() {
    return {[this](std::uint32_t id, std::string_view t) {
              std::lock_guard lock(mutex);
              text[id] += t;
              ++text_calls;
            },
            [this](const RequestResult& r) {
              std::lock_guard lock(mutex);
              done.push_back(r);
            },
            [this](const SessionResult& r) {
              std::lock_guard lock(mutex);
              finished.push_back(r);
            }};
  }
};

std::unique_ptr<LiveSession> start(const SessionConfig& c, Recorder& rec) {
  auto s = LiveSession::start(c, rec.events());
  if (!s) qFatal("live session: %s", s.error().detail.c_str());
  return std::move(*s);
}

// Destroys the session on another thread; false when that does not end within the guard
// (the thread is then left behind rather than hang the suite).
bool destroy_without_hang(std::unique_ptr<LiveSession> s) {
  std::atomic<bool> done{false};
  std::thread t([&] {
    s.reset();
    done = true;
  });
  if (!QTest::qWaitFor([&] { return done.load(); }, 10000)) {
    t.detach();
    return false;
  }
  t.join();
  return true;
}

void add_transports() {
  QTest::addColumn<QString>("scheme");
  QTest::newRow("lab") << "anthro+lab";
  QTest::newRow("tls") << "anthro";
}

}  // namespace

class TestLiveSession : public QObject {
  Q_OBJECT
 private slots:
  void eventsFollowTheSession_data() { add_transports(); }
  void eventsFollowTheSession() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 20, 2, 30);
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    c.repeat = 3;
    Recorder rec;
    auto s = start(c, rec);
    s->wait();
    QVERIFY(s->finished());
    QCOMPARE(rec.finished.size(), std::size_t{1});
    QCOMPARE(rec.done.size(), std::size_t{3});
    const SessionResult& result = rec.finished[0];
    QVERIFY2(!result.error, result.error ? result.error->c_str() : "");
    QCOMPARE(result.requests.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) {
      const RequestResult& r = rec.done[i];
      QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
      QCOMPARE(r.stream_id, std::uint32_t(1 + 2 * i));
      QCOMPARE(r.figures.tokens, std::uint64_t{30});
      QVERIFY(r.figures.ttft_ms);  // figures are computed before the event
      QCOMPARE(*r.stop_reason, StopReason::EndTurn);
      QVERIFY(!r.text.empty());
      QCOMPARE(rec.text[r.stream_id], r.text);  // exactly, in order
      QCOMPARE(result.requests[i].text, r.text);
    }
    QCOMPARE(rec.text.size(), std::size_t{3});
    s.reset();  // after the end: returns at once, no second on_finished
    QCOMPARE(rec.finished.size(), std::size_t{1});
  }

  // Each token arrival is reported as it comes, with the stream and the time the request's
  // own timeline records for it: anthro-v1 frames and HTTP chunks alike.
  void tokensArriveWithTheirTimes_data() {
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("path");
    QTest::newRow("lab") << "anthro+lab" << "";
    QTest::newRow("http") << "http" << "/v1/messages";
  }
  void tokensArriveWithTheirTimes() {
    QFETCH(QString, scheme);
    QFETCH(QString, path);
    EndpointFixture f({}, 20, 2, 30);
    f.start();
    SessionConfig c = f.session(scheme.toStdString(), path.toStdString());
    c.repeat = 2;
    Recorder rec;
    LiveSessionEvents events = rec.events();
    std::mutex mutex;
    std::vector<std::pair<std::uint32_t, TokenArrival>> arrivals;  // in order
    events.on_token = [&](std::uint32_t stream, const TokenArrival& a) {
      std::lock_guard lock(mutex);
      arrivals.emplace_back(stream, a);
    };
    auto s = LiveSession::start(c, std::move(events));
    QVERIFY(s);
    (*s)->wait();
    QCOMPARE(rec.done.size(), std::size_t{2});
    std::size_t next = 0;
    for (const RequestResult& r : rec.done) {
      QVERIFY(!r.timeline.tokens.empty());
      for (const TokenArrival& recorded : r.timeline.tokens) {
        QVERIFY(next < arrivals.size());
        const auto& [stream, got] = arrivals[next++];
        QCOMPARE(stream, r.stream_id);
        QCOMPARE(got.t, recorded.t);
        QCOMPARE(got.count, recorded.count);
      }
    }
    QCOMPARE(next, arrivals.size());
  }

  void cancelMidStream_data() { add_transports(); }
  void cancelMidStream() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 20, 20, 200);
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    c.repeat = 3;
    Recorder rec;
    auto s = start(c, rec);
    QTRY_VERIFY_WITH_TIMEOUT(rec.text_calls >= 3, 10000);
    s->cancel();
    s->wait();
    QVERIFY(s->finished());
    QCOMPARE(rec.finished.size(), std::size_t{1});
    QCOMPARE(rec.done.size(), std::size_t{1});  // no further request starts
    QCOMPARE(rec.finished[0].requests.size(), std::size_t{1});
    QVERIFY(!rec.finished[0].error);
    const RequestResult& r = rec.done[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QVERIFY(r.stop_reason);
    QCOMPARE(*r.stop_reason, StopReason::Cancelled);
    QVERIFY(r.figures.cancel_latency_ms);
    QVERIFY(*r.figures.cancel_latency_ms >= 0);
    QVERIFY(r.figures.tokens >= 3 && r.figures.tokens < 200);
    QCOMPARE(rec.text[r.stream_id], r.text);
    QCOMPARE(f.endpoint().counters().cancels, std::uint64_t{1});
    QCOMPARE(f.endpoint().counters().requests, std::uint64_t{1});
    s->cancel();  // after the end: nothing happens
    QCOMPARE(rec.finished.size(), std::size_t{1});
  }

  void cancelBeforeTheFirstToken_data() { add_transports(); }
  void cancelBeforeTheFirstToken() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 1000, 20, 200);  // a long TTFT: time to cancel while waiting for it
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    c.repeat = 2;
    Recorder rec;
    auto s = start(c, rec);
    QTRY_VERIFY_WITH_TIMEOUT(f.endpoint().counters().requests == 1, 10000);  // the REQUEST arrived
    s->cancel();
    s->wait();
    QCOMPARE(rec.done.size(), std::size_t{1});
    const RequestResult& r = rec.done[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QVERIFY(r.stop_reason);
    QCOMPARE(*r.stop_reason, StopReason::Cancelled);
    QCOMPARE(r.figures.tokens, std::uint64_t{0});
    QVERIFY(r.figures.cancel_latency_ms);
    QCOMPARE(rec.text_calls.load(), 0u);
    QCOMPARE(f.endpoint().counters().cancels, std::uint64_t{1});
  }

  // A cancel that arrives while the REQUEST is being written: posted when the server's preface
  // is read, it runs after the session began writing the REQUEST, so the CANCEL follows it.
  void cancelWhileTheRequestIsWritten_data() { add_transports(); }
  void cancelWhileTheRequestIsWritten() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 1000, 20, 200);
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    c.tls_extension = false;  // negotiate by the preface, whose answer is read in the session
    c.repeat = 2;
    std::promise<LiveSession*> started;
    std::shared_future<LiveSession*> session = started.get_future().share();
    bool cancelled = false;
    c.on_bytes = [&](bool client_to_server, std::string_view) {
      if (client_to_server || cancelled) return;
      cancelled = true;
      session.get()->cancel();
    };
    Recorder rec;
    auto s = start(c, rec);
    started.set_value(s.get());
    s->wait();
    QVERIFY(cancelled);
    QCOMPARE(rec.done.size(), std::size_t{1});
    const RequestResult& r = rec.done[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QCOMPARE(*r.stop_reason, StopReason::Cancelled);
    QCOMPARE(r.figures.tokens, std::uint64_t{0});
    QVERIFY(r.figures.cancel_latency_ms);
    QCOMPARE(f.endpoint().counters().cancels, std::uint64_t{1});
  }

  // Wherever the cancel lands (connecting, negotiating, writing the REQUEST), the session ends
  // promptly and says so; a request that started is cancelled by a CANCEL.
  void cancelRightAfterStart_data() { add_transports(); }
  void cancelRightAfterStart() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 1000, 20, 200);
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    c.repeat = 2;
    Recorder rec;
    auto s = start(c, rec);
    s->cancel();
    s->wait();
    QCOMPARE(rec.finished.size(), std::size_t{1});
    const SessionResult& result = rec.finished[0];
    QVERIFY(result.requests.size() <= 1);
    if (result.requests.empty()) {
      QCOMPARE(*result.error, std::string("cancelled by the client before the first request"));
    } else {
      QCOMPARE(*result.requests[0].stop_reason, StopReason::Cancelled);
      QCOMPARE(result.requests[0].figures.tokens, std::uint64_t{0});
    }
  }

  void cancelOverHttpClosesTheConnection() {
    EndpointFixture f({}, 20, 20, 200);
    f.start();
    SessionConfig c = f.session("http", "/v1/messages");
    c.repeat = 2;
    Recorder rec;
    auto s = start(c, rec);
    QTRY_VERIFY_WITH_TIMEOUT(rec.text_calls >= 3, 10000);
    s->cancel();
    s->wait();
    QCOMPARE(rec.finished.size(), std::size_t{1});
    QCOMPARE(rec.done.size(), std::size_t{1});
    const RequestResult& r = rec.done[0];
    QVERIFY(r.error);
    QCOMPARE(*r.error, std::string("cancelled by the client (connection closed)"));
    QVERIFY(!r.stop_reason);
    QVERIFY(r.timeline.cancel_written);
    QVERIFY(r.figures.tokens >= 3 && r.figures.tokens < 200);
    QCOMPARE(r.stream_id, std::uint32_t{1});  // the connection's first HTTP/1.1 exchange, as a capture numbers it
    QCOMPARE(rec.text[r.stream_id], r.text);
    QCOMPARE(f.endpoint().counters().http_requests, std::uint64_t{1});
  }

  void destroyingMidStreamDoesNotHang_data() {
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("ignoreCancel");
    QTest::newRow("lab") << "anthro+lab" << "" << false;
    QTest::newRow("tls") << "anthro" << "" << false;
    QTest::newRow("tls, server ignores CANCEL") << "anthro" << "" << true;
    QTest::newRow("http") << "http" << "/v1/messages" << false;
  }
  void destroyingMidStreamDoesNotHang() {
    QFETCH(QString, scheme);
    QFETCH(QString, path);
    QFETCH(bool, ignoreCancel);
    EndpointFixture f(ignoreCancel ? std::vector<std::string>{"ignore-cancel"} : std::vector<std::string>{}, 20, 20,
                      1000);
    f.start();
    SessionConfig c = f.session(scheme.toStdString(), path.toStdString());
    c.repeat = 3;
    Recorder rec;
    auto s = start(c, rec);
    QTRY_VERIFY_WITH_TIMEOUT(rec.text_calls >= 3, 10000);
    QVERIFY2(destroy_without_hang(std::move(s)), "the destructor hung");
    QCOMPARE(rec.finished.size(), std::size_t{1});  // on_finished ran before the destructor returned
    QCOMPARE(rec.done.size(), std::size_t{1});
    QVERIFY(rec.done[0].figures.tokens < 1000);
  }

  void destroyingBeforeTheFirstTokenDoesNotHang_data() { add_transports(); }
  void destroyingBeforeTheFirstTokenDoesNotHang() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 5000, 20, 200);
    f.start();
    SessionConfig c = f.session(scheme.toStdString());
    Recorder rec;
    auto s = start(c, rec);
    QVERIFY2(destroy_without_hang(std::move(s)), "the destructor hung right after start");
    QCOMPARE(rec.finished.size(), std::size_t{1});
    s = start(c, rec);
    QTRY_VERIFY_WITH_TIMEOUT(f.endpoint().counters().requests >= 1, 10000);
    QVERIFY2(destroy_without_hang(std::move(s)), "the destructor hung during the TTFT");
    QCOMPARE(rec.finished.size(), std::size_t{2});
  }

  void badStartsAreErrors() {
    SessionConfig c;
    c.target = "anthro://no-port-here";
    auto s = LiveSession::start(c, {});
    QVERIFY(!s);
    QVERIFY2(s.error().detail.find("anthro://no-port-here") != std::string::npos, s.error().detail.c_str());
    c.target = "gopher://example.com:70";
    s = LiveSession::start(c, {});
    QVERIFY(!s);
    QVERIFY2(s.error().detail.find("gopher://example.com:70") != std::string::npos, s.error().detail.c_str());
    c.target = "anthro://127.0.0.1:1";
    c.ca_file = "/nonexistent/ca.pem";
    s = LiveSession::start(c, {});
    QVERIFY(!s);
    QVERIFY2(s.error().detail.find("/nonexistent/ca.pem") != std::string::npos, s.error().detail.c_str());
  }

  // A connection failure is no start error: it arrives in on_finished.
  void connectionFailuresArriveInOnFinished() {
    SessionConfig c;
    c.target = "anthro+lab://127.0.0.1:1";
    Recorder rec;
    auto s = start(c, rec);
    s->wait();
    QCOMPARE(rec.finished.size(), std::size_t{1});
    QVERIFY(rec.finished[0].error);
    QVERIFY(rec.done.empty());
  }
};

QTEST_GUILESS_MAIN(TestLiveSession)
#include "test_live_session.moc"
