// Session affinity as the embedded endpoint emulates it: the context slots alone
// (sessions, collections, 409, 400, the TTFT they cost), then the endpoint's /v1/messages over
// real sockets through curl — the session headers, the response's Context-Hash, the token
// counts in chunk extensions and the trailer, 409 with a new id after a collection, 400 with
// the expected hash, and the /metrics gauges.
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <set>

#include "affinity/context_hash.h"
#include "affinity/conversation.h"
#include "affinity/format.h"
#include "affinity/serve.h"
#include "affinity/session_slots.h"
#include "affinity_curl.h"
#include "endpoint/prometheus.h"
#include "net/http_io.h"
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

// A request record's session-affinity part, or null.
const AffinityExchange* affinity_of(const RequestResult& q) {
  return q.extensions.find<AffinityExchange>(session_affinity_id());
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
    // A session's request without its hash, or with an empty one, is a mismatch: an empty value
    // never turns the check off (the profile's rule).
    for (std::optional<std::string> missing : {std::optional<std::string>(), std::optional<std::string>("")}) {
      auto unchecked = s.admit(std::string("s1"), missing, "h3", true, 1);
      QCOMPARE(unchecked.verdict, AffinityVerdict::HashMismatch);
      QCOMPARE(unchecked.expected_hash, std::string("h3"));
    }

    // A first request under the client's own id keeps it.
    auto mine = s.admit(std::string("mine"), std::string("h"), "h", false, 2);
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
    emulate_affinity(f.config()).slot_count = 1;
    f.start();
    const std::string url = f.endpoint().url("http") + "/v1/messages";
    ordered_json messages = ordered_json::array({{{"role", "user"}, {"content", "hi 你好"}}});

    // A first, streamed request: a new session, the response's hash of the conversation with
    // the reply appended, one token per chunk and the total in the trailer.
    // A request without any session field takes the old, sessionless path.
    CurlReply plain = post(url, request_body(messages, false), {});
    QCOMPARE(plain.status, 200);
    QVERIFY(!plain.headers.count("x-anthropic-session-id"));
    QCOMPARE(gauge(f.endpoint().metrics_text(), "anthropic_gpu_context_slots_used"), std::uint64_t{0});
    // (curl's "NAME;" sends the field with an empty value: a first request has no hash yet.)
    CurlReply first = post(url, request_body(messages, true), {"X-Anthropic-Context-Hash;"});
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

    // The session's id with an empty hash: 400 with the server's hash, never a skipped check.
    CurlReply empty = post(url, request_body(messages, false), {"X-Anthropic-Session-ID: " + session, "X-Anthropic-Context-Hash;"});
    QCOMPARE(empty.status, 400);
    QCOMPARE(empty.headers["x-anthropic-expected-hash"], hash);

    // Python's default serialisation of a non-ASCII conversation: 400 with the server's hash.
    CurlReply mismatch = post(url, request_body(messages, false),
                              {"X-Anthropic-Session-ID: " + session,
                               "X-Anthropic-Context-Hash: " + context_hash(messages, HashSerialisation::PythonDefault)});
    QCOMPARE(mismatch.status, 400);
    QCOMPARE(mismatch.headers["x-anthropic-expected-hash"], hash);
    QCOMPARE(nlohmann::json::parse(mismatch.body)["error"]["type"].get<std::string>(), std::string("invalid_context_hash"));

    // Another client takes the only slot: the first session is collected, so its next turn is
    // 409 with a new id, and the history resent under that id is served.
    QCOMPARE(post(url, request_body(ordered_json::array({{{"role", "user"}, {"content", "other"}}}), false),
                  {"X-Anthropic-Context-Hash;"}).status, 200);
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

  // The response reader keeps each chunk's extensions (summed by name) and tells trailer fields
  // from header fields; hostile extensions and values are not counted.
  void readerKeepsChunkExtensionsAndTrailers() {
    net::HttpResponseReader r;
    std::string head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: X-Anthropic-Token-Count\r\n"
                       "x-anthropic-session-id: s1\r\n\r\n";
    std::string body = "3;x-anthropic-token-count=1\r\nabc\r\n2;X-Anthropic-Token-Count=2;other=x\r\nde\r\n"
                       "1;x-anthropic-token-count=nope\r\nf\r\n0\r\nX-Anthropic-Token-Count: 3\r\n\r\n";
    std::string all = head + body;
    for (char ch : all) QVERIFY(r.feed(std::string_view(&ch, 1)));  // byte by byte
    QVERIFY(r.done());
    std::uint64_t counted = 0;
    std::size_t numbers = 0;
    for (const auto& chunk : r.take_chunk_extensions())
      for (const auto& [name, value] : chunk)
        if (auto n = name == "x-anthropic-token-count" ? net::parse_decimal(value) : std::nullopt) {
          counted += *n;
          ++numbers;
        }
    QCOMPARE(counted, std::uint64_t{3});
    QCOMPARE(numbers, std::size_t{2});  // "nope" is not a count
    QCOMPARE(r.trailers(), (net::HttpFields{{"x-anthropic-token-count", "3"}}));  // the session id is a header
    QCOMPARE(r.take_body(), std::string("abcdef"));
    net::HttpResponseReader plain;
    QVERIFY(plain.feed("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"));
    QVERIFY(plain.take_chunk_extensions().empty());
    QVERIFY(plain.trailers().empty());
    QCOMPARE(prometheus_sample("# HELP a x\na_total 3\na 7.5\nab 1\n", "a"), std::optional<double>(7.5));
    QCOMPARE(prometheus_sample("a_total 3\n", "a"), std::optional<double>());
  }

  // The client's conversation: history sent whole, the hash of the messages as sent, a 409
  // followed under the new id (or not, with keep_session_id), a new conversation after `turns`.
  void conversationFollowsTheProtocol() {
    AffinityConversation c(AffinityClientConfig{2, false, std::nullopt});
    auto body_of = [](const std::vector<ChatMessage>& m) {
      ordered_json a = ordered_json::array();
      for (const auto& x : m) a.push_back({{"role", x.role}, {"content", x.content}});
      return ordered_json{{"model", "m"}, {"messages", a}}.dump();
    };
    AffinityExchange x1;
    auto m1 = c.messages({{"user", "一"}});
    auto h1 = c.headers(body_of(m1), x1);
    QCOMPARE(h1.size(), std::size_t{1});  // no session yet; an empty hash
    QCOMPARE(x1.context_hash_sent, std::optional<std::string>(""));
    x1.session_id = "A";
    c.answered(200, "reply one", x1);
    AffinityExchange x2;
    auto m2 = c.messages({{"user", "二"}});
    QCOMPARE(m2.size(), std::size_t{3});
    QCOMPARE(m2[1].content, std::string("reply one"));
    auto h2 = c.headers(body_of(m2), x2);
    QCOMPARE(x2.session_id_sent, std::optional<std::string>("A"));
    ordered_json sent = ordered_json::parse(body_of(m2))["messages"];
    QCOMPARE(x2.context_hash_sent, std::optional<std::string>(context_hash(sent)));
    x2.error_type = "session_migrated";
    x2.new_session_id = "B";
    c.answered(409, "", x2);
    QVERIFY(c.resend_pending());
    AffinityExchange x3;
    auto m3 = c.messages({{"user", "ignored"}});
    QCOMPARE(m3, m2);  // the refused request again
    c.headers(body_of(m3), x3);
    QCOMPARE(x3.session_id_sent, std::optional<std::string>("B"));
    x3.session_id = "B";
    c.answered(200, "reply two", x3);
    QVERIFY(!c.resend_pending());
    AffinityExchange x4;
    auto m4 = c.messages({{"user", "三"}});  // two turns done: a new conversation
    QCOMPARE(m4.size(), std::size_t{1});
    c.headers(body_of(m4), x4);
    QCOMPARE(x4.session_id_sent, std::optional<std::string>());

    AffinityConversation stubborn(AffinityClientConfig{4, true, std::nullopt});
    AffinityExchange y1, y2, y3;
    stubborn.headers(body_of(stubborn.messages({{"user", "a"}})), y1);
    y1.session_id = "A";
    stubborn.answered(200, "r", y1);
    stubborn.headers(body_of(stubborn.messages({{"user", "b"}})), y2);
    y2.error_type = "session_migrated";
    y2.new_session_id = "B";
    stubborn.answered(409, "", y2);
    stubborn.headers(body_of(stubborn.messages({{"user", "c"}})), y3);
    QCOMPARE(y3.session_id_sent, std::optional<std::string>("A"));  // the old id again: the 409 loop
  }

  // The session client against the emulating endpoint: each turn on the same session, the
  // reply's hash and token counts checked; with every session migrated, each 409 is followed
  // by the same request under the new id, which is served.
  void clientHoldsTheConversation() {
    for (bool migrate : {false, true}) {
      EndpointFixture f(migrate ? std::vector<std::string>{"session-migrate=1"} : std::vector<std::string>{}, 5, 1, 6);
      emulate_affinity(f.config()).slot_count = 64;
      f.start();
      SessionConfig s = f.session("http", "/v1/messages");
      use_session_affinity(s);
      s.repeat = 3;
      SessionResult r = EndpointFixture::run(s);
      std::vector<const RequestResult*> served;
      for (const auto& q : r.requests) {
        QVERIFY(affinity_of(q));
        if (q.error_code) {
          QVERIFY(migrate);
          QCOMPARE(*q.error_code, 409);
          QCOMPARE(affinity_of(q)->error_type, std::optional<std::string>("session_migrated"));
          QVERIFY(affinity_of(q)->new_session_id.has_value());
          continue;
        }
        served.push_back(&q);
        QCOMPARE(affinity_of(q)->context_hash_agrees, std::optional<bool>(true));
        QCOMPARE(affinity_of(q)->chunk_token_count, std::optional<std::uint64_t>(q.figures.tokens));
        QCOMPARE(affinity_of(q)->trailer_token_count, std::optional<std::uint64_t>(q.figures.tokens));
      }
      QCOMPARE(served.size(), std::size_t{3});
      QVERIFY(!affinity_of(*served[0])->session_id_sent);
      for (std::size_t i = 1; i < served.size(); ++i) {
        QVERIFY(affinity_of(*served[i])->session_id_sent.has_value());
        QCOMPARE(*affinity_of(*served[i])->session_id_sent, *affinity_of(*served[i])->session_id);
        if (!migrate) QCOMPARE(*affinity_of(*served[i])->session_id, *affinity_of(*served[0])->session_id);
      }
      if (migrate) QCOMPARE(r.requests.size(), std::size_t{5});  // turns 2 and 3 each migrated once
    }
  }
};

QTEST_GUILESS_MAIN(TestSessionAffinity)
#include "test_session_affinity.moc"
