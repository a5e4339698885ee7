// The frame table shows what the decoder reported, and never a secret.
#include <QtTest>

#include "crypto/keylog.h"
#include "frame_table_model.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using anthro::widgets::FrameTableModel;

class TestFrameTableModel : public QObject {
  Q_OBJECT
 private slots:
  void showsTheVectorConversation() {
    FrameTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    KeyRing ring;
    ring.add(parse_keylog(read_file(vectors_path("lab-conversation.keylog")), "lab.keylog"));
    ConnectionDecoder decoder(ring, {nullptr, [&](const FrameEvent& e) { model.append(e); }, nullptr});
    const auto& conv = vectors()["conversation"];
    decoder.feed(Direction::ClientToServer, hex(conv["client_to_server"]));
    decoder.feed(Direction::ServerToClient, hex(conv["server_to_client"]));
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.data(model.index(0, FrameTableModel::Type), Qt::DisplayRole).toString(), QString("REQUEST"));
    QCOMPARE(model.data(model.index(1, FrameTableModel::Status), Qt::DisplayRole).toString(), QString("ok"));
    QCOMPARE(model.data(model.index(1, FrameTableModel::Direction), Qt::DisplayRole).toString(), QString("s2c"));
    QVERIFY(model.data(model.index(1, FrameTableModel::Summary), Qt::DisplayRole).toString().contains("\"Hello"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void redactsApiKeyAndShowsRefusals() {
    FrameTableModel model;
    Aead aead(Suite::Aes256Gcm, vector_keys().c2s);
    NonceSequence nonces;
    RequestSpec spec;
    spec.model = "m";
    spec.messages = {{"user", "hi"}};
    spec.api_key = "sk-ant-very-secret";
    Bytes frame = seal_frame(aead, FrameType::Request, 1, vector_token(), nonces.next(), encode_request(1, spec));
    Bytes broken = frame;
    broken.back() ^= 1;
    DirectionDecoder decoder(Direction::ClientToServer, PrefaceMode::None,
                             DecoderEvents{nullptr, [&](const FrameEvent& e) { model.append(e); }, nullptr}, nullptr);
    decoder.set_key({Suite::Aes256Gcm, vector_keys().c2s});
    decoder.feed(frame);
    decoder.feed(broken);
    QCOMPARE(model.rowCount(), 2);
    for (int row = 0; row < 2; ++row)
      for (int col = 0; col < model.columnCount(); ++col)
        QVERIFY(!model.data(model.index(row, col), Qt::DisplayRole).toString().contains("very-secret"));
    QVERIFY(model.data(model.index(0, FrameTableModel::Summary), Qt::DisplayRole).toString().contains("***"));
    QVERIFY(model.data(model.index(1, FrameTableModel::Status), Qt::DisplayRole).toString().startsWith("authentication"));
    QVERIFY(model.data(model.index(1, FrameTableModel::Status), Qt::ForegroundRole).isValid());
  }
};

QTEST_MAIN(TestFrameTableModel)
#include "test_frame_table_model.moc"
