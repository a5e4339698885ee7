// The token stream as the embedded endpoint serves it (endpoint --token-stream), met
// through curl over a real socket: the reply's token ids, one chunk per token, decode to the
// text the JSON API gives for the same request; GET /v1/vocab names them; the header table's
// 400s and 401s; the ts-degraded fault's marker with its header or trailer; 429 Retry-After in
// milliseconds (quota above 1000, GPU memory at or below); the keep-alive request; off by default.
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "affinity_curl.h"
#include "capture/analysis.h"
#include "endpoint_fixture.h"
#include "lo_capture.h"
#include "tokenstream/admission.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;

namespace {

const char* kConversation = "{\"model\":\"m\",\"max_tokens\":12,\"messages\":[{\"role\":\"user\",\"content\":\"Why do ids beat JSON?\"}]}";

std::vector<std::string> token_headers(const std::string& context_id = "34359738373") {
  return {"Content-Type: application/vnd.claude.token-stream", "X-Claude-Token-Alignment: 4",
          "X-Claude-Context-ID: " + context_id};
}

struct Fixture {
  explicit Fixture(std::vector<std::string> faults = {}, bool token_stream = true) : f(std::move(faults)) {
    if (token_stream) serve_token_stream(f.config());
    f.config().model.tokens = 12;
    f.start();
  }
  std::string url(const char* path) const { return f.endpoint().url("http") + path; }
  mutable EndpointFixture f;  // its accessors are not const
};

TokenStreamVocabulary vocabulary_of(const Fixture& fx) {
  auto reply = curl_request(fx.url("/v1/vocab"), "", {});
  if (reply.status != 200) qFatal("GET /v1/vocab: %d", reply.status);
  auto v = TokenStreamVocabulary::from_json(reply.body);
  if (!v) qFatal("vocabulary: %s", v.error().detail.c_str());
  return *v;
}

// The JSON API's text for the same conversation, the reference the ids must spell.
std::string json_api_text(const Fixture& fx) {
  auto reply = curl_request(fx.url("/v1/messages"), kConversation,
                            {"Content-Type: application/json", "anthropic-version: 2023-06-01"});
  if (reply.status != 200) qFatal("JSON API: %d %s", reply.status, reply.body.c_str());
  return nlohmann::json::parse(reply.body)["content"][0]["text"].get<std::string>();
}

std::string error_message(const CurlReply& r) {
  auto doc = nlohmann::json::parse(r.body, nullptr, false);
  return doc.is_object() ? doc["error"]["message"].get<std::string>() : r.body;
}

}  // namespace

class TestTokenStreamEndpoint : public QObject {
  Q_OBJECT
 private slots:
  void streamedIdsSpellTheJsonApisText() {
    Fixture fx;
    auto reply = curl_request(fx.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.headers["content-type"], std::string(kTokenStreamMediaType));
    QCOMPARE(reply.headers["transfer-encoding"], std::string("chunked"));
    QVERIFY(!reply.headers.count("x-claude-backpressure"));
    Chunks chunks = chunks_of(reply.body);
    QCOMPARE(chunks.data.size(), std::size_t{12});  // one token, four bytes, per chunk
    std::string body;
    for (const auto& c : chunks.data) {
      QCOMPARE(c.size(), kTokenStreamAlignment);
      body += c;
    }
    auto decoded = decode_token_stream_body(as_bytes(body));
    QVERIFY2(decoded.ok(), decoded ? "" : decoded.error().detail.c_str());
    QVERIFY(!decoded->degraded_at);
    QCOMPARE(decoded->padding, std::size_t{0});
    QCOMPARE(token_stream_text(decoded->tokens, vocabulary_of(fx)), json_api_text(fx));
  }

