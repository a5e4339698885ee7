// The session tracer in the capture inspector: the embedded endpoint with session
// affinity on, a real session driven by curl (a first request, the next turn with its session
// id and hash, a wrong hash answered 400, a collected session answered 409) captured on lo in
// cleartext and over TLS with curl's key log; the Session ID, Context Hash, Token Count and
// Status columns and detail fields checked against what curl sent and received.
#include <QByteArray>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTest>

#include <QTableView>
#include <QTemporaryDir>

#include "affinity/context_hash.h"
#include "affinity/serve.h"
#include "affinity_curl.h"
#include "capture_generator.h"
#include "capture_inspector.h"
#include "endpoint_fixture.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "hex_view.h"
#include "language.h"
#include "lo_capture.h"
#include "http/messages_api.h"
#include "net/http_io.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;
using nlohmann::ordered_json;

namespace {

// What curl sent and received, exchange by exchange.
struct Sent {
  std::string session, hash;  // request headers: the session id not sent when empty, the hash sent empty
};
struct Exchange {
  Sent sent;
  CurlReply reply;
};

QString q(const std::string& s) { return QString::fromStdString(s); }

// Where session affinity's columns stand in the frame list, as users have always seen them:
// after Tokens, before Summary (columnsKeepTheirPlaces).
constexpr int kSessionId = FrameTableModel::FirstTracer, kContextHash = kSessionId + 1, kTokenCount = kSessionId + 2,
              kStatus = kSessionId + 3;

std::string error_type(const CurlReply& r) {
  return nlohmann::json::parse(r.body)["error"]["type"].get<std::string>();
}

// The Token Count a streamed reply shows: its chunks' counts summed, as curl received them.
QString token_count(const CurlReply& r) {
  if (r.headers.count("transfer-encoding") == 0) return {};
  Chunks c = chunks_of(r.body);
  std::uint64_t sum = 0;
  for (auto n : c.counts) sum += n;
  if (q(c.trailers["X-Anthropic-Token-Count"]) != QString::number(sum)) qFatal("the endpoint's trailer disagrees");
  return QString::number(sum);
}

// The session of the brief: first turn, next turn, a wrong hash (400), another client taking
// the only slot, then the first session again (409).
std::vector<Exchange> run_session(const std::string& url, const QStringList& curl_args, const QString& keylog) {
  std::vector<Exchange> out;
  auto send = [&](const ordered_json& messages, bool stream, Sent sent) {
    std::vector<std::string> headers;
    if (!sent.session.empty()) headers.push_back("X-Anthropic-Session-ID: " + sent.session);
    // A first request with no history carries the hash empty (the spec): curl's "Name;" form.
    headers.push_back(sent.hash.empty() ? "X-Anthropic-Context-Hash;" : "X-Anthropic-Context-Hash: " + sent.hash);
    out.push_back({sent, post(url, request_body(messages, stream), headers, curl_args, keylog)});
    return out.back().reply;
  };
  ordered_json messages = ordered_json::array({{{"role", "user"}, {"content", "hi"}}});
  CurlReply first = send(messages, true, {});
  const std::string session = first.headers["x-anthropic-session-id"];
  messages.push_back({{"role", "assistant"}, {"content", streamed_text(chunks_of(first.body))}});
  messages.push_back({{"role", "user"}, {"content", "more"}});
  const std::string hash = context_hash(messages);
  send(messages, true, {session, hash});
  send(messages, false, {session, "0123456789abcdef"});
  send(ordered_json::array({{{"role", "user"}, {"content", "other"}}}), false, {});
  send(messages, false, {session, hash});
  return out;
}

struct Captured {
  std::string pcapng;
  std::vector<Exchange> exchanges;
};

// Runs the session against `scheme`'s port while capturing it on lo (keys embedded).
void capture_session(EndpointFixture& f, const std::string& scheme, const QStringList& curl_args, Captured& out) {
  const std::string url = f.endpoint().url(scheme);
  LoCapture capture(url, f.path((scheme + ".pcapng").c_str()), f.path((scheme + ".keylog").c_str()));
  QVERIFY2(capture.start(), capture.error().c_str());
  const QString keylog = scheme == "https" ? q(capture.config().keylog_path) : QString();
  out.exchanges = run_session(url + "/v1/messages", curl_args, keylog);
  QVERIFY2(capture.stop().ok(), capture.error().c_str());
  out.pcapng = capture.config().output;
}

QString cell(FrameTableModel* m, int row, int column) { return m->data(m->index(row, column), Qt::DisplayRole).toString(); }

bool wait_loaded(CaptureInspector& inspector) {
  for (int i = 0; i < 500 && inspector.loading(); ++i) QTest::qWait(20);
  return !inspector.loading();
}

// The rows of `type` in the list, in order.
std::vector<int> rows_of(FrameTableModel* m, const QString& type) {
  std::vector<int> out;
  for (int r = 0; r < m->rowCount(); ++r)
    if (cell(m, r, FrameTableModel::Type) == type) out.push_back(r);
  return out;
}

QString expected_status(const CurlReply& r) {
  QString s = QString::number(r.status);
  if (r.status == 200) return s;
  s += ' ' + q(error_type(r));
  if (r.status == 409) s += " → " + q(r.headers.at("x-anthropic-new-session-id"));
  if (r.status == 400) s += " (expected " + q(r.headers.at("x-anthropic-expected-hash")) + ")";
  return s;
}

void check_columns(CaptureInspector& inspector, const std::vector<Exchange>& xs) {
  FrameTableModel* rows = inspector.frames();
  std::vector<int> requests = rows_of(rows, "HTTP_REQUEST"), replies = rows_of(rows, "HTTP_RESPONSE");
  QCOMPARE(requests.size(), xs.size());
  QCOMPARE(replies.size(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Exchange& x = xs[i];
    QCOMPARE(cell(rows, requests[i], kSessionId), q(x.sent.session));
    QCOMPARE(cell(rows, requests[i], kContextHash), q(x.sent.hash));
    QCOMPARE(cell(rows, requests[i], kStatus), QString());
    const CurlReply& r = x.reply;
    auto header = [&](const char* name) { return r.headers.count(name) ? q(r.headers.at(name)) : QString(); };
    QCOMPARE(cell(rows, replies[i], kSessionId), header("x-anthropic-session-id"));
    QCOMPARE(cell(rows, replies[i], kContextHash), header("x-anthropic-context-hash"));
    QCOMPARE(cell(rows, replies[i], kTokenCount), token_count(r));
    QCOMPARE(cell(rows, replies[i], kStatus), expected_status(r));
  }
  QCOMPARE(xs[2].reply.status, 400);
  QCOMPARE(xs[4].reply.status, 409);
  QVERIFY(!token_count(xs[0].reply).isEmpty());
  // anthro-v1 columns of HTTP rows stay as they were; SSE events have no tracer values.
  std::vector<int> events = rows_of(rows, "SSE_EVENT");
  QVERIFY(!events.empty());
  QCOMPARE(cell(rows, events[0], kSessionId), QString());

  // The detail: the values as fields, each with the bytes of the header it came from.
  inspector.frameView()->selectRow(requests[1]);
  QCOMPARE(inspector.detailView()->fieldValue("Session ID"), q(xs[1].sent.session));
  QVERIFY(inspector.detailView()->selectField("Session ID"));
  auto [begin, end] = inspector.hexView()->highlight();
  QCOMPARE(inspector.hexView()->bytes().mid(begin, end - begin),
           QByteArray("x-anthropic-session-id: ") + QByteArray::fromStdString(xs[1].sent.session));
  inspector.frameView()->selectRow(replies[2]);
  QCOMPARE(inspector.detailView()->fieldValue("Status"), expected_status(xs[2].reply));
  inspector.frameView()->selectRow(replies[0]);
  QCOMPARE(inspector.detailView()->fieldValue("Token Count"), token_count(xs[0].reply));
}

}  // namespace

class TestSessionTracerInspector : public QObject {
  Q_OBJECT
 private slots:
  void liveSessionColumns_data() {
    QTest::addColumn<QString>("scheme");
    QTest::newRow("cleartext") << "http";
    QTest::newRow("tls key log") << "https";
  }

