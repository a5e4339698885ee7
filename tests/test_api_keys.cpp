// The endpoint's API-key check over real sockets: the REQUEST's top-level api_key, parsed and
// compared in constant time; the HTTP baseline's x-api-key and Authorization: Bearer headers.
// A key anywhere else does not count, a key given twice is refused, escapes are read as JSON
// reads them. And the redaction of spec §5 still finds api_key in every one of these shapes.
// The client's side, as `anthro-wb` takes it: a key from the environment when none is named,
// the user's request headers (cli.md --header, --header-env, --anthropic-version) and gateway
// targets with any path and query.
#include <QFile>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "head_catcher.h"
#include "lo_capture.h"
#include "net/http_io.h"
#include "profile/profile.h"
#include "protocol/describe.h"
#include "raw_peer.h"
#include "session/target.h"
#include "test_paths.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;
using json = nlohmann::json;

namespace {

constexpr const char* kKey = "sk-right-key-0123";

// A REQUEST body with `members` spliced in after the required ones.
std::string request_json(const std::string& members) {
  std::string json = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3,\"stream\":true";
  return json + (members.empty() ? "" : "," + members) + "}";
}

// What the endpoint answers on stream 1: 200 for a RESPONSE, else the ERROR's code (0: nothing).
int anthro_answer(EndpointFixture& f, const std::string& json) {
  RawPeer peer(port_of(f.endpoint().url("anthro+lab")));
  if (!peer.negotiate()) return -1;
  peer.send(peer.raw_request(1, json));
  for (const auto& e : peer.read_until_ended(1)) {
    if (!e.body || body_stream_id(*e.body) != 1) continue;
    if (std::holds_alternative<ResponseBody>(*e.body)) return 200;
    if (auto* error = error_of(e)) return error->code;
  }
  return 0;
}

// The status of the HTTP baseline's answer to a Messages API request with these header lines.
int http_status(EndpointFixture& f, const std::string& headers, const std::string& body = "") {
  std::string json = body.empty() ? "{\"model\":\"m\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" : body;
  RawPeer peer(port_of(f.endpoint().url("http")));
  peer.send("POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\nanthropic-version: 2023-06-01\r\n"
            "content-type: application/json\r\n" + headers + "content-length: " + std::to_string(json.size()) +
            "\r\n\r\n" + json);
  std::string reply(as_text(peer.read_all()));
  if (reply.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(reply.substr(9, 3));
}


}  // namespace

class TestApiKeys : public QObject {
  Q_OBJECT
 private slots:
  void anthroRequestKeyIsTheTopLevelMember_data() {
    QTest::addColumn<QString>("members");
    QTest::addColumn<int>("answer");
    std::string k = kKey;
    auto row = [](const char* name, const std::string& members, int answer) {
      QTest::newRow(name) << QString::fromStdString(members) << answer;
    };
    row("right", "\"api_key\":\"" + k + "\"", 200);
    row("missing", "", 401);
    row("empty", "\"api_key\":\"\"", 401);
    row("wrong", "\"api_key\":\"sk-wrong\"", 401);
    row("key in metadata", "\"api_key\":\"x\",\"metadata\":{\"k\":\"" + k + "\"}", 401);
    row("api_key nested in metadata", "\"metadata\":{\"a\":{\"api_key\":\"" + k + "\"}}", 401);
    row("key as another field's value", "\"api_key\":\"nope\",\"system\":\"" + k + "\"", 401);
    row("member name in upper case", "\"API_KEY\":\"" + k + "\"", 401);
    row("value in upper case", "\"api_key\":\"SK-RIGHT-KEY-0123\"", 401);
    row("prefix of the key", "\"api_key\":\"sk-right-key-012\"", 401);
    row("key with a suffix", "\"api_key\":\"" + k + "4\"", 401);
    row("not a string", "\"api_key\":[\"sk-right-key-0123\"]", 400);
    row("twice, same value", "\"api_key\":\"" + k + "\",\"api_key\":\"" + k + "\"", 400);
    row("twice, wrong then right", "\"api_key\":\"x\",\"api_key\":\"" + k + "\"", 400);
    row("twice, once through an escape", "\"api_key\":\"x\",\"api_\\u006bey\":\"" + k + "\"", 400);
    // Escapes are JSON's business: the parsed name and value are what count, so both are accepted.
    row("member name escaped", "\"api_\\u006bey\":\"" + k + "\"", 200);
    row("value escaped", "\"api_key\":\"sk\\u002dright\\u002dkey\\u002d0123\"", 200);
  }

