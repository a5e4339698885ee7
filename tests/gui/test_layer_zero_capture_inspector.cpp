// A Layer Zero session (tool calls on, cut once and resumed) captured on lo and opened
// in the inspector: a row per frame the live client traced, in its direction with its type and
// sequence id; the connections list names the profile; `type:` filters on the spec's names; the
// SESSION_ACK's token is named by its fingerprint and masked in the hex view.
#include <QByteArray>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include <QTableView>

#include "capture_inspector.h"
#include "connection_detail_view.h"
#include "connections_model.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "hex_view.h"
#include "lz_capture.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

QString cell(FrameTableModel* m, int row, int column) { return m->data(m->index(row, column), Qt::DisplayRole).toString(); }

bool wait_loaded(CaptureInspector& inspector) {
  for (int i = 0; i < 500 && inspector.loading(); ++i) QTest::qWait(20);
  return !inspector.loading();
}

// (direction, type word, Stream cell) of a connection's frames, as the client traced them.
using Shown = std::tuple<QString, QString, QString>;

std::vector<Shown> traced(const lz::ConnectionTrace& c) {
  std::vector<Shown> out;
  for (const auto& f : c.frames)
    out.emplace_back(f.dir == Direction::ClientToServer ? "C → S" : "S → C", QString::fromLatin1(lz::to_string(f.type)),
                     f.sequence_id ? QString::number(f.sequence_id) : QString());
  return out;
}

// The same read back from the table's cells, for connection number `conn` (from 1). The trace
// lists both directions in the order they arrived, so each direction is compared on its own.
std::vector<Shown> shown(FrameTableModel* m, int conn, const QString& dir) {
  std::vector<Shown> out;
  for (int row = 0; row < m->rowCount(); ++row)
    if (cell(m, row, FrameTableModel::Connection) == QString::number(conn) && cell(m, row, FrameTableModel::Direction) == dir)
      out.emplace_back(dir, cell(m, row, FrameTableModel::Type), cell(m, row, FrameTableModel::Stream));
  return out;
}

std::vector<Shown> of_direction(std::vector<Shown> all, const QString& dir) {
  std::erase_if(all, [&](const Shown& s) { return std::get<0>(s) != dir; });
  return all;
}

int row_of(FrameTableModel* m, int conn, const QString& type) {
  for (int row = 0; row < m->rowCount(); ++row)
    if (cell(m, row, FrameTableModel::Connection) == QString::number(conn) && cell(m, row, FrameTableModel::Type) == type)
      return row;
  return -1;
}

}  // namespace

class TestLayerZeroCaptureInspector : public QObject {
  Q_OBJECT
 private slots:
  void framesAreRowsWithTheirFields() {
    LzCaptured run = capture_lz_run({{"lz-cut=3"}, false, true});
    QVERIFY2(run.live.complete, run.live.detail.c_str());
    QCOMPARE(run.live.trace.size(), std::size_t{2});
    CaptureInspector inspector;
    inspector.resize(1600, 1000);
    inspector.show();
    inspector.open(QString::fromStdString(run.capture), run.keys());
    QVERIFY(wait_loaded(inspector));
    FrameTableModel* rows = inspector.frames();

    int traced_frames = 0, tool_calls = 0;
    for (const auto& c : run.live.trace) {
      traced_frames += static_cast<int>(c.frames.size());
      for (const auto& f : c.frames) tool_calls += f.type == lz::PayloadType::ToolCall;
    }
    QCOMPARE(rows->rowCount(), traced_frames);
    for (int conn = 1; conn <= 2; ++conn)
      for (QString dir : {QString("C → S"), QString("S → C")})
        QCOMPARE(shown(rows, conn, dir), of_direction(traced(run.live.trace[conn - 1]), dir));

    // The connections list: the profile each was read as, and its frames.
    ConnectionsModel* cm = inspector.connections();
    QCOMPARE(cm->rowCount(), 2);
    for (int c = 0; c < 2; ++c) {
      QCOMPARE(cm->data(cm->index(c, ConnectionsModel::Profile), Qt::DisplayRole).toString(), QString("Layer Zero"));
      QCOMPARE(cm->data(cm->index(c, ConnectionsModel::Frames), Qt::DisplayRole).toInt(),
               static_cast<int>(run.live.trace[static_cast<std::size_t>(c)].frames.size()));
    }

    const auto conns = inspector.index()->connections();
    inspector.connectionDetail()->showConnection(conns.at(0));
    const QString name = QString::fromStdString(conns[0].name);
    QCOMPARE(inspector.connectionDetail()->value(name, "profile"), QString("Layer Zero"));
    QCOMPARE(inspector.connectionDetail()->value(name, "frames"), QString::number(run.live.trace[0].frames.size()));

    // The first connection's SESSION_ACK: its fields, the token by fingerprint, masked bytes.
    const int ack = row_of(rows, 1, "SESSION_ACK");
    QVERIFY(ack >= 0);
    inspector.frameView()->selectRow(ack);
    const QString ack_token = inspector.detailView()->fieldValue("session_token");
    QVERIFY2(ack_token.startsWith("64 bytes, sha256 "), qPrintable(ack_token));
    QCOMPARE(inspector.detailView()->fieldValue("last_client_sequence_id"), QString("0"));
    QVERIFY(inspector.detailView()->fieldValue("crc32c").endsWith("(matches)"));
    const lz::SessionToken& token = run.live.trace[0].ack->token;
    const QByteArray token_bytes(reinterpret_cast<const char*>(token.data()), static_cast<qsizetype>(token.size()));
    QCOMPARE(inspector.hexView()->bytes().size(), 8 + 76 + 4);
    QVERIFY(!inspector.hexView()->bytes().contains(token_bytes));
    QVERIFY(inspector.detailView()->selectField("session_token"));
    QCOMPARE(inspector.hexView()->highlight(), (std::pair<qsizetype, qsizetype>{8, 72}));
    QCOMPARE(cell(rows, ack, summary_column()).left(23), QString("last client #0, token 6"));

    // The Type column's words filter; a TOOL_CALL's name and JSON arguments.
    inspector.applyFilter("type:tool_call");
    QTRY_VERIFY(!inspector.filtering());
    QCOMPARE(rows->rowCount(), tool_calls);
    QVERIFY(tool_calls > 0);
    inspector.frameView()->selectRow(0);
    QCOMPARE(inspector.detailView()->fieldValue("name"), QString("get_weather"));
    inspector.applyFilter("type:SESSION_INIT conn:2");
    QTRY_VERIFY(!inspector.filtering());
    QCOMPARE(rows->rowCount(), 1);
    QCOMPARE(cell(rows, 0, FrameTableModel::Type), QString("SESSION_INIT"));
    inspector.frameView()->selectRow(0);
    QCOMPARE(inspector.detailView()->fieldValue("session_token"), ack_token);  // the token the ACK issued
    QCOMPARE(inspector.detailView()->fieldValue("last_server_sequence_id"),
             QString::number(run.live.trace[1].init->resume->last_server_sequence_id));

    if (QByteArray shots = qgetenv("ANTHRO_TEST_SHOTS"); !shots.isEmpty()) {
      inspector.applyFilter("");
      QTRY_COMPARE(rows->rowCount(), traced_frames);
      const int call = row_of(rows, 1, "TOOL_CALL");
      inspector.frameView()->selectRow(call);
      QTest::qWait(300);
      inspector.grab().save(QString::fromUtf8(shots) + "/layer-zero-inspector.png");
    }
  }
};

QTEST_MAIN(TestLayerZeroCaptureInspector)
#include "test_layer_zero_capture_inspector.moc"
