// Seed 004's session affinity as the embedded endpoint emulates it: the context slots alone
// (sessions, collections, 409, 400, the TTFT they cost), then the endpoint's /v1/messages over
// real sockets through curl — the session headers, the response's Context-Hash, the token
// counts in chunk extensions and the trailer, 409 with a new id after a collection, 400 with
// the expected hash, and the /metrics gauges.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "affinity/context_hash.h"
#include "affinity/session_slots.h"
#include "affinity_curl.h"
#include "endpoint_fixture.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using nlohmann::ordered_json;

namespace {

SessionSlots counted_slots(std::size_t count) {
  AffinityConfig c;
  c.slot_count = count;
  c.idle_s = 10;
  c.cold_load_ms = 15;
  c.gc_pause_ms = 200;
  auto n = std::make_shared<int>(0);
  return SessionSlots(c, [n] { return "s" + std::to_string(++*n); });
}

std::uint64_t gauge(const std::string& metrics, const std::string& name) {
  auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) qFatal("no %s in /metrics", name.c_str());
  return std::stoull(metrics.substr(at + name.size() + 2));
}

}  // namespace

class TestSessionAffinity : public QObject {
  Q_OBJECT
 private slots:
  void slotsSessionsCollectionsAndVerdicts() {
    SessionSlots s = counted_slots(2);
    auto first = s.admit(std::nullopt, std::nullopt, "h1", false, 0);
    QCOMPARE(first.verdict, AffinityVerdict::Serve);
    QCOMPARE(first.session_id, std::string("s1"));
    QVERIFY(first.new_session);
    QCOMPARE(first.extra_ttft_ms, 15.0);  // its slot loaded

    auto wrong = s.admit(std::string("s1"), std::string("bad"), "h2", true, 1);
    QCOMPARE(wrong.verdict, AffinityVerdict::HashMismatch);
    QCOMPARE(wrong.expected_hash, std::string("h2"));
    auto right = s.admit(std::string("s1"), std::string("h2"), "h2", true, 1);
    QCOMPARE(right.verdict, AffinityVerdict::Serve);
    QCOMPARE(right.session_id, std::string("s1"));
    QCOMPARE(right.extra_ttft_ms, 0.0);
    QVERIFY(!right.new_session);
    // A header that was dropped is not a mismatch: the request cannot be checked.
    QCOMPARE(s.admit(std::string("s1"), std::nullopt, "h3", true, 1).verdict, AffinityVerdict::Serve);

    // A first request under the client's own id keeps it.
    auto mine = s.admit(std::string("mine"), std::nullopt, "h", false, 2);
    QCOMPARE(mine.session_id, std::string("mine"));
    QCOMPARE(s.used(), std::size_t{2});
    // A third session needs a slot: the least recently used (s1) is collected, and this
    // request pays for it.
    auto third = s.admit(std::nullopt, std::nullopt, "h", false, 3);
    QCOMPARE(third.extra_ttft_ms, 15.0 + 200.0);
    QCOMPARE(s.gc_count(), std::uint64_t{1});
    QCOMPARE(s.used(), std::size_t{2});
    // s1 comes back with its history: its slot is gone, 409 with a new id bound to a slot.
    auto moved = s.admit(std::string("s1"), std::string("h4"), "h4", true, 4);
    QCOMPARE(moved.verdict, AffinityVerdict::Migrated);
    QCOMPARE(moved.session_id, std::string("s3"));
    auto resent = s.admit(std::string("s3"), std::string("h4"), "h4", true, 4);
    QCOMPARE(resent.verdict, AffinityVerdict::Serve);
    QCOMPARE(resent.session_id, std::string("s3"));
    // Idle beyond idle_s: every session collected, each paid by the next request.
    auto later = s.admit(std::nullopt, std::nullopt, "h", false, 100);
    QCOMPARE(later.extra_ttft_ms, 2 * 200.0 + 15.0);
    QCOMPARE(s.gc_count(), std::uint64_t{2 + 2});
    QCOMPARE(s.used(), std::size_t{1});
    s.evict(later.session_id);
    QCOMPARE(s.used(), std::size_t{0});
  }

  void uuidsAreVersion4() {
    QRegularExpression v4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    std::set<std::string> seen;
    for (int i = 0; i < 100; ++i) {
      std::string id = uuid_v4();
      QVERIFY2(v4.match(QString::fromStdString(id)).hasMatch(), id.c_str());
      seen.insert(id);
    }
    QCOMPARE(seen.size(), std::size_t{100});
  }

