// The keys panel: what each key file holds, which connections it opens, bad files refused with
// their reason, and key logs re-read when they grow.
#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <QPushButton>
#include <QTreeWidget>

#include "crypto/key_schedule.h"
#include "keys_panel.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using anthro::widgets::KeysPanel;

namespace {

QTreeWidgetItem* item(KeysPanel& panel, const QString& text) {
  auto found = panel.tree()->findItems(text, Qt::MatchContains | Qt::MatchRecursive, 0);
  return found.isEmpty() ? nullptr : found.first();
}

CaptureConnection connection_with_token(const std::string& name, std::uint64_t token, const Key32& server_public) {
  CaptureConnection c;
  c.name = name;
  Blob offer, answer;
  offer.connection_token = token;
  answer.connection_token = token;
  answer.x25519_public = server_public;
  c.offer = offer;
  c.answer = answer;
  return c;
}

}  // namespace

class TestKeysPanel : public QObject {
  Q_OBJECT
 private slots:
  void keysAndTheConnectionsTheyOpen() {
    KeysPanel panel;
    QSignalSpy changed(&panel, &KeysPanel::keysChanged);
    QVERIFY(panel.addKeylog(QString::fromStdString(vectors_path("lab-conversation.keylog"))));
    QVERIFY(panel.addServerKey(QString::fromStdString(vectors_path("server-static.pem"))));
    QCOMPARE(changed.size(), 2);
    QCOMPARE(item(panel, "lab-conversation.keylog")->text(1), QString("1 ANTHRO_V1, 0 TLS secrets"));

    auto pem = read_file(vectors_path("server-static.pem"));
    Key32 server_public = x25519_public_from_private(*load_x25519_private_pem(pem, "pem"));
    panel.showCapture("/tmp/x.pcap",
                      {connection_with_token("10.0.0.1:1-10.0.0.2:2", vector_token(), server_public),
                       connection_with_token("10.0.0.1:3-10.0.0.2:2", 42, Key32{})},
                      {});
    QTreeWidgetItem* log = item(panel, "lab-conversation.keylog");
    QCOMPARE(log->childCount(), 1);
    QCOMPARE(log->child(0)->text(0), QString("10.0.0.1:1-10.0.0.2:2"));
    QCOMPARE(log->text(2), QString("opens 1 connection"));
    QTreeWidgetItem* key = item(panel, "server-static.pem");
    QCOMPARE(key->childCount(), 1);  // the answer carrying its public key
    QVERIFY(item(panel, "x.pcap (DSB)"));
  }

  void theTokenOpensBothConnectionsInPlural() {
    KeysPanel panel;
    QVERIFY(panel.addKeylog(QString::fromStdString(vectors_path("lab-conversation.keylog"))));
    panel.showCapture("/tmp/x.pcap",
                      {connection_with_token("10.0.0.1:1-10.0.0.2:2", vector_token(), Key32{}),
                       connection_with_token("10.0.0.1:3-10.0.0.2:2", vector_token(), Key32{})},
                      {});
    QCOMPARE(item(panel, "lab-conversation.keylog")->text(2), QString("opens 2 connections"));
  }

  // The panel's own buttons: the key files selected go, the others stay; DSB rows cannot.
  void removeTheSelectedKeyFiles() {
    KeysPanel panel;
    const QString keylog = QString::fromStdString(vectors_path("lab-conversation.keylog"));
    const QString pem = QString::fromStdString(vectors_path("server-static.pem"));
    QVERIFY(panel.addKeylog(keylog));
    QVERIFY(panel.addServerKey(pem));
    panel.showCapture("/tmp/x.pcap", {}, {"# an embedded key log\n"});
    QVERIFY(panel.addKeylogButton()->isEnabled());
    QVERIFY(panel.addServerKeyButton()->isEnabled());
    QVERIFY(!panel.removeButton()->isEnabled());
    item(panel, "block 1")->setSelected(true);
    QVERIFY(!panel.removeButton()->isEnabled());
    panel.tree()->clearSelection();
    item(panel, "lab-conversation.keylog")->setSelected(true);
    QVERIFY(panel.removeButton()->isEnabled());
    QSignalSpy changed(&panel, &KeysPanel::keysChanged);
    QTest::mouseClick(panel.removeButton(), Qt::LeftButton);
    QCOMPARE(changed.size(), 1);
    QVERIFY(panel.keylogs().isEmpty());
    QCOMPARE(panel.serverKeys(), QStringList{pem});
    QVERIFY(!item(panel, "lab-conversation.keylog"));
    QVERIFY(item(panel, "server-static.pem"));
    QVERIFY(!panel.removeButton()->isEnabled());
  }

  void badFilesAreRefusedWithTheirReason() {
    KeysPanel panel;
    QSignalSpy messages(&panel, &KeysPanel::message);
    QVERIFY(!panel.addKeylog("/no/such/keylog"));
    QVERIFY(messages.last().at(0).toString().contains("/no/such/keylog"));
    // A key log with junk lines is kept; each bad line is named.
    QTemporaryDir dir;
    QString junk = dir.filePath("junk.log");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("ANTHRO_V1 nothex\n\x01\x02\x03 binary\n");
    f.close();
    QVERIFY(panel.addKeylog(junk));
    QVERIFY(messages.last().at(0).toString().contains("junk.log"));
    // A key log is not a PEM key.
    QVERIFY(!panel.addServerKey(QString::fromStdString(vectors_path("lab-conversation.keylog"))));
    QVERIFY(messages.last().at(0).toString().contains("lab-conversation.keylog"));
    QCOMPARE(panel.serverKeys().size(), 0);
  }

  void aGrowingKeyLogIsReadAgain() {
    QTemporaryDir dir;
    QString path = dir.filePath("session.keylog");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    KeysPanel panel;
    QVERIFY(panel.addKeylog(path));
    QCOMPARE(item(panel, "session.keylog")->text(1), QString("0 ANTHRO_V1, 0 TLS secrets"));
    QSignalSpy changed(&panel, &KeysPanel::keysChanged);
    QVERIFY(f.open(QIODevice::Append));
    f.write(QByteArray::fromStdString(read_file(vectors_path("lab-conversation.keylog"))));
    f.close();
    QVERIFY(changed.wait(5000));
    QCOMPARE(item(panel, "session.keylog")->text(1), QString("1 ANTHRO_V1, 0 TLS secrets"));
  }
};

QTEST_MAIN(TestKeysPanel)
#include "test_keys_panel.moc"