  void unstreamedReplyHasTheSameIds() {
    Fixture fx;
    auto streamed = curl_request(fx.url("/v1/messages"), kConversation, token_headers());
    auto headers = token_headers();
    headers.push_back("X-Claude-Streaming: false");
    auto whole = curl_request(fx.url("/v1/messages"), kConversation, headers);
    QCOMPARE(whole.status, 200);
    QVERIFY(!whole.headers.count("transfer-encoding"));
    QCOMPARE(whole.headers["content-length"], std::to_string(whole.body.size()));
    std::string streamed_body;
    for (const auto& c : chunks_of(streamed.body).data) streamed_body += c;
    QCOMPARE(whole.body.size(), std::size_t{48});
    QCOMPARE(whole.body, streamed_body);
  }

  void headerTableRefusals() {
    Fixture fx;
    struct Case {
      std::vector<std::string> headers;
      int status;
      const char* names;
    };
    const std::string type = "Content-Type: application/vnd.claude.token-stream";
    const Case cases[] = {
        {{type, "X-Claude-Context-ID: 5"}, 400, "X-Claude-Token-Alignment"},
        {{type, "X-Claude-Token-Alignment: 8", "X-Claude-Context-ID: 5"}, 400, "X-Claude-Token-Alignment"},
        {{type, "X-Claude-Token-Alignment: 4"}, 400, "X-Claude-Context-ID"},
        {{type, "X-Claude-Token-Alignment: 4", "X-Claude-Context-ID: 34359738373n"}, 400, "X-Claude-Context-ID"},
        {{type, "X-Claude-Token-Alignment: 4", "X-Claude-Context-ID: -1"}, 400, "X-Claude-Context-ID"},
        {{type, "X-Claude-Token-Alignment: 4", "X-Claude-Context-ID: 0x10"}, 400, "X-Claude-Context-ID"},
        {{type, "X-Claude-Token-Alignment: 4", "X-Claude-Context-ID: 34359738373", "X-Claude-Tenant-ID: 9"}, 401,
         "X-Claude-Tenant-ID"},
    };
    for (const auto& c : cases) {
      auto reply = curl_request(fx.url("/v1/messages"), kConversation, c.headers);
      QCOMPARE(reply.status, c.status);
      QVERIFY2(error_message(reply).find(c.names) != std::string::npos, error_message(reply).c_str());
    }
  }

  void keysTenantMustOwnTheContext() {
    EndpointFixture f;
    serve_token_stream(f.config());
    serve_token_stream(f.config()).tenant = 8;
    f.start();
    std::string url = f.endpoint().url("http") + "/v1/messages";
    QCOMPARE(curl_request(url, kConversation, token_headers("34359738373")).status, 200);  // tenant 8
    auto other = curl_request(url, kConversation, token_headers("38654705669"));          // tenant 9
    QCOMPARE(other.status, 401);
    QVERIFY2(error_message(other).find("API key") != std::string::npos, error_message(other).c_str());
  }