  void liveSessionColumns() {
    QFETCH(QString, scheme);
    EndpointFixture f({}, 5, 1, 4);
    emulate_affinity(f.config()).slot_count = 1;
    f.start();
    Captured c;
    QStringList curl_args;
    if (scheme == "https") curl_args << "-k" << "--http1.1";
    capture_session(f, scheme.toStdString(), curl_args, c);
    if (QTest::currentTestFailed()) return;

    CaptureInspector inspector;
    inspector.resize(1600, 900);
    inspector.show();
    inspector.open(q(c.pcapng), {});
    QVERIFY(wait_loaded(inspector));
    check_columns(inspector, c.exchanges);

    if (QByteArray shots = qgetenv("ANTHRO_TEST_SHOTS"); !shots.isEmpty() && scheme == "http") {
      inspector.applyFilter("type:HTTP_RESPONSE");  // the five replies: 200, 200, 400, 200, 409
      QTRY_COMPARE(inspector.frames()->rowCount(), 5);
      inspector.frameView()->selectRow(0);
      inspector.detailView()->selectField("Session ID");
      QTest::qWait(200);
      inspector.grab().save(QString::fromUtf8(shots) + "/capture-inspector-affinity.png");
    }
  }

  void columnsKeepTheirPlaces() {
    FrameTableModel rows;
    auto title = [&](int column) { return rows.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(); };
    QCOMPARE(title(FrameTableModel::Tokens), QString("Tokens"));
    QCOMPARE((QStringList{title(kSessionId), title(kContextHash), title(kTokenCount), title(kStatus)}),
             (QStringList{"Session ID", "Context Hash", "Token Count", "Status"}));
    QCOMPARE(summary_column(), kStatus + 1);
    QCOMPARE(title(summary_column()), QString("Summary"));
    // The rider marks the titles; the tracer speaks them in the user's language.
    gui::install_language("zh_CN");
    QCOMPARE((QStringList{title(kSessionId), title(kContextHash), title(kTokenCount), title(kStatus)}),
             (QStringList{QString::fromUtf8("会话 ID"), QString::fromUtf8("上下文哈希"), QString::fromUtf8("Token 计数"),
                          QString::fromUtf8("状态")}));
    gui::install_language("en");
  }

