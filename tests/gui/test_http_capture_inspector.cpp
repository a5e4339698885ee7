// An HTTP/SSE capture in the inspector: each request, reply head and SSE event a row with its
// time and stream, the request's fields with the API key masked, the connection decrypted
// ("ok", not "no frames") with its HTTP counts, and each request's TTFT on the charts.
#include <QByteArray>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTest>

#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>

#include "capture_generator.h"
#include "capture_inspector.h"
#include "connection_detail_view.h"
#include "connections_model.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "hex_view.h"
#include "http/messages_api.h"
#include "latency_charts.h"
#include "h2_session_capture.h"
#include "net/http_io.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

std::string request(const std::string& prompt) {
  std::string body = R"({"model":"m","max_tokens":32,"stream":true,"messages":[{"role":"user","content":")" + prompt + R"("}]})";
  return "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1:7080\r\nx-api-key: sk-inspector-secret\r\n"
         "content-type: application/json\r\ncontent-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kHead = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

// Two exchanges on one connection, one packet per piece, 1 ms apart: the first token comes
// 4 ms after the first request and 5 ms after the second (two pings in between).
std::vector<std::pair<bool, std::string>> http_pieces() {
  AnthropicSseWriter w;
  auto chunk = [](const std::string& event) { return std::pair{false, net::http_chunk(event)}; };
  std::vector<std::pair<bool, std::string>> pieces = {
      {true, request("one")}, {false, kHead}, chunk(w.message_start("msg_1", "m", 3)), chunk(w.content_block_start()),
      chunk(w.text_delta("Hel")), chunk(w.text_delta("lo")), chunk(w.content_block_stop()),
      chunk(w.message_delta(StopReason::EndTurn, 2)), {false, net::http_chunk(w.message_stop()) + net::http_chunk("")},
      {true, request("two")}, {false, kHead}, chunk(w.message_start("msg_2", "m", 3)), chunk(w.ping()), chunk(w.ping()),
      chunk(w.text_delta("Again")), chunk(w.message_delta(StopReason::EndTurn, 1)),
      {false, net::http_chunk(w.message_stop()) + net::http_chunk("")}};
  return pieces;
}

std::vector<Segment> http_session() { return exchange(http_pieces()); }

// The token stream on one connection: the vocabulary fetched, then a reply whose second id
// straddles two chunks, with the degraded marker and two padding ids; then a reply whose body
// ends inside an id.
std::vector<Segment> token_stream_session() {
  const std::string vocab = "[\"\",\"Hel\",\"lo\",\" world\"]";
  const std::string ids_request = "POST /v1/messages HTTP/1.1\r\nhost: h\r\ncontent-type: application/vnd.claude.token-stream\r\n"
                                  "x-claude-token-alignment: 4\r\nx-claude-context-id: 4294967297\r\ncontent-length: 2\r\n\r\n{}";
  const std::string ids_head = "HTTP/1.1 200 OK\r\ncontent-type: application/vnd.claude.token-stream\r\ntransfer-encoding: chunked\r\n\r\n";
  auto chunk = [](std::initializer_list<int> bytes) {
    std::string data;
    for (int b : bytes) data += static_cast<char>(b);
    return std::pair{false, net::http_chunk(data)};
  };
  std::vector<std::pair<bool, std::string>> pieces = {
      {true, "GET /v1/vocab HTTP/1.1\r\nhost: h\r\n\r\n"},
      {false, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + std::to_string(vocab.size()) + "\r\n\r\n" + vocab},
      {true, ids_request}, {false, ids_head}, chunk({1, 0, 0, 0}), chunk({2, 0}), chunk({0, 0, 0xFE, 0xFF, 0xFF, 0xFF}),
      chunk({3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), {false, net::http_chunk("")},
      {true, ids_request}, {false, ids_head}, chunk({1, 0, 0, 0, 2}), {false, net::http_chunk("")}};
  return exchange(pieces);
}

QString cell(FrameTableModel* m, int row, int column) { return m->data(m->index(row, column), Qt::DisplayRole).toString(); }

bool wait_loaded(CaptureInspector& inspector) {
  for (int i = 0; i < 500 && inspector.loading(); ++i) QTest::qWait(20);
  return !inspector.loading();
}

// The segments written to `path` and opened in a shown inspector; true once it has loaded.
bool open_written(CaptureInspector& inspector, const QString& path, const std::vector<Segment>& segments) {
  write_capture(path.toStdString(), segments);
  inspector.resize(1200, 800);
  inspector.show();
  inspector.open(path, {});
  return wait_loaded(inspector);
}

}  // namespace

class TestHttpCaptureInspector : public QObject {
  Q_OBJECT
 private slots:
  // A connection to a forward proxy: CONNECT and its answer, then the tunnel's own bytes, read
  // as the connection they are (here cleartext HTTP); the tunnel in the connection's details.
  void aProxyTunnelIsReadThrough() {
    QTemporaryDir dir;
    auto pieces = http_pieces();
    pieces.insert(pieces.begin(), {{true, "CONNECT api.example.com:80 HTTP/1.1\r\nHost: api.example.com:80\r\n"
                                          "Proxy-Authorization: Basic YWxpY2U6cHc=\r\n\r\n"},
                                   {false, "HTTP/1.1 200 Connection established\r\n\r\n"}});
    CaptureInspector inspector;
    QVERIFY(open_written(inspector, dir.filePath("tunnel.pcap"), exchange(pieces)));
    FrameTableModel* rows = inspector.frames();
    QCOMPARE(rows->rowCount(), 17);  // as without the proxy
    QCOMPARE(cell(rows, 0, FrameTableModel::Type), QString("HTTP_REQUEST"));
    QCOMPARE(cell(rows, 0, summary_column()), QString("POST /v1/messages"));
    inspector.frameView()->selectRow(0);
    QVERIFY(!inspector.hexView()->bytes().contains("YWxpY2U6cHc"));
    QCOMPARE(inspector.connectionDetail()->value("proxy tunnel", "answer"), QString("HTTP/1.1 200 Connection established"));
    QCOMPARE(inspector.connectionDetail()->value("HTTP", "requests"), QString("2"));
  }

  void httpRequestsAndEventsAreRowsWithTheirTtft() {
    QTemporaryDir dir;
    QString path = dir.filePath("http.pcap");
    CaptureInspector inspector;
    QVERIFY(open_written(inspector, path, http_session()));

    // Rows: 2 requests, 2 reply heads, 7 + 6 SSE events.
    FrameTableModel* rows = inspector.frames();
    QCOMPARE(rows->rowCount(), 17);
    QCOMPARE(cell(rows, 0, FrameTableModel::Type), QString("HTTP_REQUEST"));
    QCOMPARE(cell(rows, 0, summary_column()), QString("POST /v1/messages"));
    QCOMPARE(cell(rows, 0, FrameTableModel::Stream), QString("1"));
    QCOMPARE(cell(rows, 1, FrameTableModel::Type), QString("HTTP_RESPONSE"));
    QCOMPARE(cell(rows, 1, summary_column()), QString("200 OK text/event-stream"));
    QCOMPARE(cell(rows, 4, FrameTableModel::Type), QString("SSE_EVENT"));
    QVERIFY(cell(rows, 4, summary_column()).startsWith("content_block_delta "));
    QCOMPARE(cell(rows, 4, FrameTableModel::Tokens), QString("1"));  // a text delta is a token
    QCOMPARE(cell(rows, 3, FrameTableModel::Tokens), QString());     // content_block_start is not
    // Each event at its packet's time: the first delta is packet 8, 4 ms after the request (packet 4).
    double t0 = cell(rows, 0, FrameTableModel::Time).toDouble(), t4 = cell(rows, 4, FrameTableModel::Time).toDouble();
    QVERIFY2(std::abs(t4 - t0 - 0.004) < 1e-5, qPrintable(QString::number(t4 - t0)));
    QCOMPARE(cell(rows, 9, FrameTableModel::Type), QString("HTTP_REQUEST"));
    QCOMPARE(cell(rows, 9, FrameTableModel::Stream), QString("2"));

    // The request's fields, its key masked in them and in the bytes.
    inspector.frameView()->selectRow(0);
    QCOMPARE(inspector.detailView()->fieldValue("request line"), QString("POST /v1/messages HTTP/1.1"));
    QCOMPARE(inspector.detailView()->fieldValue("x-api-key"), QString(19, '*'));
    QVERIFY(!inspector.hexView()->bytes().contains("sk-inspector-secret"));
    QVERIFY(inspector.detailView()->selectField("request line"));
    auto [begin, end] = inspector.hexView()->highlight();
    QCOMPARE(inspector.hexView()->bytes().mid(begin, end - begin), QByteArray("POST /v1/messages HTTP/1.1"));
    inspector.frameView()->selectRow(4);
    QCOMPARE(inspector.detailView()->fieldValue("event"), QString("content_block_delta"));

    // The connection: read, not "no frames"; its HTTP counts.
    const auto& conns = inspector.connections()->connections();
    QCOMPARE(conns.size(), std::size_t{1});
    QCOMPARE(decryption_text(conns[0]), std::string("ok"));
    ConnectionsModel* cm = inspector.connections();
    QCOMPARE(cm->data(cm->index(0, ConnectionsModel::HttpRequests), Qt::DisplayRole).toInt(), 2);
    inspector.connectionDetail()->showConnection(conns[0]);
    QCOMPARE(inspector.connectionDetail()->value("HTTP", "requests"), QString("2"));
    QCOMPARE(inspector.connectionDetail()->value("HTTP", "SSE events"), QString("13"));

    // Each request's TTFT on the charts, in the series of its protocol and server: 4 ms and 5 ms.
    const QString series = "HTTP Messages API · " + QString::fromStdString(conns[0].server.text());
    std::vector<double> ttft = inspector.charts()->ttftValues(inspector.charts()->seriesIndex(series));
    QCOMPARE(ttft.size(), std::size_t{2});
    QVERIFY2(std::abs(ttft[0] - 4.0) < 0.01 && std::abs(ttft[1] - 5.0) < 0.01,  // pcap keeps microseconds
             qPrintable(QString("%1, %2").arg(ttft[0]).arg(ttft[1])));

    // The second request's rows, as a click on its chart point shows them.
    inspector.showConnectionStream(QString::fromStdString(conns[0].name), 2);
    QTRY_COMPARE(rows->rowCount(), 8);
    for (int row = 0; row < rows->rowCount(); ++row) QCOMPARE(cell(rows, row, FrameTableModel::Stream), QString("2"));

    // type: names HTTP rows by the Type column's word, and the context menu offers that filter.
    inspector.applyFilter("type:sse_event stream:1");
    QTRY_COMPARE(rows->rowCount(), 7);
    for (int row = 0; row < rows->rowCount(); ++row) QCOMPARE(cell(rows, row, FrameTableModel::Type), QString("SSE_EVENT"));
    QCOMPARE(inspector.filterFor(rows->frameAt(0), FrameTableModel::Type), QString("type:SSE_EVENT"));
    inspector.applyFilter("type:HTTP_REQUEST");
    QTRY_COMPARE(rows->rowCount(), 2);
    inspector.applyFilter("type:REQUEST");  // anthro-v1 REQUEST frames: none in an HTTP capture
    QTRY_COMPARE(rows->rowCount(), 0);
    inspector.applyFilter("type:HTTP_BODY");
    QVERIFY(inspector.filterError().contains("HTTP_BODY"));
    QVERIFY(inspector.filterError().contains("SSE_EVENT"));
    QCOMPARE(rows->rowCount(), 0);  // the list kept what it showed

    if (QByteArray shots = qgetenv("ANTHRO_TEST_SHOTS"); !shots.isEmpty()) {
      inspector.showConnectionStream(QString::fromStdString(conns[0].name), -1);
      QTest::qWait(300);
      inspector.frameView()->selectRow(4);
      inspector.grab().save(QString::fromUtf8(shots) + "/http-inspector.png");
      for (int tab : {1, 2}) {
        inspector.lowerTabs()->setCurrentIndex(tab);
        inspector.connectionDetail()->showConnection(conns[0]);
        QTest::qWait(300);
        inspector.grab().save(QString::fromUtf8(shots) + QString("/http-inspector-%1.png").arg(tab));
      }
    }
  }

  // Token ids are rows as they arrived, named through the connection's GET /v1/vocab, and each
  // body ends with its verdict: ids, padding, the degraded marker, alignment.
  void tokenStreamIdsAndTheirVerdict() {
    QTemporaryDir dir;
    QString path = dir.filePath("ts.pcap");
    CaptureInspector inspector;
    QVERIFY(open_written(inspector, path, token_stream_session()));
    FrameTableModel* rows = inspector.frames();
    // GET, its reply, POST, its head, three id rows (the straddling id completes with the
    // marker), the verdict; then POST, head, one id, the verdict.
    QCOMPARE(rows->rowCount(), 12);
    QCOMPARE(cell(rows, 4, FrameTableModel::Type), QString("TOKEN_IDS"));
    QCOMPARE(cell(rows, 4, summary_column()), QString("ids #0: Hel"));
    QCOMPARE(cell(rows, 4, FrameTableModel::Tokens), QString("1"));
    QCOMPARE(cell(rows, 5, summary_column()), QString("ids #1–#2: lo⟦degraded⟧"));
    QCOMPARE(cell(rows, 5, FrameTableModel::Tokens), QString("1"));  // the marker is no token
    QCOMPARE(cell(rows, 6, summary_column()), QString("ids #3:  world"));
    QCOMPARE(cell(rows, 7, summary_column()), QString("body: 4 ids, 2 padding, degraded from #2, aligned"));
    inspector.frameView()->selectRow(5);
    QCOMPARE(inspector.detailView()->fieldValue("token ids"), QString("ids #1–#2 of the body"));
    QCOMPARE(inspector.detailView()->fieldValue("#1"), QString("2 \"lo\""));
    QCOMPARE(inspector.detailView()->fieldValue("#2"), QString("4294967294 degraded marker"));
    inspector.frameView()->selectRow(7);
    QCOMPARE(inspector.detailView()->fieldValue("alignment"), QString("ok, 24 bytes"));
    QCOMPARE(inspector.detailView()->fieldValue("degraded marker"), QString("#2, not announced by X-Claude-Backpressure"));
    QCOMPARE(cell(rows, 11, summary_column()), QString("body: 1 ids, 0 padding, refused (alignment)"));
    inspector.frameView()->selectRow(11);
    QVERIFY2(inspector.detailView()->fieldValue("alignment").startsWith("refused, alignment at byte 4"),
             qPrintable(inspector.detailView()->fieldValue("alignment")));
    inspector.applyFilter("type:token_ids");
    QTRY_COMPARE(rows->rowCount(), 6);
    if (QByteArray shots = qgetenv("ANTHRO_TEST_SHOTS"); !shots.isEmpty()) {
      inspector.applyFilter("");
      QTRY_COMPARE(rows->rowCount(), 12);
      inspector.resize(1600, 800);
      inspector.frameView()->selectRow(5);
      QTest::qWait(300);
      inspector.grab().save(QString::fromUtf8(shots) + "/token-stream-inspector.png");
    }
  }

  // The workbench's own HTTP/2 token-stream session (ALPN h2) captured on lo with its key log:
  // the inspector decodes it — requests, reply heads, each reply's ids named through the
  // connection's own GET /v1/vocab, and its verdict — and the rows spell what the session read.
  void http2TokenStreamSessionDecodes() {
    EndpointFixture f({}, 20, 2, 12);
    serve_token_stream(f.config());
    f.start();
    const H2SessionCapture run = capture_h2_token_session(f, "h2");
    const SessionResult& s = run.session;
    QCOMPARE(s.alpn, std::string("h2"));
    QCOMPARE(s.requests.size(), std::size_t{2});

    CaptureInspector inspector;
    inspector.resize(1600, 800);
    inspector.show();
    inspector.open(QString::fromStdString(run.pcap), {{run.keylog}, {}});
    QVERIFY(wait_loaded(inspector));
    FrameTableModel* rows = inspector.frames();
    std::map<QString, int> types;
    std::map<int, QString> spelled;  // by HTTP/2 stream
    QStringList verdicts;
    for (int row = 0; row < rows->rowCount(); ++row) {
      const QString type = cell(rows, row, FrameTableModel::Type), summary = cell(rows, row, summary_column());
      ++types[type];
      if (type != "TOKEN_IDS") continue;
      if (summary.startsWith("body: ")) verdicts << summary;
      else spelled[cell(rows, row, FrameTableModel::Stream).toInt()] += summary.section(": ", 1);
    }
    QCOMPARE(types["HTTP_REQUEST"], 3);  // GET /v1/vocab and the two requests
    QCOMPARE(types["HTTP_RESPONSE"], 3);
    QCOMPARE(verdicts, QStringList({"body: 12 ids, 0 padding, aligned", "body: 12 ids, 0 padding, aligned"}));
    QCOMPARE(spelled.size(), std::size_t{2});
    std::size_t i = 0;
    for (const auto& [stream, text] : spelled) QCOMPARE(text, QString::fromStdString(s.requests.at(i++).text));
    QCOMPARE(inspector.index()->connections().at(0).alpn, std::string("h2"));
  }
};

QTEST_MAIN(TestHttpCaptureInspector)
#include "test_http_capture_inspector.moc"