  void anthroRequestKeyIsTheTopLevelMember() {
    QFETCH(QString, members);
    QFETCH(int, answer);
    EndpointFixture f;
    f.config().required_api_key = kKey;
    f.start();
    QCOMPARE(anthro_answer(f, request_json(members.toStdString())), answer);
  }

  void duplicateApiKeyNamesTheProblem() {
    EndpointFixture f;
    f.config().required_api_key = kKey;
    f.start();
    RawPeer peer(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(peer.negotiate());
    peer.send(peer.raw_request(1, request_json("\"api_key\":\"a\",\"api_key\":\"b\"")));
    auto frames = peer.read_until_ended(1);
    QVERIFY(!frames.empty() && error_of(frames[0]));
    QCOMPARE(error_of(frames[0])->code, std::uint16_t{400});
    std::string message(error_of(frames[0])->message_view());
    QVERIFY2(message.find("duplicate api_key") != std::string::npos, message.c_str());
  }

  void noKeyConfiguredAcceptsAnyShape() {
    EndpointFixture f;
    f.start();
    QCOMPARE(anthro_answer(f, request_json("")), 200);
    QCOMPARE(anthro_answer(f, request_json("\"api_key\":\"anything\"")), 200);
  }

  void httpBaselineHeaders_data() {
    QTest::addColumn<QString>("headers");
    QTest::addColumn<int>("status");
    std::string k = kKey;
    auto row = [](const char* name, const std::string& headers, int status) {
      QTest::newRow(name) << QString::fromStdString(headers) << status;
    };
    row("x-api-key right", "x-api-key: " + k + "\r\n", 200);
    row("X-Api-Key header name in any case", "X-Api-Key: " + k + "\r\n", 200);
    row("missing", "", 401);
    row("x-api-key empty", "x-api-key: \r\n", 401);
    row("x-api-key wrong", "x-api-key: sk-wrong\r\n", 401);
    row("x-api-key value in upper case", "x-api-key: SK-RIGHT-KEY-0123\r\n", 401);
    row("x-api-key prefix", "x-api-key: sk-right-key-012\r\n", 401);
    row("x-api-key twice, same value", "x-api-key: " + k + "\r\nx-api-key: " + k + "\r\n", 400);
    row("x-api-key twice, wrong then right", "x-api-key: x\r\nx-api-key: " + k + "\r\n", 400);
    row("Bearer right", "authorization: Bearer " + k + "\r\n", 200);
    row("bearer scheme in lower case", "authorization: bearer " + k + "\r\n", 200);
    row("BEARER scheme in upper case, two spaces", "Authorization: BEARER  " + k + "\r\n", 200);
    row("Bearer wrong", "authorization: Bearer sk-wrong\r\n", 401);
    row("Bearer without a token", "authorization: Bearer\r\n", 401);
    row("Basic scheme", "authorization: Basic " + k + "\r\n", 401);
    row("Bearer scheme glued to the key", "authorization: Bearer" + k + "\r\n", 401);
    row("Bearer with two tokens", "authorization: Bearer " + k + ", Bearer " + k + "\r\n", 401);
    row("authorization twice", "authorization: Bearer " + k + "\r\nauthorization: Bearer " + k + "\r\n", 400);
    row("right x-api-key, wrong Bearer", "x-api-key: " + k + "\r\nauthorization: Bearer sk-wrong\r\n", 401);
    row("both right", "x-api-key: " + k + "\r\nauthorization: Bearer " + k + "\r\n", 200);
  }

  void httpBaselineHeaders() {
    QFETCH(QString, headers);
    QFETCH(int, status);
    EndpointFixture f;
    f.config().required_api_key = kKey;
    f.start();
    QCOMPARE(http_status(f, headers.toStdString()), status);
  }

  // Every route of the HTTP listener is behind the key, the token stream's vocabulary and its
  // client-error reports included (they were served to anyone), and a path that is no route.
  void everyHttpRouteIsBehindTheKey_data() {
    QTest::addColumn<QString>("request");
    QTest::newRow("GET /v1/vocab") << QString("GET /v1/vocab HTTP/1.1\r\n");
    QTest::newRow("POST /v1/client-errors") << QString("POST /v1/client-errors HTTP/1.1\r\ncontent-type: application/json\r\n");
    QTest::newRow("no route") << QString("GET /v1/models HTTP/1.1\r\n");
  }
  void everyHttpRouteIsBehindTheKey() {
    QFETCH(QString, request);
    EndpointFixture f;
    f.config().required_api_key = kKey;
    serve_token_stream(f.config());
    f.start();
    const std::string body = "{\"errors\":[]}";
    for (const std::string& key : {std::string(), std::string("x-api-key: sk-wrong\r\n"), "x-api-key: " + std::string(kKey) + "\r\n"}) {
      RawPeer peer(port_of(f.endpoint().url("http")));
      peer.send(request.toStdString() + "host: x\r\nconnection: close\r\n" + key +
                "content-length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
      const std::string reply(as_text(peer.read_all()));
      QVERIFY2(reply.rfind("HTTP/1.1 ", 0) == 0, reply.c_str());
      const int status = std::stoi(reply.substr(9, 3));
      if (key.find(kKey) == std::string::npos) QCOMPARE(status, 401);
      else QVERIFY2(status != 401, reply.c_str());
    }
  }

  void httpKeyInTheBodyIsNoKey() {
    EndpointFixture f;
    f.config().required_api_key = kKey;
    f.start();
    std::string body = std::string("{\"model\":\"m\",\"max_tokens\":3,\"api_key\":\"") + kKey +
                       "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    QCOMPARE(http_status(f, "", body), 401);
  }

  // Spec §5 Secrets: wherever an api_key member is, however it is spelled, neither the JSON view
  // nor the masked bytes show the key.
  void redactionFindsEveryApiKeyShape_data() {
    QTest::addColumn<QString>("members");
    std::string k = kKey;
    QTest::newRow("top level") << QString::fromStdString("\"api_key\":\"" + k + "\"");
    QTest::newRow("in metadata") << QString::fromStdString("\"metadata\":{\"api_key\":\"" + k + "\"}");
    QTest::newRow("nested deeper") << QString::fromStdString("\"metadata\":{\"a\":[{\"api_key\":\"" + k + "\"}]}");
    QTest::newRow("twice") << QString::fromStdString("\"api_key\":\"x\",\"api_key\":\"" + k + "\"");
    QTest::newRow("name escaped") << QString::fromStdString("\"api_\\u006bey\":\"" + k + "\"");
    QTest::newRow("literal then escaped") << QString::fromStdString("\"api_key\":\"x\",\"api_\\u006bey\":\"" + k + "\"");
  }

  // Without --api-key-env the key of the target's API comes from the environment: anthro-v1 and
  // the Messages API ANTHROPIC_API_KEY, chat completions OPENAI_API_KEY; a named one wins.
  void defaultKeysComeFromTheEnvironment() {
    QTemporaryDir dir;
    ScopedVariable required("WB_REQUIRED_KEY", kKey);
    EndpointProcess endpoint(dir.path(), {"--require-api-key-env", "WB_REQUIRED_KEY"});
    QVERIFY(endpoint.ready());
    const QString messages = endpoint.url("http") + "/v1/messages", chat = endpoint.url("http") + "/v1/chat/completions";
    auto session = [&](const QString& target, const QStringList& extra = {}) {
      return run(QStringList{"session", "--target", target, "--prompt", "hi"} + extra, dir.path(), 60000).code;
    };
    QCOMPARE(session(messages), 3);  // no key anywhere: 401
    {
      ScopedVariable anthropic("ANTHROPIC_API_KEY", kKey);
      QCOMPARE(session(messages), 0);
      QCOMPARE(session(endpoint.url("anthro+lab")), 0);
      QCOMPARE(session(endpoint.url("anthro")), 0);
      QCOMPARE(session(chat), 3);  // not chat completions' variable
      ScopedVariable other("WB_OTHER_KEY", "sk-wrong");
      QCOMPARE(session(messages, {"--api-key-env", "WB_OTHER_KEY"}), 3);
    }
    ScopedVariable openai("OPENAI_API_KEY", kKey);
    QCOMPARE(session(chat), 0);
    QCOMPARE(session(messages), 3);
  }

  // The user's headers reach a server this project did not write exactly as given, once each,
  // replacing the client's own of the same name; a gateway's path and query go into the request
  // line as they are; a header from the environment is in the request and in no output.
  void headersReachTheServerAsGiven() {
    QTemporaryDir dir;
    HeadCatcher server;
    ScopedVariable tenant("WB_TENANT_SECRET", "tenant-secret-7f3a");
    ScopedVariable key("ANTHROPIC_API_KEY", kKey);
    const QString target = QString("http://127.0.0.1:%1/openai/deployments/d1/v1/messages?api-version=2024-10-21&x=%2F")
                               .arg(server.port());
    Run r = run({"session", "--target", target, "--prompt", "hi", "--format", "json", "--timeout-s", "20", "--header",
                 "anthropic-beta: tools-2024-04-04", "--header", "X-Gateway-Route:  eu-west  ", "--header-env",
                 "x-tenant:WB_TENANT_SECRET", "--anthropic-version", "2099-01-01"},
                dir.path(), 60000);
    QCOMPARE(r.code, 3);  // the 500
    const std::string head = server.head();
    QVERIFY2(head.rfind("POST /openai/deployments/d1/v1/messages?api-version=2024-10-21&x=%2F HTTP/1.1\r\n", 0) == 0,
             head.c_str());
    const auto lines = header_lines(head);
    for (const char* expected : {"anthropic-beta: tools-2024-04-04", "x-gateway-route: eu-west",
                                 "x-tenant: tenant-secret-7f3a", "anthropic-version: 2099-01-01", "x-api-key: sk-right-key-0123"})
      QVERIFY2(std::count(lines.begin(), lines.end(), expected) == 1, (std::string(expected) + " in\n" + head).c_str());
    QCOMPARE(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("anthropic-version:", 0) == 0; }), 1);
    QVERIFY(!r.out.contains("tenant-secret-7f3a") && !r.err.contains("tenant-secret-7f3a"));
    QVERIFY(!r.out.contains(kKey) && !r.err.contains(kKey));
    QVERIFY2(r.out.contains("\"error\""), r.out.constData());
  }