  // A hop that drops or rewrites chunk extensions: the sum and the trailer disagree, and a
  // count that is no number is shown as sent.
  void tokenCountDisagreementIsMarked() {
    const std::string body = R"({"model":"m","max_tokens":4,"messages":[{"role":"user","content":"hi"}]})";
    const std::string req = "POST /v1/messages HTTP/1.1\r\nhost: x\r\nX-ANTHROPIC-SESSION-ID: s-1\r\n"
                            "content-type: application/json\r\ncontent-length: " + std::to_string(body.size()) +
                            "\r\n\r\n" + body;
    const std::string head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n"
                             "x-anthropic-session-id: s-1\r\ntrailer: X-Anthropic-Token-Count\r\n\r\n";
    AnthropicSseWriter w;
    std::vector<std::pair<bool, std::string>> pieces = {
        {true, req}, {false, head},
        {false, net::http_chunk(w.message_start("msg_1", "m", 3), "x-anthropic-token-count=0")},
        {false, net::http_chunk(w.text_delta("Hel"), "x-anthropic-token-count=5")},
        {false, net::http_chunk(w.text_delta("lo"), "X-Anthropic-Token-Count=\"7\"")},
        {false, net::http_chunk(w.message_stop()) + net::http_last_chunk({{"x-anthropic-token-count", "14"}})}};
    QTemporaryDir dir;
    QString path = dir.filePath("mismatch.pcap");
    write_capture(path.toStdString(), exchange(pieces));
    CaptureInspector inspector;
    inspector.open(path, {});
    QVERIFY(wait_loaded(inspector));
    FrameTableModel* rows = inspector.frames();
    QCOMPARE(cell(rows, 0, kSessionId), QString("s-1"));  // a header name in any case
    QCOMPARE(cell(rows, 1, kTokenCount), QString("12 (trailer 14)"));
    QCOMPARE(cell(rows, 1, kStatus), QString("200"));
  }
};

QTEST_MAIN(TestSessionTracerInspector)
#include "test_session_tracer_inspector.moc"
