// The frame table over a capture index: the vector conversation's rows, lazy growth while the
// index loads (rows inserted, never a reset), filtered selections, and no secret in any cell.
#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <QFloat16>
#include <QObject>
#include <QSignalSpy>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

#include "capture_generator.h"
#include "frame_table_model.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using anthro::widgets::first_profile_column;
using anthro::widgets::FrameTableModel;
using anthro::widgets::summary_column;

namespace {

std::shared_ptr<CaptureIndex> load(const std::string& path) {
  auto index = CaptureIndex::create();
  if (!index) qFatal("%s", index.error().detail.c_str());
  if (!(*index)->load(path, {{vectors_path("lab-conversation.keylog")}, {}})) qFatal("load failed");
  return *index;
}

QString cell(const FrameTableModel& m, int row, int column) {
  return m.data(m.index(row, column), Qt::DisplayRole).toString();
}

}  // namespace

class TestFrameTableModel : public QObject {
  Q_OBJECT
 private slots:
  void showsTheVectorConversation() {
    FrameTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setIndex(load(vectors_path("lab-conversation.pcap")));
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(cell(model, 0, FrameTableModel::Type), QString("REQUEST"));
    QCOMPARE(cell(model, 1, FrameTableModel::Type), QString("STREAM_TOKEN"));
    QCOMPARE(cell(model, 1, FrameTableModel::Direction), QString("S → C"));
    QCOMPARE(cell(model, 1, FrameTableModel::Stream), QString("1"));
    QCOMPARE(cell(model, 1, FrameTableModel::Tokens), QString("1"));
    QVERIFY(cell(model, 1, summary_column()).contains("\"Hello\""));
    QCOMPARE(cell(model, 0, FrameTableModel::Time), QString("0.000000"));
    QCOMPARE(cell(model, 5, FrameTableModel::Type), QString("RESPONSE"));
    model.setIndex(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void growsByInsertingRowsWhileLoading() {
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(6, 60, 60));
    auto index = *CaptureIndex::create();
    FrameTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    model.setIndex(index);
    resets.clear();
    bool loaded_ok = false;
    std::thread loader([&] { loaded_ok = static_cast<bool>(index->load(path, {{vectors_path("lab-conversation.keylog")}, {}})); });
    while (!index->finished()) model.poll();
    loader.join();
    QVERIFY(loaded_ok);
    model.poll();
    QCOMPARE(model.rowCount(), 6 * 60 * 62);
    QCOMPARE(resets.size(), 0);
    QVERIFY(inserts.size() >= 1);
    // A filtered view maps rows to frame numbers and back.
    FrameFilter f;
    f.type = to_string(FrameType::Response);
    model.setSelection(index->select(f));
    QCOMPARE(model.rowCount(), 6 * 60);
    QCOMPARE(cell(model, 0, FrameTableModel::Type), QString("RESPONSE"));
    std::size_t frame = model.frameAt(10);
    QCOMPARE(model.rowOf(frame), 10);
    QCOMPARE(model.rowOf(frame + 1), -1);  // a token frame: hidden
    QCOMPARE(cell(model, 10, FrameTableModel::Number), QString::number(frame + 1));
    model.setSelection(std::nullopt);
    QCOMPARE(model.rowCount(), 6 * 60 * 62);
  }

  void noSecretInAnyCell() {
    QTemporaryDir dir;
    std::string path = dir.filePath("key.pcap").toStdString();
    write_capture(path, many_connections(1, 2, 3, std::string("sk-ant-very-secret")));
    FrameTableModel model;
    model.setIndex(load(path));
    QVERIFY(model.rowCount() > 0);
    bool saw_request = false;
    for (int row = 0; row < model.rowCount(); ++row)
      for (int c = 0; c < first_profile_column(); ++c)
        for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
          QString text = model.data(model.index(row, c), role).toString();
          QVERIFY2(!text.contains("sk-ant"), qPrintable(text));
          saw_request = saw_request || text.contains("***");
        }
    QVERIFY(saw_request);
  }
};

QTEST_MAIN(TestFrameTableModel)
#include "test_frame_table_model.moc"