  // A secret may travel under any header name (--header-env): decode and analyze of a capture,
  // decrypted with the session's keys or cleartext, show a header's value only when it is known
  // to be no secret (header_value_shown); the format's own and the public ones stay readable.
  void headerSecretsAreInNoDecodeOrAnalysis() {
    QTemporaryDir dir;
    EndpointProcess endpoint(dir.path(), {});
    QVERIFY(endpoint.ready());
    ScopedVariable secret("WB_TENANT_SECRET", "tenant-secret-9b1c");
    ScopedVariable key("ANTHROPIC_API_KEY", kKey);
    const QString keylog = dir.path() + "/keys.log";
    ScopedVariable keys("SSLKEYLOGFILE", keylog.toUtf8());
    for (const QString& target : {endpoint.url("https") + "/v1/messages", endpoint.url("http") + "/v1/messages"}) {
      const QString pcap = dir.path() + (target.startsWith("https") ? "/tls.pcapng" : "/cleartext.pcapng");
      LoCapture capture(target.section('/', 0, 2).toStdString(), pcap.toStdString(), keylog.toStdString());
      QVERIFY2(capture.start(), capture.error().c_str());
      Run r = run({"session", "--target", target, "--prompt", "hi", "--header-env", "x-tenant:WB_TENANT_SECRET",
                   "--header", "anthropic-beta: tools-2024-04-04", "--format", "json"}, dir.path());
      QVERIFY2(r.code == 0, r.err.constData());
      QVERIFY2(capture.stop().ok(), capture.error().c_str());
      for (const QStringList& command : {QStringList{"decode", pcap, "--format", "jsonl"}, QStringList{"decode", pcap},
                                         QStringList{"analyze", pcap, "--format", "json"}}) {
        Run shown = run(command, dir.path());
        const QByteArray where = (command.join(' ') + ": ").toUtf8();
        QVERIFY2(shown.code == 0, (where + shown.err).constData());
        QVERIFY2(!shown.out.contains("tenant-secret-9b1c") && !shown.err.contains("tenant-secret-9b1c"), (where + shown.out).constData());
        QVERIFY2(!shown.out.contains(kKey), where.constData());
        if (command[0] == "decode")  // the request was read, its headers shown or masked one by one
          QVERIFY2(shown.out.contains("anthropic-beta: tools-2024-04-04") && shown.out.contains("x-tenant: ******************"),
                   (where + shown.out.left(3000)).constData());
      }
    }
    QVERIFY(header_value_shown("x-claude-context-id"));  // a format's own
    QVERIFY(header_value_shown("anthropic-version") && header_value_shown("x-stainless-retry-count"));
    QVERIFY(!header_value_shown("x-tenant") && !header_value_shown("x-api-key") && !header_value_shown("idempotency-key"));
  }

