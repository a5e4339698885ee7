// The endpoint's API-key check over real sockets: the REQUEST's top-level api_key, parsed and
// compared in constant time; the HTTP baseline's x-api-key and Authorization: Bearer headers.
// A key anywhere else does not count, a key given twice is refused, escapes are read as JSON
// reads them. And the redaction of spec §5 still finds api_key in every one of these shapes.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include "protocol/describe.h"
#include "raw_peer.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;

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
