// The token stream over HTTP/2 (TLS, ALPN h2), as the embedded endpoint serves it, met
// through Debian's curl (built with nghttp2): the ids spell the JSON API's text, the degraded
// marker's announcement in the head or as trailing HEADERS, the header table's 400s, 429 with
// Retry-After in milliseconds, 503 with X-Claude-Failover, several streams on one connection.
// Then such a session captured on lo with curl's key log: the decoder's decrypted bytes and each
// stream's DATA payloads agree with tshark's for the same file and key log, and the records the
// capture gives (HttpReplyRecorder, as HTTP/1.1's) carry the ids tshark's bytes hold.
#include <QByteArray>
#include <QFloat16>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTemporaryDir>
#include <QTest>

#include "affinity_curl.h"
#include "capture/analysis.h"
#include "capture/capture_decoder.h"
#include "capture/capture_file.h"
#include "capture/http2_dissector.h"
#include "capture/packet.h"
#include "crypto/keylog.h"
#include "endpoint_fixture.h"
#include "h2_session_capture.h"
#include "lo_capture.h"
#include "tls_plaintext.h"
#include "tokenstream/admission.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;

namespace {

const char* kConversation = "{\"model\":\"m\",\"max_tokens\":12,\"messages\":[{\"role\":\"user\",\"content\":\"Why do ids beat JSON?\"}]}";

QStringList token_headers(const std::string& context_id = "34359738373") {
  return {"-H", "Content-Type: application/vnd.claude.token-stream", "-H", "X-Claude-Token-Alignment: 4", "-H",
          QString::fromStdString("X-Claude-Context-ID: " + context_id)};
}

// One reply as curl read it over HTTP/2: the head's fields apart from the trailer's.
struct H2Reply {
  std::string version;  // curl's %{http_version}
  int status = 0;
  std::map<std::string, std::string> head, trailers;
  std::string body;
};

QStringList h2_args(const QTemporaryDir& dir, int i) {
  return {"-sS", "-k", "--http2", "-D", dir.filePath(QString("head%1").arg(i)), "-o", dir.filePath(QString("body%1").arg(i))};
}

// curl's -D file: the status line, the head's fields, a blank line, then HTTP/2's trailers.
H2Reply read_reply(const QTemporaryDir& dir, int i) {
  H2Reply r;
  r.body = read_file(dir.filePath(QString("body%1").arg(i)).toStdString());
  bool in_trailers = false;
  for (const auto& line : QString::fromStdString(read_file(dir.filePath(QString("head%1").arg(i)).toStdString())).split("\r\n")) {
    if (line.startsWith("HTTP/")) {
      r.status = line.section(' ', 1, 1).toInt();
      continue;
    }
    if (line.isEmpty() && r.status) in_trailers = true;
    int colon = line.indexOf(':');
    if (colon <= 0) continue;
    (in_trailers ? r.trailers : r.head)[line.left(colon).toLower().toStdString()] = line.mid(colon + 1).trimmed().toStdString();
  }
  return r;
}

H2Reply h2_post(const std::string& url, const std::string& body, const QStringList& headers) {
  QTemporaryDir dir;
  QStringList args = h2_args(dir, 0);
  args << "-w" << "%{http_version}" << headers << "--data-binary" << QString::fromStdString(body) << QString::fromStdString(url);
  QString version = run_curl(args);
  H2Reply r = read_reply(dir, 0);
  r.version = version.toStdString();
  return r;
}

struct Fixture {
  explicit Fixture(std::vector<std::string> faults = {}) : f(std::move(faults)) {
    serve_token_stream(f.config());
    f.config().model.tokens = 12;
    f.start();
  }
  std::string url(const char* path) { return f.endpoint().url("https") + path; }
  TokenStreamVocabulary vocabulary() {
    auto reply = curl_request(url("/v1/vocab"), "", {}, {"-k", "--http2"});
    auto v = TokenStreamVocabulary::from_json(reply.body);
    if (reply.status != 200 || !v) qFatal("GET /v1/vocab over HTTP/2: %d", reply.status);
    return *v;
  }
  // The JSON API's text for the conversation, over HTTP/1.1: the reference the ids must spell.
  std::string json_api_text() {
    auto reply = curl_request(url("/v1/messages"), kConversation, {"Content-Type: application/json", "anthropic-version: 2023-06-01"},
                              {"-k", "--http1.1"});
    if (reply.status != 200) qFatal("JSON API: %d %s", reply.status, reply.body.c_str());
    return nlohmann::json::parse(reply.body)["content"][0]["text"].get<std::string>();
  }
  EndpointFixture f;
};

std::vector<std::uint32_t> ids_of(const std::string& body) {
  auto decoded = decode_token_stream_body(as_bytes(body));
  if (!decoded) qFatal("token body: %s", decoded.error().detail.c_str());
  return decoded->tokens;
}

std::vector<std::uint32_t> without_marker(std::vector<std::uint32_t> ids) {
  std::erase(ids, kTokenStreamDegraded);
  return ids;
}

std::string error_message(const H2Reply& r) {
  auto doc = nlohmann::json::parse(r.body, nullptr, false);
  return doc.is_object() ? doc["error"]["message"].get<std::string>() : r.body;
}

// Each stream's DATA payloads in order, per direction's sender (tcp.srcport), as tshark reads
// them. tshark lists a packet's frames (type, stream, length, flags) and its DATA payloads
// apart, adding a stream's reassembled body after its END_STREAM frame: the payloads are
// matched to the DATA frames with bytes, and a reassembled body is checked against them.
std::map<std::string, std::vector<std::string>> tshark_data_frames(const std::string& pcap, const std::string& keylog,
                                                                   const std::string& server_port) {
  QProcess p;
  p.start("tshark", {"-r", QString::fromStdString(pcap), "-o", QString::fromStdString("tls.keylog_file:" + keylog), "-o",
                     "tcp.reassemble_out_of_order:TRUE", "-Y", "http2", "-T", "fields", "-e", "tcp.srcport", "-e",
                     "http2.type", "-e", "http2.streamid", "-e", "http2.length", "-e", "http2.flags", "-e", "http2.data.data"});
  p.waitForFinished(60000);
  std::map<std::string, std::vector<std::string>> out;  // "s<id>" (server) or "c<id>" (client)
  for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
    QList<QByteArray> f = line.split('\t');
    if (f.size() < 6) continue;
    const std::string who = f[0].toStdString() == server_port ? "s" : "c";
    QList<QByteArray> types = f[1].split(','), ids = f[2].split(','), lengths = f[3].split(','), flags = f[4].split(',');
    QList<QByteArray> data = f[5].isEmpty() ? QList<QByteArray>() : f[5].split(',');
    int next = 0;
    for (int i = 0; i < types.size(); ++i) {
      std::string key = who + ids.value(i).toStdString();
      if (types[i] == "0" && lengths.value(i).toInt() > 0) out[key].push_back(QByteArray::fromHex(data.value(next++)).toStdString());
      bool end_stream = flags.value(i).toInt(nullptr, 16) & 1;
      auto seen = out.find(key);
      if (end_stream && seen != out.end() && seen->second.size() > 1 && next < data.size()) {
        std::string whole;
        for (const auto& d : seen->second) whole += d;
        if (QByteArray::fromHex(data[next]).toStdString() == whole) ++next;  // the reassembled body
      }
    }
    if (next != data.size()) qFatal("tshark frame %s: %d payloads not matched to DATA frames", line.constData(), int(data.size() - next));
  }
  return out;
}

}  // namespace