  void requestHeadersAreCheckedBeforeTheyAreSent_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("from_environment");
    QTest::addColumn<QString>("name");   // empty: refused
    QTest::addColumn<QString>("value");  // or the refusal's words
    auto row = [](const char* tag, const char* text, bool from_environment, const char* name, const char* value) {
      QTest::newRow(tag) << QString::fromUtf8(text) << from_environment << QString(name) << QString::fromUtf8(value);
    };
    row("plain", "anthropic-beta: a,b", false, "anthropic-beta", "a,b");
    row("no space, trimmed, upper case", "X-Route:\t eu \t", false, "x-route", "eu");
    row("empty value", "x-empty:", false, "x-empty", "");
    row("colon in the value", "x-at: 12:30", false, "x-at", "12:30");
    row("credential from the environment", "authorization: Bearer t", true, "authorization", "Bearer t");
    row("no colon", "x-route eu", false, "", "expected NAME: VALUE");
    row("space in the name", "x route: eu", false, "", "not an HTTP token");
    row("empty name", ": eu", false, "", "not an HTTP token");
    row("non-ASCII name", "x-\xc3\xa9: eu", false, "", "not an HTTP token");
    row("CR LF in the value", "x-a: b\r\nhost: evil", false, "", "control byte");
    row("LF in the value", "x-a: b\nx-b: c", false, "", "control byte");
    row("DEL in the value", "x-a: b\x7f", false, "", "control byte");
    row("host", "Host: evil", false, "", "set by the client");
    row("content-length", "content-length: 1", true, "", "set by the client");
    row("transfer-encoding", "Transfer-Encoding: chunked", false, "", "set by the client");
    row("x-api-key on the command line", "x-api-key: sk", false, "", "--header-env");
    row("authorization on the command line", "Authorization: Bearer t", false, "", "--header-env");
    QTest::newRow("over 8 KiB") << ("x-big: " + QString(8193, 'a')) << false << QString() << QString("over 8 KiB");
  }