  void endpointSpeaksTheHeaders() {
    EndpointFixture f({}, 5, 1, 4);
    f.config().affinity.slot_count = 1;
    f.start();
    const std::string url = f.endpoint().url("http") + "/v1/messages";
    ordered_json messages = ordered_json::array({{{"role", "user"}, {"content", "hi 你好"}}});

    // A first, streamed request: a new session, the response's hash of the conversation with
    // the reply appended, one token per chunk and the total in the trailer.
    CurlReply first = post(url, request_body(messages, true), {});
    QCOMPARE(first.status, 200);
    const std::string session = first.headers["x-anthropic-session-id"];
    QVERIFY2(!session.empty(), first.body.c_str());
    QCOMPARE(first.headers["trailer"], std::string("X-Anthropic-Token-Count"));
    Chunks chunks = chunks_of(first.body);
    std::uint64_t counted = 0;
    for (auto n : chunks.counts) counted += n;
    QCOMPARE(counted, std::uint64_t{4});
    QCOMPARE(chunks.trailers["X-Anthropic-Token-Count"], std::string("4"));
    const std::string reply = streamed_text(chunks);
    QCOMPARE(first.headers["x-anthropic-context-hash"], response_context_hash(messages, reply));

    // The next turn with the hash the client computes: served on the same session.
    messages.push_back({{"role", "assistant"}, {"content", reply}});
    messages.push_back({{"role", "user"}, {"content", "more"}});
    const std::string hash = context_hash(messages);
    CurlReply second = post(url, request_body(messages, false),
                            {"X-Anthropic-Session-ID: " + session, "X-Anthropic-Context-Hash: " + hash});
    QCOMPARE(second.status, 200);
    QCOMPARE(second.headers["x-anthropic-session-id"], session);
    auto whole = nlohmann::json::parse(second.body);
    std::string text = whole["content"][0]["text"].get<std::string>();
    ordered_json after = messages;
    after.push_back({{"role", "assistant"}, {"content", text}});
    QCOMPARE(second.headers["x-anthropic-context-hash"], context_hash(after));

    // Python's default serialisation of a non-ASCII conversation: 400 with the server's hash.
    CurlReply mismatch = post(url, request_body(messages, false),
                              {"X-Anthropic-Session-ID: " + session,
                               "X-Anthropic-Context-Hash: " + context_hash(messages, HashSerialisation::PythonDefault)});
    QCOMPARE(mismatch.status, 400);
    QCOMPARE(mismatch.headers["x-anthropic-expected-hash"], hash);
    QCOMPARE(nlohmann::json::parse(mismatch.body)["error"]["type"].get<std::string>(), std::string("invalid_context_hash"));

    // Another client takes the only slot: the first session is collected, so its next turn is
    // 409 with a new id, and the history resent under that id is served.
    QCOMPARE(post(url, request_body(ordered_json::array({{{"role", "user"}, {"content", "other"}}}), false), {}).status, 200);
    CurlReply moved = post(url, request_body(messages, false), {"X-Anthropic-Session-ID: " + session, "X-Anthropic-Context-Hash: " + hash});
    QCOMPARE(moved.status, 409);
    QCOMPARE(nlohmann::json::parse(moved.body)["error"]["type"].get<std::string>(), std::string("session_migrated"));
    const std::string renamed = moved.headers["x-anthropic-new-session-id"];
    QVERIFY(!renamed.empty() && renamed != session);
    CurlReply resent = post(url, request_body(messages, false), {"X-Anthropic-Session-ID: " + renamed, "X-Anthropic-Context-Hash: " + hash});
    QCOMPARE(resent.status, 200);
    QCOMPARE(resent.headers["x-anthropic-session-id"], renamed);

    const std::string metrics = f.endpoint().metrics_text();
    QCOMPARE(gauge(metrics, "anthropic_gpu_context_slots_used"), std::uint64_t{1});
    QCOMPARE(gauge(metrics, "anthropic_gpu_context_gc_count"), std::uint64_t{2});  // the first session, then "other"
  }

  void offByDefault() {
    EndpointFixture f({}, 5, 1, 4);
    f.start();
    CurlReply r = post(f.endpoint().url("http") + "/v1/messages",
                       request_body(ordered_json::array({{{"role", "user"}, {"content", "hi"}}}), true),
                       {"X-Anthropic-Context-Hash: 0000000000000000"});
    QCOMPARE(r.status, 200);
    QVERIFY(!r.headers.count("x-anthropic-session-id") && !r.headers.count("trailer"));
    QVERIFY(chunks_of(r.body).counts.front() == UINT64_MAX);  // no extension
    QVERIFY(f.endpoint().metrics_text().find("anthropic_gpu_context") == std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestSessionAffinity)
#include "test_session_affinity.moc"