class TestTokenStreamHttp2 : public QObject {
  Q_OBJECT
 private slots:
  void streamedIdsSpellTheJsonApisText() {
    Fixture fx;
    H2Reply reply = h2_post(fx.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(reply.version, std::string("2"));
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.head["content-type"], std::string(kTokenStreamMediaType));
    QVERIFY(!reply.head.count("transfer-encoding"));  // connection-specific: not in HTTP/2
    QVERIFY(reply.trailers.empty());
    QCOMPARE(reply.body.size(), std::size_t{48});
    QCOMPARE(token_stream_text(ids_of(reply.body), fx.vocabulary()), fx.json_api_text());
    // The same ids unstreamed, with their length.
    QStringList whole = token_headers();
    whole << "-H" << "X-Claude-Streaming: false";
    H2Reply all = h2_post(fx.url("/v1/messages"), kConversation, whole);
    QCOMPARE(all.status, 200);
    QCOMPARE(all.head["content-length"], std::string("48"));
    QCOMPARE(all.body, reply.body);
  }

  void degradedIsAnnouncedInTheHeadOrTrailingHeaders() {
    Fixture fx({"ts-degraded=1"});
    const std::string want = fx.json_api_text();
    const auto vocabulary = fx.vocabulary();
    bool at_start = false, later = false;
    for (int i = 0; i < 8 && !(at_start && later); ++i) {
      H2Reply r = h2_post(fx.url("/v1/messages"), kConversation, token_headers());
      QCOMPARE(r.status, 200);
      auto decoded = decode_token_stream_body(as_bytes(r.body));
      QVERIFY(decoded.ok() && decoded->degraded_at);
      if (*decoded->degraded_at == 0) {
        at_start = true;
        QCOMPARE(r.head["x-claude-backpressure"], std::string("degraded"));
        QVERIFY(!r.trailers.count("x-claude-backpressure"));
      } else {
        later = true;
        QVERIFY(!r.head.count("x-claude-backpressure"));
        QCOMPARE(r.trailers["x-claude-backpressure"], std::string("degraded"));
      }
      QCOMPARE(token_stream_text(without_marker(decoded->tokens), vocabulary), want);
    }
    QVERIFY(later);  // the trailing HEADERS were seen (a marker at token 0 only is 1 in 12 a reply)
  }