  void requestHeadersAreCheckedBeforeTheyAreSent() {
    QFETCH(QString, text);
    QFETCH(bool, from_environment);
    QFETCH(QString, name);
    QFETCH(QString, value);
    auto h = parse_request_header(text.toStdString(), from_environment);
    if (name.isEmpty()) {
      QVERIFY(!h);
      QVERIFY2(h.error().detail.find(value.toStdString()) != std::string::npos, h.error().detail.c_str());
      QVERIFY(h.error().detail.find("evil") == std::string::npos);  // a value is never echoed
      return;
    }
    QVERIFY2(h, h ? "" : h.error().detail.c_str());
    QCOMPARE(QString::fromStdString(h->name), name);
    QCOMPARE(QString::fromStdString(h->value), value);
  }

  // Which header values are masked wherever an HTTP message is shown: the credentials, and the
  // names gateways give theirs.
  void secretHeadersAreKnownByName() {
    for (const char* name : {"x-api-key", "authorization", "proxy-authorization", "cookie", "api-key", "x-goog-api-key",
                             "ocp-apim-subscription-key", "x-auth-token", "x-tenant-secret", "x-signature"})
      QVERIFY2(net::secret_header(name), name);
    for (const char* name : {"anthropic-version", "anthropic-beta", "content-type", "x-request-id", "x-gateway-route"})
      QVERIFY2(!net::secret_header(name), name);
  }

