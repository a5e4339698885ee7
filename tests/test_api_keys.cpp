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

#include "capture_generator.h"
#include "cli_run.h"
#include "forward_proxy.h"
#include "head_catcher.h"
#include "lo_capture.h"
#include "net/http_io.h"
#include "net/proxy.h"
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

// An environment variable set for one scope, then unset.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const QByteArray& value) : name_(name) { qputenv(name, value); }
  ~ScopedVariable() { qunsetenv(name_); }

 private:
  const char* name_;
};

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

  // Proxy URLs as curl and the environment write them; a command line's never holds a password.
  void proxyUrlsAreReadAsCurlReadsThem_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("password_allowed");
    QTest::addColumn<QString>("expected");  // host|port|user|password, or the error's words
    QTest::newRow("plain") << "http://proxy.corp:3128" << false << "proxy.corp|3128||";
    QTest::newRow("no scheme, curl's port") << "proxy.corp" << false << "proxy.corp|1080||";
    QTest::newRow("trailing slash") << "http://10.0.0.1:8080/" << false << "10.0.0.1|8080||";
    QTest::newRow("user") << "http://alice@p:1" << false << "p|1|alice|";
    QTest::newRow("env password, escaped") << "http://al%40ce:p%3Ass@p:8" << true << "p|8|al@ce|p:ss";
    QTest::newRow("ipv6") << "http://[::1]:3128" << false << "::1|3128||";
    QTest::newRow("scheme case") << "HTTP://p:2" << false << "p|2||";
    QTest::newRow("password on the command line") << "http://alice:pw@p:1" << false << "never comes on the command line";
    QTest::newRow("socks") << "socks5://p:1080" << true << "\"socks5://\" proxies are not supported";
    QTest::newRow("https proxy") << "https://p:443" << true << "\"https://\" proxies are not supported";
    QTest::newRow("path") << "http://p:1/x" << true << "no path";
    QTest::newRow("port zero") << "http://p:0" << true << "not a number from 1 to 65535";
    QTest::newRow("port words") << "http://p:http" << true << "not a number";
    QTest::newRow("empty port") << "http://p:" << true << "not a number";
    QTest::newRow("no host") << "http://:8080" << true << "no proxy host";
    QTest::newRow("broken escape") << "http://a%4@p:1" << true << "%-escape";
    QTest::newRow("control byte") << "http://p\r\nx:1" << true << "space or control byte";
  }
  void proxyUrlsAreReadAsCurlReadsThem() {
    QFETCH(QString, url);
    QFETCH(bool, password_allowed);
    QFETCH(QString, expected);
    auto proxy = net::parse_proxy_url(url.toStdString(), "HTTPS_PROXY", password_allowed);
    if (!expected.contains('|')) {
      QVERIFY(!proxy);
      const QString detail = QString::fromStdString(proxy.error().detail);
      QVERIFY2(detail.startsWith("HTTPS_PROXY: ") && detail.contains(expected), qPrintable(detail));
      QVERIFY2(!detail.contains("pw"), qPrintable(detail));
      return;
    }
    QVERIFY2(proxy, proxy ? "" : proxy.error().detail.c_str());
    const QString got = QString::fromStdString(proxy->host + "|" + std::to_string(proxy->port) + "|" + proxy->user + "|" + proxy->password);
    QCOMPARE(got, expected);
    QVERIFY(proxy->url().find(proxy->password.empty() ? "\x01" : proxy->password) == std::string::npos);
  }

  void noProxyExemptsAsCurlDoes_data() {
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("exempt");
    QTest::newRow("star") << "*" << "api.anthropic.com" << true;
    QTest::newRow("star among others is a name") << "x.org,*" << "api.anthropic.com" << true;
    QTest::newRow("exact") << "api.anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("subdomain") << "anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("leading dot") << ".anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("case") << "ANTHROPIC.com" << "Api.Anthropic.COM" << true;
    QTest::newRow("suffix is no subdomain") << "thropic.com" << "api.anthropic.com" << false;
    QTest::newRow("parent is not exempt") << "api.anthropic.com" << "anthropic.com" << false;
    QTest::newRow("spaces and commas") << " x.org , ,anthropic.com " << "api.anthropic.com" << true;
    QTest::newRow("ip") << "127.0.0.1" << "127.0.0.1" << true;
    QTest::newRow("other ip") << "127.0.0.1" << "127.0.0.2" << false;
    QTest::newRow("cidr") << "10.0.0.0/8" << "10.200.3.4" << true;
    QTest::newRow("cidr outside") << "10.0.0.0/8" << "11.0.0.1" << false;
    QTest::newRow("ipv6 cidr") << "fd00::/8" << "fd12::1" << true;
    QTest::newRow("ipv6 bracketed") << "[::1]" << "::1" << true;
    QTest::newRow("name does not match an ip") << "localhost" << "127.0.0.1" << false;
    QTest::newRow("empty list") << "" << "127.0.0.1" << false;
  }
  void noProxyExemptsAsCurlDoes() {
    QFETCH(QString, list);
    QFETCH(QString, host);
    QFETCH(bool, exempt);
    QCOMPARE(net::no_proxy_exempts(list.toStdString(), host.toStdString()), exempt);
  }

  // TLS targets take HTTPS_PROXY, the others HTTP_PROXY (lower case first, then ALL_PROXY);
  // http:// targets are forwarded, the rest tunnelled; NO_PROXY and --no-proxy win.
  void proxyRoutesFollowTheEnvironment() {
    using net::ProxySetting;
    using net::ProxyWay;
    const ProxySetting environment{}, off{ProxySetting::Source::Off, {}};
    auto route = [](const ProxySetting& s, bool tls, bool http) -> QString {
      auto r = net::proxy_route(s, "api.example.com", tls, http);
      if (!r) return "error: " + QString::fromStdString(r.error().detail);
      if (!*r) return "direct";
      return QString::fromStdString((*r)->server.url()) + ((*r)->way == ProxyWay::Tunnel ? " tunnel" : " forward");
    };
    QCOMPARE(route(environment, true, true), QString("direct"));
    ScopedVariable https("HTTPS_PROXY", "http://tls-proxy:1");
    ScopedVariable http("HTTP_PROXY", "http://plain-proxy:2");
    QCOMPARE(route(environment, true, true), QString("http://tls-proxy:1 tunnel"));    // https://
    QCOMPARE(route(environment, true, false), QString("http://tls-proxy:1 tunnel"));   // anthro://, lz://
    QCOMPARE(route(environment, false, false), QString("http://plain-proxy:2 tunnel")); // anthro+lab://, lz+lab://
    QCOMPARE(route(environment, false, true), QString("http://plain-proxy:2 forward")); // http://
    QCOMPARE(route(off, true, true), QString("direct"));
    {
      ScopedVariable lower("https_proxy", "http://u:secret@lower:3");
      QCOMPARE(route(environment, true, true), QString("http://u@lower:3 tunnel"));
    }
    {
      ScopedVariable exempt("NO_PROXY", "example.com");
      QCOMPARE(route(environment, true, true), QString("direct"));
      ProxySetting given{ProxySetting::Source::Given, {"given", 4, "", ""}};
      QCOMPARE(route(given, true, true), QString("direct"));
    }
    ProxySetting given{ProxySetting::Source::Given, {"given", 4, "", ""}};
    QCOMPARE(route(given, false, true), QString("http://given:4 forward"));
    ScopedVariable broken("HTTPS_PROXY", "socks5://x:1");
    QVERIFY2(route(environment, true, true).startsWith("error: HTTPS_PROXY: "), qPrintable(route(environment, true, true)));
    qunsetenv("HTTPS_PROXY");
    qunsetenv("HTTP_PROXY");
    ScopedVariable all("ALL_PROXY", "http://all:5");
    QCOMPARE(route(environment, true, true), QString("http://all:5 tunnel"));
  }

  // Every protocol through Debian's squid, to the local endpoint: from the environment to the
  // open port, with --proxy and a password to the one that asks. squid's access log says each
  // went through it (CONNECT host:port, or the absolute-form POST), and by whom.
  void everyProtocolGoesThroughARealProxy() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {"--lz-listen", "127.0.0.1:0"});
    QVERIFY(endpoint.ready());
    const QString http = endpoint.url("http"), https = endpoint.url("https");
    const QList<QPair<QString, bool>> targets = {  // the target, and whether it is tunnelled
        {endpoint.url("anthro"), true}, {endpoint.url("anthro+lab"), true}, {https + "/v1/messages", true},
        {http + "/v1/chat/completions", false}, {endpoint.url("lz"), true}, {endpoint.url("lz+lab"), true}};
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    for (bool with_credentials : {false, true})
      for (const auto& [target, tunnelled] : targets) {
        const bool tls = target.startsWith("anthro://") || target.startsWith("https://") || target.startsWith("lz://");
        QStringList args = {"session", "--target", target, "--prompt", "hi", "--format", "json", "--timeout-s", "30"};
        std::optional<ScopedVariable> from_environment;
        if (with_credentials) args << "--proxy" << proxy.auth_url() << "--proxy-password-env" << "WB_PROXY_PASSWORD";
        else from_environment.emplace(tls ? "HTTPS_PROXY" : "HTTP_PROXY", proxy.open_url().toUtf8());
        Run r = run(args, dir.path(), 90000);
        const QByteArray where = (target + (with_credentials ? " with credentials: " : ": ")).toUtf8() + r.err;
        QVERIFY2(r.code == 0, where.constData());
        QVERIFY2(!r.out.contains(ForwardProxy::kPassword) && !r.err.contains(ForwardProxy::kPassword), where.constData());
        json doc = json::parse(r.out.constData());
        QCOMPARE(QString::fromStdString(doc["proxy"].get<std::string>()), with_credentials ? proxy.auth_url() : proxy.open_url());
        QCOMPARE(doc["requests"].size(), std::size_t(1));
        QVERIFY2(doc["requests"][0]["tokens"].get<int>() > 0, where.constData());
        QVERIFY2(doc["requests"][0]["error"].is_null(), doc.dump().c_str());
        if (!target.startsWith("lz")) {  // (Layer Zero's own client reports no connection figures)
          QVERIFY2(doc["connect_ms"].is_number(), doc.dump().c_str());
          QCOMPARE(doc["proxy_connect_ms"].is_number(), tunnelled);
        }
        const QString port = target.section(':', 2).section('/', 0, 0);
        const QString seen = tunnelled ? "CONNECT 127.0.0.1:" + port : "POST " + target;
        QElapsedTimer waited;
        waited.start();
        auto logged = [&] {
          for (const QByteArray& line : proxy.access_log().split('\n'))
            if (line.contains(seen.toUtf8()) && line.contains(with_credentials ? " alice " : " - ")) return true;
          return false;
        };
        while (!logged() && waited.elapsed() < 5000) QTest::qWait(50);
        QVERIFY2(logged(), qPrintable(seen + " not in squid's log:\n" + proxy.access_log()));
      }
  }

  // The proxy's refusal is the run's failure: exit 3 and one line with the proxy's status line,
  // whether it refuses a tunnel or a forwarded request; a proxy that is not there says so.
  void aProxysRefusalIsExitThreeWithItsStatusLine() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {"--lz-listen", "127.0.0.1:0"});
    QVERIFY(endpoint.ready());
    ScopedVariable wrong("WB_PROXY_PASSWORD", "not-the-password");
    for (const QString& target : {endpoint.url("anthro"), endpoint.url("http") + "/v1/messages", endpoint.url("lz+lab")})
      for (bool with_password : {true, false}) {
        QStringList args = {"session", "--target", target, "--prompt", "hi", "--proxy", proxy.auth_url()};
        if (with_password) args << "--proxy-password-env" << "WB_PROXY_PASSWORD";
        Run r = run(args, dir.path(), 60000);
        const QByteArray where = target.toUtf8() + ": " + r.err + r.out;
        QVERIFY2(r.code == 3, where.constData());
        const auto lines = r.err.trimmed().split('\n');
        QVERIFY2(std::count_if(lines.begin(), lines.end(), [](const QByteArray& l) {
                   return l.contains("407 Proxy Authentication Required") && l.contains("proxy http://alice@127.0.0.1:");
                 }) >= 1, where.constData());
        QVERIFY2(!r.err.contains("not-the-password") && !r.out.contains("not-the-password"), where.constData());
      }
    Run absent = run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--proxy",
                      QString("http://127.0.0.1:%1").arg(free_port())}, dir.path(), 60000);
    QCOMPARE(absent.code, 3);
    QVERIFY2(absent.err.contains("cannot connect to proxy http://127.0.0.1:"), absent.err.constData());
    const QList<QPair<QStringList, QString>> usage = {
        {{"--proxy", "http://alice:pw@127.0.0.1:1"}, "--proxy-password-env"},
        {{"--proxy", "socks5://127.0.0.1:1"}, "not supported"},
        {{"--no-proxy", "--proxy", "http://127.0.0.1:1"}, "--no-proxy: not with --proxy"},
        {{"--proxy-password-env", "WB_PROXY_PASSWORD"}, "needs --proxy"},
        {{"--proxy", "http://127.0.0.1:1", "--proxy-password-env", "WB_PROXY_PASSWORD"}, "names no USER@"},
        {{"--proxy", "http://a@127.0.0.1:1", "--proxy-password-env", "WB_UNSET_VARIABLE"}, "WB_UNSET_VARIABLE: that variable is not set"}};
    for (const auto& [extra, words] : usage) {
      Run r = run(QStringList{"session", "--target", endpoint.url("anthro"), "--prompt", "hi"} + extra, dir.path());
      QVERIFY2(r.code == 2 && r.err.contains(words.toUtf8()) && !r.err.contains(":pw@"), (extra.join(' ') + ": " + r.err).toUtf8().constData());
    }
    ScopedVariable broken("HTTPS_PROXY", "socks5://127.0.0.1:1");
    Run r = run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi"}, dir.path());
    QVERIFY2(r.code == 2 && r.err.contains("HTTPS_PROXY: \"socks5://\" proxies are not supported"), r.err.constData());
    QCOMPARE(run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--no-proxy"}, dir.path()).code, 0);
  }

  // A proxy is a peer like any other: what it answers is read bounded, and each way it can fail
  // ends the run with exit 3 and one line saying how, its bytes made printable.
  void aHostileProxyIsToldApart_data() {
    QTest::addColumn<QByteArray>("answer");  // empty: a proxy that never answers
    QTest::addColumn<QString>("words");
    QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n\r\n") << "not an HTTP answer: SSH-2.0-OpenSSH_9.2";
    QTest::newRow("a head without end") << QByteArray("HTTP/1.1 200 OK\r\nx: ") + QByteArray(20000, 'a') + "\r\n\r\n"
                                        << "an answer head over 16 KiB";
    QTest::newRow("closed mid-answer") << QByteArray("HTTP/1.1 200 Conn") << "closed mid-answer";
    QTest::newRow("control bytes") << QByteArray("HTTP/1.1 403 \x1b[31mno\r\n\r\n") << "refused: HTTP/1.1 403 ?[31mno";
    QTest::newRow("a tunnel to nothing") << QByteArray("HTTP/1.1 200 Connection established\r\n\r\n") << "TLS handshake with";
    QTest::newRow("silent") << QByteArray() << "no answer within 1 s (--timeout-s)";
  }
  void aHostileProxyIsToldApart() {
    QFETCH(QByteArray, answer);
    QFETCH(QString, words);
    QTemporaryDir dir;
    std::optional<HeadCatcher> talking;
    std::optional<LoopbackListener> silent;  // the kernel accepts for it; nothing is ever read or sent
    if (answer.isEmpty()) silent.emplace();
    else talking.emplace(answer.toStdString());
    const int port = silent ? silent->port() : talking->port();
    Run r = run({"session", "--target", "anthro://127.0.0.1:9", "--prompt", "hi", "--timeout-s", "1", "--proxy",
                 QString("http://127.0.0.1:%1").arg(port)}, dir.path(), 60000);
    QVERIFY2(r.code == 3, r.err.constData());
    QVERIFY2(r.err.contains(words.toUtf8()) && r.err.contains(QString("proxy http://127.0.0.1:%1").arg(port).toUtf8()),
             r.err.constData());
    QVERIFY2(!r.err.contains('\x1b'), r.err.constData());
    if (talking) QVERIFY2(talking->head().rfind("CONNECT 127.0.0.1:9 HTTP/1.1\r\n", 0) == 0, talking->head().c_str());
  }

  // analyze reads a capture's CONNECT tunnels however the bytes fall: a request sent in the
  // CONNECT's own segment waits for the tunnel, a refusal keeps the proxy's line, and a CONNECT
  // head past its bound stops the reading with a reason instead of growing.
  void aCapturesTunnelsAreReadBounded() {
    QTemporaryDir dir;
    const std::string body = R"({"model":"m","max_tokens":8,"stream":false,"messages":[{"role":"user","content":"hi"}]})";
    const std::string request = "POST /v1/messages HTTP/1.1\r\nhost: h\r\ncontent-type: application/json\r\ncontent-length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    const std::string reply_body = R"({"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"yo"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}})";
    const std::string reply = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " +
                              std::to_string(reply_body.size()) + "\r\n\r\n" + reply_body;
    auto analyzed = [&](const std::vector<std::pair<bool, std::string>>& pieces) {
      const QString path = dir.filePath("tunnel.pcap");
      write_capture(path.toStdString(), exchange(pieces));
      Run r = run({"analyze", path, "--format", "json"}, dir.path());
      return r.code == 0 ? json::parse(r.out.constData())["connections"][0] : json{{"error", r.err.toStdString()}};
    };
    json c = analyzed({{true, "CONNECT h:80 HTTP/1.1\r\nHost: h:80\r\n\r\n" + request},
                       {false, "HTTP/1.1 200 Connection established\r\n\r\n"}, {false, reply}});
    QVERIFY2(c["tunnel"] == "h:80" && c["transport"] == "http" && c["http_requests"] == 1, c.dump().c_str());
    QVERIFY2(c["streams"].size() == 1 && c["streams"][0]["end"] == "response", c.dump().c_str());
    c = analyzed({{true, "CONNECT h:443 HTTP/1.1\r\n\r\n"},
                  {false, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"}});
    QVERIFY2(c["tunnel_status"] == "HTTP/1.1 407 Proxy Authentication Required" && c["streams"].empty(), c.dump().c_str());
    c = analyzed({{true, "CONNECT h:443 HTTP/1.1\r\nx: " + std::string(17000, 'a')}, {true, "\r\n\r\n"}});
    QVERIFY2(c["http_error"] == "a CONNECT with a head over 16 KiB" && c["tunnel"].is_null(), c.dump().c_str());
  }

  // bench's connections and diagnose's live workload take the proxy as a session does.
  void benchAndDiagnoseGoThroughTheProxy() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {});
    QVERIFY(endpoint.ready());
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    const QStringList through = {"--proxy", proxy.auth_url(), "--proxy-password-env", "WB_PROXY_PASSWORD"};
    Run bench = run(QStringList{"bench", "--target", endpoint.url("anthro"), "--requests", "6", "--concurrency", "2",
                                "--format", "json"} + through, dir.path());
    QVERIFY2(bench.code == 0, bench.err.constData());
    const json benched = json::parse(bench.out.constData());
    QCOMPARE(benched["requests"].get<int>(), 6);
    QCOMPARE(QString::fromStdString(benched["proxy"].get<std::string>()), proxy.auth_url());
    const QString port = endpoint.url("anthro").section(':', 2);
    QVERIFY2(proxy.access_log().count(("CONNECT 127.0.0.1:" + port).toUtf8()) >= 2, proxy.access_log().constData());
    ScopedVariable https_proxy("HTTPS_PROXY", proxy.auth_url(true).toUtf8());  // the environment's form, password and all
    const QByteArray before = proxy.access_log();
    Run diagnose = run({"diagnose", "--target", endpoint.url("https") + "/v1/messages", "--requests", "20", "--quiet",
                        "--format", "json"}, dir.path());
    QVERIFY2(diagnose.code == 0 || diagnose.code == 1, diagnose.err.constData());
    QVERIFY(!diagnose.out.contains(ForwardProxy::kPassword) && !diagnose.err.contains(ForwardProxy::kPassword));
    const json diagnosis = json::parse(diagnose.out.constData());
    QVERIFY2(diagnosis["checklist"].size() > 0 && diagnosis["summary"]["requests"].get<int>() > 0, diagnose.out.left(600).constData());
    QVERIFY2(proxy.access_log().mid(before.size()).count(("CONNECT 127.0.0.1:" + port).toUtf8()) >= 1,
             proxy.access_log().constData());
  }

  // A capture of the client's side of the proxy holds CONNECT, the proxy's answer, then the
  // tunnel: analysis reads the tunnel as the connection it is, and decrypts it with the keys.
  void aCaptureThroughTheProxyDecodes() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {});
    QVERIFY(endpoint.ready());
    const QString pcap = dir.path() + "/proxied.pcapng", keylog = dir.path() + "/keys.log";
    LoCapture capture(proxy.auth_url().toStdString(), pcap.toStdString(), keylog.toStdString());
    QVERIFY2(capture.start(), capture.error().c_str());
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    ScopedVariable keys("SSLKEYLOGFILE", keylog.toUtf8());
    for (const QString& target : {endpoint.url("anthro"), endpoint.url("https") + "/v1/messages"}) {
      Run r = run({"session", "--target", target, "--prompt", "hi", "--proxy", proxy.auth_url(), "--proxy-password-env",
                   "WB_PROXY_PASSWORD"}, dir.path());
      QVERIFY2(r.code == 0, r.err.constData());
    }
    ScopedVariable wrong("WB_PROXY_PASSWORD", "not-the-password");
    QCOMPARE(run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--proxy", proxy.auth_url(),
                  "--proxy-password-env", "WB_PROXY_PASSWORD"}, dir.path()).code, 3);
    QVERIFY2(capture.stop().ok(), capture.error().c_str());
    Run analyzed = run({"analyze", pcap, "--format", "json"}, dir.path());
    QVERIFY2(analyzed.code == 0, analyzed.err.constData());
    const std::string tunnel = endpoint.url("anthro").section("://", 1).toStdString();
    std::map<std::string, int> seen;  // ALPN (or the refusal) -> connections
    const json analysis = json::parse(analyzed.out.constData());
    for (const auto& c : analysis["connections"]) {
      QVERIFY2(c["tunnel"] == tunnel, c.dump().c_str());
      if (c["tunnel_status"] != "HTTP/1.1 200 Connection established") {
        QVERIFY2(c["tunnel_status"].get<std::string>().find(" 407 ") != std::string::npos, c.dump().c_str());
        ++seen["refused"];
        continue;
      }
      QVERIFY2(c["transport"] == "tls" && c["decryption"] == "ok" && c["tunnel_ms"].is_number(), c.dump().c_str());
      QVERIFY2(c["streams"].size() == 1 && c["streams"][0]["tokens"] == 40 && c["streams"][0]["error"].is_null(), c.dump().c_str());
      ++seen[c["alpn"].get<std::string>()];
    }
    std::string counted;
    for (const auto& [what, n] : seen) counted += what + "=" + std::to_string(n) + " ";
    QVERIFY2((seen == std::map<std::string, int>{{"anthro-v1", 1}, {"http/1.1", 1}, {"refused", 1}}), counted.c_str());
    Run decoded = run({"decode", pcap, "--format", "jsonl"}, dir.path());
    QVERIFY2(decoded.code == 0 && decoded.out.contains("\"RESPONSE\""), decoded.err.constData());
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