  void errorsAsOnHttp1() {
    Fixture fx;
    H2Reply bad = h2_post(fx.url("/v1/messages"), kConversation, token_headers("34359738373n"));
    QCOMPARE(bad.status, 400);
    QVERIFY2(error_message(bad).find("X-Claude-Context-ID") != std::string::npos, error_message(bad).c_str());
    QStringList no_alignment{"-H", "Content-Type: application/vnd.claude.token-stream", "-H", "X-Claude-Context-ID: 5"};
    QCOMPARE(h2_post(fx.url("/v1/messages"), kConversation, no_alignment).status, 400);
    QStringList tenant = token_headers();
    tenant << "-H" << "X-Claude-Tenant-ID: 9";
    QCOMPARE(h2_post(fx.url("/v1/messages"), kConversation, tenant).status, 401);

    Fixture quota({"ts-quota=1"});
    H2Reply spent = h2_post(quota.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(spent.status, 429);
    auto ms = parse_token_stream_retry_after(spent.head["retry-after"]);
    QVERIFY2(ms && ms->milliseconds > 1000 && ms->milliseconds <= 5000, spent.head["retry-after"].c_str());
    QCOMPARE(ms->cause, TokenStreamRetryCause::Quota);

    Fixture failover({"ts-failover=1"});
    H2Reply failed = h2_post(failover.url("/v1/messages"), kConversation, token_headers());
    QCOMPARE(failed.status, 503);
    QCOMPARE(failed.head["x-claude-failover"], std::string("true"));
  }

  // curl --parallel multiplexes its transfers on one connection: three streams at once.
  void concurrentStreamsOnOneConnection() {
    Fixture fx;
    const std::string want = fx.json_api_text();
    const auto vocabulary = fx.vocabulary();
    const std::uint64_t before = fx.f.endpoint().counters().connections;
    QTemporaryDir dir;
    QStringList args{"-sS", "-k", "--http2", "--parallel", "--parallel-max", "3"};
    args << token_headers() << "--data-binary" << kConversation;
    for (int i = 0; i < 3; ++i)
      args << "-o" << dir.filePath(QString("body%1").arg(i)) << QString::fromStdString(fx.url("/v1/messages"));
    run_curl(args);
    QCOMPARE(fx.f.endpoint().counters().connections - before, std::uint64_t{1});
    for (int i = 0; i < 3; ++i)
      QCOMPARE(token_stream_text(ids_of(read_file(dir.filePath(QString("body%1").arg(i)).toStdString())), vocabulary), want);
  }

  void jsonApiOverHttp2() {
    Fixture fx;
    H2Reply r = h2_post(fx.url("/v1/messages"), kConversation, {"-H", "Content-Type: application/json", "-H", "anthropic-version: 2023-06-01"});
    QCOMPARE(r.version, std::string("2"));
    QCOMPARE(r.status, 200);
    QCOMPARE(nlohmann::json::parse(r.body)["content"][0]["text"].get<std::string>(), fx.json_api_text());
  }

  // One curl over HTTP/2 captured on lo with its key log: GET /v1/vocab, then three token
  // streams at once (one of them degraded), all on one connection.
  void captureAgreesWithTshark() {
    Fixture fx({"ts-degraded=0.5"});
    const std::string pcap = fx.f.path("h2.pcapng"), keylog = fx.f.path("h2.keylog");
    const std::string url = fx.url("/v1/messages");
    const std::string port = url.substr(url.rfind(':') + 1, url.find('/', url.rfind(':')) - url.rfind(':') - 1);
    LoCapture capture(fx.f.endpoint().url("https"), pcap, keylog);
    QVERIFY2(capture.start(), capture.error().c_str());
    QTemporaryDir dir;
    QStringList args{"-sS", "-k", "--http2", "--parallel", "--parallel-max", "4", QString::fromStdString(fx.url("/v1/vocab")),
                     "-o", dir.filePath("vocab"), "--next", "--http2", "-k"};
    args << token_headers() << "--data-binary" << kConversation;
    for (int i = 0; i < 3; ++i) args << "-o" << dir.filePath(QString("body%1").arg(i)) << QString::fromStdString(url);
    run_curl(args, QString::fromStdString(keylog));
    QVERIFY(capture.stop().ok());

    // The decrypted bytes, both ways, are tshark's.
    auto ours = decoded_plaintext(pcap, keylog);
    auto theirs = tshark_plaintext(pcap, keylog, {"http2"});
    QCOMPARE(theirs.size(), std::size_t{2});
    QVERIFY(ours[Direction::ServerToClient].size() > 200);
    const std::string differs = tshark_differs(theirs, ours, port);
    QVERIFY2(differs.empty(), differs.c_str());

    // Each stream's DATA payloads, in order, are tshark's; a token's reply comes a frame per token.
    std::map<std::string, std::vector<std::string>> frames;
    Http2Dissector::Events ev;
    ev.on_frame = [&](const Http2Frame& f) {
      if (f.type == 0 && f.length > 0)
        frames[(f.dir == Direction::ServerToClient ? "s" : "c") + std::to_string(f.stream_id)].emplace_back(f.payload);
    };
    Http2Dissector d(std::move(ev));
    d.feed(Direction::ClientToServer, as_bytes(ours[Direction::ClientToServer]), 0, 0);
    d.feed(Direction::ServerToClient, as_bytes(ours[Direction::ServerToClient]), 0, 0);
    QVERIFY2(d.error().empty(), d.error().c_str());
    auto tshark_frames = tshark_data_frames(pcap, keylog, port);
    QCOMPARE(frames.size(), std::size_t{7});  // the vocabulary's reply, three requests and their replies
    for (const auto& [key, pieces] : frames)
      if (tshark_frames.count(key) && tshark_frames[key] != pieces)
        qWarning("stream %s: %zu DATA frames here, %zu in tshark's", key.c_str(), pieces.size(), tshark_frames[key].size());
    QVERIFY(frames == tshark_frames);

    // The analysis: three token-stream records whose ids are those tshark's bytes hold, named
    // by the connection's own vocabulary.
    auto analysis = analyze_capture(pcap, {{keylog}, {}});
    QVERIFY2(analysis.ok(), analysis ? "" : analysis.error().detail.c_str());
    QCOMPARE(analysis->connections.size(), std::size_t{1});
    const auto& conn = analysis->connections[0];
    QCOMPARE(conn.info.alpn, std::string("h2"));
    QVERIFY2(conn.info.http_error.empty(), conn.info.http_error.c_str());
    QCOMPARE(conn.streams.size(), std::size_t{3});
    const auto vocabulary = TokenStreamVocabulary::from_json(read_file(dir.filePath("vocab").toStdString()));
    QVERIFY(vocabulary.ok());
    const std::string want = fx.json_api_text();
    for (std::size_t i = 0; i < conn.streams.size(); ++i) {
      const RequestResult& r = conn.streams[i];
      QCOMPARE(r.end, RequestEnd::Response);
      QVERIFY(token_stream_of(r));
      std::string body;
      for (const auto& piece : tshark_frames["s" + std::to_string(r.stream_id)]) {
        QVERIFY(piece.size() == 4 || piece.size() == 8);  // a frame per token (the marker rides with one)
        body += piece;
      }
      auto ids = ids_of(body);
      QCOMPARE(token_stream_of(r)->ids, std::uint64_t(ids.size()));
      QCOMPARE(r.figures.tokens, std::uint64_t(without_marker(ids).size()));
      auto marker = std::find(ids.begin(), ids.end(), kTokenStreamDegraded);
      QCOMPARE(token_stream_of(r)->degraded_at.has_value(), marker != ids.end());
      QCOMPARE(token_stream_of(r)->backpressure_announced, marker != ids.end());
      QCOMPARE(token_stream_of(r)->context_id, std::string("34359738373"));
      QCOMPARE(CaptureAnalysis::text(conn, i), token_stream_text(without_marker(ids), *vocabulary));
      QCOMPARE(CaptureAnalysis::text(conn, i), want);
    }
  }

  // The workbench's own client (`session --http2`): ALPN h2 selected, every request a stream of
  // one connection, the vocabulary fetched over it, and the same ids, texts and figures as the
  // same session over HTTP/1.1; the JSON API's SSE over HTTP/2 spells the same text too.
  void ourClientOverHttp2_data() {
    QTest::addColumn<bool>("token_stream");
    QTest::newRow("token-stream") << true;
    QTest::newRow("sse") << false;
  }
  void ourClientOverHttp2() {
    QFETCH(bool, token_stream);
    Fixture fx;
    SessionConfig c = fx.f.session("https", "/v1/messages");
    if (token_stream) use_token_stream(c);
    c.repeat = 3;
    const std::uint64_t connections_before = fx.f.endpoint().counters().connections;
    c.http2 = true;
    const SessionResult h2 = EndpointFixture::run(c);
    QCOMPARE(fx.f.endpoint().counters().connections - connections_before, std::uint64_t{1});
    c.http2 = false;
    const SessionResult h1 = EndpointFixture::run(c);
    QVERIFY2(!h2.error, h2.error ? h2.error->c_str() : "");
    QCOMPARE(h2.alpn, std::string("h2"));
    QCOMPARE(h1.alpn, std::string("http/1.1"));
    QVERIFY(h2.warnings.empty());  // the vocabulary came
    QCOMPARE(h2.requests.size(), std::size_t{3});
    QCOMPARE(h1.requests.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) {
      const RequestResult& a = h2.requests[i];
      const RequestResult& b = h1.requests[i];
      QVERIFY2(!a.error, a.error ? a.error->c_str() : "");
      QCOMPARE(a.end, RequestEnd::Response);
      QCOMPARE(a.figures.tokens, std::uint64_t{12});
      QVERIFY(a.figures.ttft_ms);
      QCOMPARE(a.text, b.text);
      QVERIFY(!a.text.empty());
      QCOMPARE(token_stream_of(a) != nullptr, token_stream);
      if (token_stream) {
        QCOMPARE(token_stream_of(a)->ids, token_stream_of(b)->ids);
        QVERIFY(!QString::fromStdString(a.text).contains(QStringLiteral("⟦")));  // every id named
      }
    }
  }

  // The text-decoding client fault over HTTP/2: its report is a request of its own on the
  // connection, and the endpoint takes it.
  void textDecodingReportOverHttp2() {
    Fixture fx;
    SessionConfig c = fx.f.session("https", "/v1/messages");
    use_token_stream(c);
    use_token_stream(c).text_decoding = true;
    c.http2 = true;
    const SessionResult s = EndpointFixture::run(c);
    QCOMPARE(s.alpn, std::string("h2"));
    QCOMPARE(s.requests.size(), std::size_t{1});
    QVERIFY(token_stream_of(s.requests[0]));
    QVERIFY(token_stream_of(s.requests[0])->text_decoding_reported);
    QCOMPARE(fx.f.endpoint().counters().client_error_reports, std::uint64_t{1});
  }

  // The workbench's own HTTP/2 session captured on lo with its key log: the decrypted bytes are
  // tshark's, and the capture's records carry what the session itself read.
  void ourSessionCaptureAgreesWithTshark() {
    Fixture fx;
    const std::string url = fx.url("/v1/messages");
    const std::string port = url.substr(url.rfind(':') + 1, url.find('/', url.rfind(':')) - url.rfind(':') - 1);
    const H2SessionCapture run = capture_h2_token_session(fx.f, "own-h2");
    const SessionResult& s = run.session;
    const std::string &pcap = run.pcap, &keylog = run.keylog;
    QCOMPARE(s.alpn, std::string("h2"));
    auto ours = decoded_plaintext(pcap, keylog);
    auto theirs = tshark_plaintext(pcap, keylog, {"http2"});
    QCOMPARE(theirs.size(), std::size_t{2});
    const std::string differs = tshark_differs(theirs, ours, port);
    QVERIFY2(differs.empty(), differs.c_str());
    auto analysis = analyze_capture(pcap, {{keylog}, {}});
    QVERIFY2(analysis.ok(), analysis ? "" : analysis.error().detail.c_str());
    QCOMPARE(analysis->connections.size(), std::size_t{1});
    const auto& conn = analysis->connections[0];
    QCOMPARE(conn.info.alpn, std::string("h2"));
    QCOMPARE(conn.streams.size(), std::size_t{2});
    for (std::size_t i = 0; i < 2; ++i) {
      QVERIFY(token_stream_of(conn.streams[i]));
      QCOMPARE(token_stream_of(conn.streams[i])->ids, token_stream_of(s.requests[i])->ids);
      QCOMPARE(CaptureAnalysis::text(conn, i), s.requests[i].text);
    }
  }

  // Hostile frames end the reading of the connection with a reason, never a crash.
  void hostileFramesAreRefused() {
    const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    auto frame = [](std::uint8_t type, std::uint8_t flags, std::uint32_t stream, const std::string& payload) {
      std::string f;
      f += static_cast<char>(payload.size() >> 16);
      f += static_cast<char>(payload.size() >> 8);
      f += static_cast<char>(payload.size());
      f += static_cast<char>(type);
      f += static_cast<char>(flags);
      for (int shift : {24, 16, 8, 0}) f += static_cast<char>(stream >> shift);
      return f + payload;
    };
    struct Case {
      std::string client;
      const char* says;
    };
    const Case cases[] = {
        {"GET / HTTP/1.1\r\n\r\n", "connection preface"},
        {preface + frame(1, 4, 1, "\xff\xff\xff\xff\xff"), "HPACK"},
        {preface + frame(1, 0, 1, "\x82") + frame(0, 0, 1, "x"), "CONTINUATION"},
        {preface + frame(0, 0, 0, "x"), "on stream 0"},
        {preface + frame(4, 0, 0, "12345"), "multiple of 6"},
        {preface + std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x01", 9), "SETTINGS_MAX_FRAME_SIZE"},
        {preface + frame(1, 0x08 | 0x04, 1, "\xff"), "padding"},
        {preface + frame(0, 0, 7, "body"), "no request opened"},
    };
    for (const auto& c : cases) {
      Http2Dissector d({});
      d.feed(Direction::ClientToServer, as_bytes(c.client), 0, 0);
      d.finish();
      QVERIFY2(d.error().find(c.says) != std::string::npos, (c.says + std::string(": ") + d.error()).c_str());
    }
    // A header block past its bound, in CONTINUATIONs.
    Http2Dissector d({});
    std::string big = preface + frame(1, 0, 1, std::string(16000, '\x82'));
    for (int i = 0; i < 20; ++i) big += frame(9, 0, 1, std::string(16000, '\x82'));
    d.feed(Direction::ClientToServer, as_bytes(big), 0, 0);
    QVERIFY2(d.error().find("larger than") != std::string::npos, d.error().c_str());
  }
};

QTEST_GUILESS_MAIN(TestTokenStreamHttp2)
#include "test_token_stream_http2.moc"