  void targetsTakeAGatewaysPathAndQuery_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("api");  // HttpApi; -1: refused
    QTest::addColumn<QString>("path");
    auto row = [](const char* url, int api, const char* path) { QTest::newRow(url) << QString(url) << api << QString(path); };
    const int messages = static_cast<int>(HttpApi::Messages), chat = static_cast<int>(HttpApi::ChatCompletions);
    row("https://api.anthropic.com/v1/messages", messages, "/v1/messages");
    row("https://gw.example/anthropic/v1/messages?beta=true", messages, "/anthropic/v1/messages?beta=true");
    row("https://x.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21", chat,
        "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21");
    row("http://127.0.0.1:8000/v1/chat/completions#frag", chat, "/v1/chat/completions");
    row("https://gw.example/v1/messages/", -1, "");
    row("https://gw.example/v1/messages-batch", -1, "");
    row("https://gw.example?/v1/messages", -1, "");
    row("https://gw.example/v1/mes sages", -1, "");
    row("https://gw.example/v1/messages?\x01", -1, "");
    row("https://gw.example/v1/messages?q=\xc3\xa9", -1, "");
    row("anthro://127.0.0.1:7443/?x=1", -1, "");
  }

  void targetsTakeAGatewaysPathAndQuery() {
    QFETCH(QString, url);
    QFETCH(int, api);
    QFETCH(QString, path);
    auto t = parse_target(url.toStdString());
    if (api < 0) {
      QVERIFY2(!t, url.toUtf8().constData());
      return;
    }
    QVERIFY2(t, t ? "" : t.error().detail.c_str());
    QCOMPARE(static_cast<int>(t->api), api);
    QCOMPARE(QString::fromStdString(t->path), path);
  }

  // Streams of servers this project did not write, recorded by hand from their public
  // documentation (tests/compat, docs/compatibility.md): each read as that server means it.
  void otherServersStreamsAreReadAsTheyMeanThem_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("text");           // everything generated, thought included
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("usage");              // the server's output token count; -1: none
    QTest::addColumn<QString>("stop");           // stop_reason; empty: an error
    QTest::addColumn<int>("status");             // an error's HTTP status
    QTest::addColumn<int>("retry_after_ms");     // -1: none
    auto row = [](const char* sample, const char* path, const char* text, int tokens, int usage, const char* stop,
                  int status = 0, int retry = -1) {
      QTest::newRow(sample) << sample << path << QString::fromUtf8(text) << tokens << usage << stop << status << retry;
    };
    const char* chat = "/v1/chat/completions";
    // usage in a last chunk with no choices (stream_options.include_usage), then [DONE]
    row("openai-usage-last", chat, "Tail latency hurts.", 3, 3, "end_turn");
    // reasoning_content before the answer: in the text and the tokens (TTFOT counts from it, TTFT
    // from the answer), as completion_tokens counts it
    row("vllm-reasoning", chat, "The user wants brevity.Queues grow.", 4, 4, "max_tokens");
    // usage and llama.cpp's timings on the chunk with finish_reason
    row("llamacpp-timings", chat, "Batching helps.", 3, 3, "end_turn");
    // SSE comments (keep-alive, a gateway's PROCESSING) and CRLF lines, the body ended by close
    row("gateway-keepalive", chat, "Retry less.", 3, 3, "end_turn");
    // ping, a thinking block with its signature (no text), then text; usage in message_delta
    row("anthropic-thinking", "/v1/messages", "Short answer.Warm the cache.", 3, 3, "end_turn");
    // an error body; Retry-After in seconds
    row("openai-429", chat, "", 0, -1, "", 429, 2000);
    // retry-after-ms wins over Retry-After
    row("anthropic-529", "/v1/messages", "", 0, -1, "", 529, 1500);
  }

  void otherServersStreamsAreReadAsTheyMeanThem() {
    QFETCH(QString, sample);
    QFETCH(QString, path);
    QFETCH(QString, text);
    QFETCH(int, tokens);
    QFETCH(int, usage);
    QFETCH(QString, stop);
    QFETCH(int, status);
    QFETCH(int, retry_after_ms);
    QFile file(QString::fromUtf8(ANTHRO_COMPAT_DIR) + "/" + sample + ".http");
    QVERIFY(file.open(QIODevice::ReadOnly));
    HeadCatcher server(file.readAll().toStdString());
    QTemporaryDir dir;
    Run r = run({"session", "--target", QString("http://127.0.0.1:%1%2").arg(server.port()).arg(path), "--prompt", "hi",
                 "--format", "json", "--timeout-s", "20"},
                dir.path(), 60000);
    QCOMPARE(r.code, status ? 3 : 0);
    const json doc = json::parse(r.out.toStdString());
    const json& req = doc["requests"].at(0);
    QCOMPARE(QString::fromStdString(req.value("text", "")), text);
    QCOMPARE(req["tokens"].get<int>(), tokens);
    QCOMPARE(req["usage_output_tokens"].is_null() ? -1 : req["usage_output_tokens"].get<int>(), usage);
    QCOMPARE(req["usage_mismatch"].get<bool>(), false);
    QCOMPARE(QString::fromStdString(req["stop_reason"].is_null() ? "" : req["stop_reason"].get<std::string>()), stop);
    if (!stop.isEmpty()) {
      QVERIFY(req["error"].is_null());
      QVERIFY(req["ttft_ms"].is_number());
      return;
    }
    QCOMPARE(req["error_code"].get<int>(), status);
    QCOMPARE(req["retry_after_ms"].is_null() ? -1 : req["retry_after_ms"].get<int>(), retry_after_ms);
  }

  void redactionFindsEveryApiKeyShape() {
    QFETCH(QString, members);
    std::string json = request_json(members.toStdString());
    std::string view = redact_request_json(json);
    QVERIFY2(view.find(kKey) == std::string::npos, view.c_str());
    Bytes bytes(json.begin(), json.end());
    QVERIFY(mask_secrets(bytes));
    QVERIFY2(as_text(bytes).find(kKey) == std::string_view::npos, std::string(as_text(bytes)).c_str());
  }
};

QTEST_GUILESS_MAIN(TestApiKeys)
#include "test_api_keys.moc"
