// Stream-id rules, token-index order, and what a live peer does after each refusal.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include "protocol/frame.h"
#include "protocol/streams.h"

using namespace anthro;

class TestStreams : public QObject {
  Q_OBJECT
 private slots:
  void clientStreamIdsAreOddAndIncreasing() {
    StreamTable table(2);
    QVERIFY(!table.open(1));
    QVERIFY(!table.open(5));  // gaps are allowed
    QVERIFY(table.open(0)->find("stream 0") != std::string::npos);
    QVERIFY(table.open(8)->find("even") != std::string::npos);
    QVERIFY(table.open(3)->find("does not increase") != std::string::npos);
    QVERIFY(table.open(5)->find("does not increase") != std::string::npos);
  }

  void maxStreamsBoundsConcurrency() {
    StreamTable table(2);
    QVERIFY(!table.open(1));
    QVERIFY(!table.open(3));
    auto refused = table.open(5);
    QVERIFY(refused && refused->find("more than 2") != std::string::npos);
    table.close(1);
    QVERIFY(!table.open(7));
    QCOMPARE(table.open_count(), std::size_t{2});
    QVERIFY(table.is_open(7) && !table.is_open(1));
  }

  void tokenIndicesAreContiguous() {
    StreamTable table(4);
    QVERIFY(!table.open(1));
    QCOMPARE(table.on_tokens(1, 0, 1), TokenOrder::InOrder);
    QCOMPARE(table.on_tokens(1, 1, 3), TokenOrder::InOrder);
    QCOMPARE(table.next_token_index(1), 4u);
    QCOMPARE(table.on_tokens(1, 6, 1), TokenOrder::Gap);
    QCOMPARE(table.next_token_index(1), 7u);
    QCOMPARE(table.on_tokens(1, 6, 1), TokenOrder::Duplicate);
    QCOMPARE(table.on_tokens(1, 0xFFFFFFFF, 1), TokenOrder::Gap);  // no overflow of the index
    QCOMPARE(table.on_tokens(9, 0, 1), TokenOrder::InOrder);       // unknown stream: ignored
  }

  void liveActionsFollowTheSpec() {
    for (auto r : {FrameReason::Version, FrameReason::Type, FrameReason::Flags, FrameReason::Reserved,
                   FrameReason::Length, FrameReason::Token})
      QCOMPARE(live_action(r, FrameType::StreamToken), LiveAction::ProtocolErrorAndClose);
    QCOMPARE(live_action(FrameReason::Authentication, FrameType::Request), LiveAction::DropAndCount);
    QCOMPARE(live_action(FrameReason::Body, FrameType::Request), LiveAction::BadRequestOnStream);
    QCOMPARE(live_action(FrameReason::Body, FrameType::Cancel), LiveAction::ReportAndSkip);
    QCOMPARE(live_action(FrameReason::Incomplete, FrameType::Request), LiveAction::Close);
  }
};

QTEST_GUILESS_MAIN(TestStreams)
#include "test_streams.moc"