  void degradedFaultMarksTheBody() {
    Fixture fx({"ts-degraded=1"});
    auto vocabulary = vocabulary_of(fx);
    auto reply = curl_request(fx.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(reply.status, 200);
    Chunks chunks = chunks_of(reply.body);
    std::string body;
    for (const auto& c : chunks.data) body += c;
    auto decoded = decode_token_stream_body(as_bytes(body));
    QVERIFY(decoded.ok());
    QVERIFY(decoded->degraded_at);
    QCOMPARE(std::count(decoded->tokens.begin(), decoded->tokens.end(), kTokenStreamDegraded), 1L);
    // The marker is announced where the spec says: in the head when the reply starts degraded,
    // else as a trailer the head declared.
    if (*decoded->degraded_at == 0) {
      QCOMPARE(reply.headers["x-claude-backpressure"], std::string("degraded"));
      QVERIFY(!chunks.trailers.count("X-Claude-Backpressure"));
    } else {
      QVERIFY(!reply.headers.count("x-claude-backpressure"));
      QCOMPARE(reply.headers["trailer"], std::string("X-Claude-Backpressure"));
      QCOMPARE(chunks.trailers["X-Claude-Backpressure"], std::string("degraded"));
    }
    // Without the marker the ids spell the same text as the undegraded JSON API.
    std::vector<std::uint32_t> ids;
    for (auto id : decoded->tokens)
      if (id != kTokenStreamDegraded) ids.push_back(id);
    QCOMPARE(token_stream_text(ids, vocabulary), json_api_text(fx));
  }

  // Token stream spec §4.4: Retry-After in milliseconds, above 1000 the tenant's quota.
  void retryAfterInMilliseconds() {
    Fixture quota({"ts-quota=1"});
    auto spent = curl_request(quota.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(spent.status, 429);
    auto ms = parse_token_stream_retry_after(spent.headers["retry-after"]);
    QVERIFY2(ms, spent.headers["retry-after"].c_str());
    QVERIFY(ms->milliseconds > 1000 && ms->milliseconds <= 5000);
    QCOMPARE(ms->cause, TokenStreamRetryCause::Quota);
    // The JSON API is not the token stream's: the fault leaves it alone.
    QVERIFY(!json_api_text(quota).empty());

    Fixture memory({"overload=1"});
    auto full = curl_request(memory.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(full.status, 429);
    auto short_ms = parse_token_stream_retry_after(full.headers["retry-after"]);
    QVERIFY(short_ms);
    QVERIFY(short_ms->milliseconds >= 50 && short_ms->milliseconds <= 500);  // not seconds
    QCOMPARE(short_ms->cause, TokenStreamRetryCause::GpuMemoryFull);
  }

  void emptyConversationOnlyKeepsTheContext() {
    Fixture fx;
    auto reply = curl_request(fx.url("/v1/messages"), "{\"model\":\"m\",\"max_tokens\":4,\"messages\":[]}", token_headers());
    QCOMPARE(reply.status, 200);
    QVERIFY(reply.body.empty());
  }

  // The session client (session --token-stream): ids named through GET /v1/vocab, each a
  // token on the request's timeline, the same text as the JSON API's.
  void liveClientReadsIds() {
    Fixture fx;
    SessionConfig s = fx.f.session("http", "/v1/messages");
    s.messages = {{"user", "Why do ids beat JSON?"}};
    s.model = "m";
    s.max_tokens = 12;
    use_token_stream(s);
    s.repeat = 2;
    SessionResult result = EndpointFixture::run(s);
    QVERIFY2(!result.error, result.error.value_or("").c_str());
    QVERIFY(result.warnings.empty());
    QCOMPARE(result.requests.size(), std::size_t{2});
    for (const auto& r : result.requests) {
      QCOMPARE(r.end, RequestEnd::Response);
      QCOMPARE(r.text, json_api_text(fx));
      QCOMPARE(r.figures.tokens, std::uint64_t{12});
      QVERIFY(r.figures.ttft_ms && *r.figures.ttft_ms > 0);
      QVERIFY(token_stream_of(r));
      QCOMPARE(token_stream_of(r)->ids, std::uint64_t{12});
      QCOMPARE(token_stream_of(r)->context_id, std::string("4294967297"));
      QVERIFY(!token_stream_of(r)->degraded_at && !token_stream_of(r)->refused && !token_stream_of(r)->backpressure_announced);
    }
  }

  void liveClientSeesDegradedAndRefusals() {
    Fixture degraded({"ts-degraded=1"});
    SessionConfig s = degraded.f.session("http", "/v1/messages");
    use_token_stream(s);
    SessionResult d = EndpointFixture::run(s);
    QCOMPARE(d.requests.size(), std::size_t{1});
    QVERIFY(token_stream_of(d.requests[0])->degraded_at);
    QVERIFY(token_stream_of(d.requests[0])->backpressure_announced);
    QCOMPARE(d.requests[0].figures.tokens, token_stream_of(d.requests[0])->ids - 1);  // the marker is no token

    use_token_stream(s).context_id = "4294967297n";  // a BigInt's toString() kept its suffix
    SessionResult bad = EndpointFixture::run(s);
    QCOMPARE(bad.requests[0].end, RequestEnd::Error);
    QCOMPARE(bad.requests[0].error_code, std::optional<int>(400));

    Fixture quota({"ts-quota=1"});
    SessionConfig q = quota.f.session("http", "/v1/messages");
    use_token_stream(q);
    SessionResult spent = EndpointFixture::run(q);
    QCOMPARE(spent.requests[0].error_code, std::optional<int>(429));
    QVERIFY(token_stream_of(spent.requests[0])->retry_after_ms > 1000u);
    QCOMPARE(spent.requests[0].retry_after_ms, std::optional<std::uint32_t>(*token_stream_of(spent.requests[0])->retry_after_ms));
  }

  void liveClientWithoutAVocabularyShowsIds() {
    Fixture fx({}, false);
    SessionConfig s = fx.f.session("http", "/v1/messages");
    use_token_stream(s);
    SessionResult r = EndpointFixture::run(s);
    QCOMPARE(r.warnings.size(), std::size_t{1});
    QVERIFY2(r.warnings[0].find("404") != std::string::npos, r.warnings[0].c_str());
    QCOMPARE(r.requests[0].error_code, std::optional<int>(415));
  }

  // The same session captured on lo and analysed: each request's record from the capture (ids
  // named through the connection's own GET /v1/vocab, which is no request itself) agrees with
  // the live one.
  void captureAgreesWithTheLiveRecords() {
    Fixture fx({"ts-degraded=0.5"});
    LoCapture capture(fx.f.endpoint().url("http"), fx.f.path("ts.pcapng"), fx.f.path("ts.keylog"));
    QVERIFY2(capture.start(), capture.error().c_str());
    SessionConfig s = fx.f.session("http", "/v1/messages");
    use_token_stream(s);
    use_token_stream(s).text_decoding = true;  // each reply is followed by the client's report
    s.repeat = 6;
    SessionResult live = EndpointFixture::run(s);
    QVERIFY(capture.stop().ok());
    auto analysis = analyze_capture(capture.config().output, {});
    QVERIFY2(analysis.ok(), analysis ? "" : analysis.error().detail.c_str());
    QCOMPARE(analysis->connections.size(), std::size_t{1});
    const auto& streams = analysis->connections[0].streams;
    QCOMPARE(streams.size(), live.requests.size());
    int degraded = 0;
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const RequestResult& seen = streams[i];
      const RequestResult& lived = live.requests[i];
      QCOMPARE(seen.end, RequestEnd::Response);
      QCOMPARE(CaptureAnalysis::text(analysis->connections[0], i), lived.text);
      QCOMPARE(seen.figures.tokens, lived.figures.tokens);
      QVERIFY(token_stream_of(seen) && token_stream_of(lived));
      QCOMPARE(token_stream_of(seen)->ids, token_stream_of(lived)->ids);
      QCOMPARE(token_stream_of(seen)->degraded_at, token_stream_of(lived)->degraded_at);
      QCOMPARE(token_stream_of(seen)->backpressure_announced, token_stream_of(lived)->backpressure_announced);
      QCOMPARE(token_stream_of(seen)->context_id, std::string("4294967297"));
      QVERIFY(token_stream_of(lived)->text_decoding_reported);
      QVERIFY(token_stream_of(seen)->text_decoding_reported);
      QCOMPARE(token_stream_of(seen)->request_fault, TokenStreamField::None);
      degraded += token_stream_of(seen)->degraded_at.has_value();
    }
    QVERIFY(degraded > 0 && degraded < 6);  // both kinds of reply were compared
  }

  // Token stream spec §4.4: a failed node's 503 says X-Claude-Failover: true; the client keeps its
  // connection and does not retry.
  void failoverIs503AndKeepsTheConnection() {
    Fixture fx({"ts-failover=1"});
    auto reply = curl_request(fx.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(reply.status, 503);
    QCOMPARE(reply.headers["x-claude-failover"], std::string("true"));
    SessionConfig s = fx.f.session("http", "/v1/messages");
    use_token_stream(s);
    s.repeat = 3;
    const std::uint64_t before = fx.f.endpoint().counters().connections;
    SessionResult r = EndpointFixture::run(s);
    QCOMPARE(r.requests.size(), std::size_t{3});
    for (const auto& q : r.requests) {
      QCOMPARE(q.error_code, std::optional<int>(503));
      QVERIFY(token_stream_of(q) && token_stream_of(q)->failover);
    }
    QCOMPARE(fx.f.endpoint().counters().connections - before, std::uint64_t{1});
  }

  // The client fault of the token stream spec §5.1 row 1: the alignment header left out or wrong is
  // a 400, and the record names the header.
  void alignmentHeaderFault() {
    Fixture fx;
    SessionConfig s = fx.f.session("http", "/v1/messages");
    use_token_stream(s);
    for (std::optional<std::string> alignment : {std::optional<std::string>(), std::optional<std::string>("8")}) {
      use_token_stream(s).alignment = alignment;
      SessionResult r = EndpointFixture::run(s);
      QCOMPARE(r.requests[0].error_code, std::optional<int>(400));
      QCOMPARE(token_stream_of(r.requests[0])->request_fault, TokenStreamField::Alignment);
    }
    use_token_stream(s).alignment = "4";
    use_token_stream(s).context_id = "-1";
    SessionResult r = EndpointFixture::run(s);
    QCOMPARE(r.requests[0].error_code, std::optional<int>(400));
    QCOMPARE(token_stream_of(r.requests[0])->request_fault, TokenStreamField::ContextId);
  }

  // Token stream spec §5.1 row 2: a client that reads the ids as text fails JSON.parse and reports
  // it; the endpoint takes such a report and refuses anything else on that path.
  void textDecodingClientReports() {
    Fixture fx;
    SessionConfig s = fx.f.session("http", "/v1/messages");
    use_token_stream(s);
    use_token_stream(s).text_decoding = true;
    s.repeat = 2;
    SessionResult r = EndpointFixture::run(s);
    QCOMPARE(r.requests.size(), std::size_t{2});
    for (const auto& q : r.requests) {
      QCOMPARE(q.end, RequestEnd::Response);
      QVERIFY(token_stream_of(q)->text_decoding_reported);
    }
    QCOMPARE(fx.f.endpoint().counters().client_error_reports, std::uint64_t{2});
    const std::string report =
        "{\"error\":{\"type\":\"json_parse_error\",\"message\":\"Unexpected token\"},"
        "\"content_type\":\"application/vnd.claude.token-stream\",\"context_id\":\"4294967297\"}";
    QCOMPARE(curl_request(fx.url("/v1/client-errors"), report, {"Content-Type: application/json"}).status, 204);
    QCOMPARE(fx.f.endpoint().counters().client_error_reports, std::uint64_t{3});
    for (std::string bad : {std::string("not json"), std::string("{\"error\":{\"type\":\"json_parse_error\"}}"),
                            std::string("{\"error\":{\"type\":\"json_parse_error\"},\"content_type\":\"text/plain\"}")})
      QCOMPARE(curl_request(fx.url("/v1/client-errors"), bad, {"Content-Type: application/json"}).status, 400);
    QCOMPARE(fx.f.endpoint().counters().client_error_reports, std::uint64_t{3});
  }

  void offByDefault() {
    Fixture fx({}, false);
    auto reply = curl_request(fx.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(reply.status, 415);
    QVERIFY2(error_message(reply).find("--token-stream") != std::string::npos, error_message(reply).c_str());
    QCOMPARE(curl_request(fx.url("/v1/vocab"), "", {}).status, 404);
  }
};

QTEST_GUILESS_MAIN(TestTokenStreamEndpoint)
#include "test_token_stream_endpoint.moc"
