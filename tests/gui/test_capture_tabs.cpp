// Capture tabs in the main window: files that are no capture (a PEM key, a key log, junk) are
// refused with a message and no tab or Recent entry, a capture broken after its header opens
// with the reason in the log, two tabs never share a name, keys given with one tab's capture
// do not reload another's, Ctrl+W closes a capture tab, one click on a Recent capture opens
// it, and at 1024×700 the frame list takes most of the tab.
#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QPointer>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeWidget>

#include "capture_inspector.h"
#include "connections_model.h"
#include "frame_detail_view.h"
#include "keys_panel.h"
#include "language.h"
#include "main_window.h"
#include "vectors.h"
#include "welcome_page.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

QString vector_file(const char* name) { return QString::fromStdString(vectors_path(name)); }

int capture_tabs(gui::MainWindow& window) {
  int n = 0;
  for (int i = 0; i < window.tabs()->count(); ++i) n += qobject_cast<CaptureInspector*>(window.tabs()->page(i)) != nullptr;
  return n;
}

bool wait_loaded(CaptureInspector* inspector) {
  QSignalSpy loaded(inspector, &CaptureInspector::loaded);
  return !inspector->loading() || loaded.wait(20000);
}

QStringList recent() { return QSettings().value("files/recent").toStringList(); }

}  // namespace

class TestCaptureTabs : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(data_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toUtf8());  // the endpoint's generated credentials
  }

  void filesThatAreNoCaptureOpenNoTab_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("says");
    QTest::addColumn<bool>("key");
    QTest::newRow("pem") << vector_file("server-static.pem") << "server-static.pem is a PEM key, not a capture" << true;
    QTest::newRow("keylog") << vector_file("lab-conversation.keylog") << "lab-conversation.keylog is a key log, not a capture"
                            << true;
    QTest::newRow("junk") << vector_file("README.md") << "README.md cannot be opened as a capture: " << false;
  }

  void filesThatAreNoCaptureOpenNoTab() {
    QFETCH(QString, path);
    QFETCH(QString, says);
    QFETCH(bool, key);
    gui::MainWindow window;
    window.show();
    const int tabs = window.tabs()->count();
    QCOMPARE(window.openCapture(path), nullptr);
    QCOMPARE(window.tabs()->count(), tabs);
    QVERIFY(!recent().contains(QFileInfo(path).absoluteFilePath()));
    auto* box = window.findChild<QMessageBox*>("notACapture");
    QVERIFY(box && box->isVisible());
    QVERIFY2(box->text().startsWith(says), qPrintable(box->text()));
    QVERIFY(window.logText().contains(says));
    auto* add = box->findChild<QPushButton*>("addAsKey");
    QCOMPARE(add != nullptr, key);
    if (!add) return;
    QTest::mouseClick(add, Qt::LeftButton);
    QVERIFY(window.keysPanel()->keylogs().contains(path) || window.keysPanel()->serverKeys().contains(path));
  }

  // A capture broken after its header still opens, with the reason inline (a file that is no
  // capture at all opens no tab: above).
  void brokenCaptureIsReportedInline() {
    QTemporaryDir dir;
    QString path = dir.filePath("broken.pcap");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QByteArray header = QByteArray::fromHex("d4c3b2a1020004000000000000000000ffff000001000000");
    f.write(header + QByteArray::fromHex("00000000000000002c0100002c010000") + QByteArray(20, 'x'));  // a packet cut short
    f.close();
    gui::MainWindow window;
    CaptureInspector* inspector = window.openCapture(path);
    QVERIFY(inspector);
    QSignalSpy loaded(inspector, &CaptureInspector::loaded);
    QVERIFY(loaded.wait(10000));
    QVERIFY(window.logText().contains("broken.pcap"));
  }

  void twoTabsNeverShareAName() {
    gui::MainWindow window;
    const QString pcap = vector_file("lab-conversation.pcap");
    CaptureInspector* first = window.openCapture(pcap);
    CaptureInspector* second = window.openCapture(pcap);
    CaptureInspector* third = window.openCapture(pcap);
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOfPage(first)), QString("lab-conversation.pcap"));
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOfPage(second)), QString("lab-conversation.pcap (2)"));
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOfPage(third)), QString("lab-conversation.pcap (3)"));
    QVERIFY(wait_loaded(first) && wait_loaded(second) && wait_loaded(third));
    QVERIFY(recent().startsWith(QFileInfo(pcap).absoluteFilePath()));
  }

  void keysGivenWithACaptureDoNotReloadAnother() {
    gui::MainWindow window;
    const QString pcap = vector_file("lab-conversation.pcap");
    CaptureInspector* first = window.openCapture(pcap);
    QVERIFY(wait_loaded(first));
    QSignalSpy first_loads(first, &CaptureInspector::loaded);
    CaptureInspector* second = window.openCapture(pcap, {vector_file("lab-conversation.keylog")});
    QVERIFY(wait_loaded(second));
    QCOMPARE(decryption_text(second->connections()->connections().at(0)), std::string("ok"));
    QTest::qWait(100);
    QCOMPARE(first_loads.size(), 0);
    // A key added on its own does reload the capture shown, which now decrypts.
    window.showPage(first);
    window.keysPanel()->remove(vector_file("lab-conversation.keylog"));
    QTRY_COMPARE_WITH_TIMEOUT(first_loads.size(), 1, 10000);
    QSignalSpy again(first, &CaptureInspector::loaded);
    QVERIFY(window.keysPanel()->addKeylog(vector_file("lab-conversation.keylog")));
    QVERIFY(again.wait(10000));
    QCOMPARE(decryption_text(first->connections()->connections().at(0)), std::string("ok"));
  }

  void ctrlWClosesTheCaptureTabOnly() {
    gui::MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    CaptureInspector* inspector = window.openCapture(vector_file("lab-conversation.pcap"));
    QVERIFY(wait_loaded(inspector));
    QCOMPARE(capture_tabs(window), 1);
    QPointer<CaptureInspector> guard(inspector);
    QTest::keySequence(&window, QKeySequence::Close);
    QCOMPARE(capture_tabs(window), 0);
    QTRY_VERIFY(guard.isNull());
    const int tabs = window.tabs()->count();
    QTest::keySequence(&window, QKeySequence::Close);  // the fixed pages stay
    QCOMPARE(window.tabs()->count(), tabs);
  }

  // With two capture tabs, a shortcut reaches the one shown.
  void shortcutsGoToTheTabShown() {
    gui::MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    CaptureInspector* first = window.openCapture(vector_file("lab-conversation.pcap"));
    CaptureInspector* second = window.openCapture(vector_file("lab-conversation.pcap"));
    QVERIFY(wait_loaded(first) && wait_loaded(second));
    window.showPage(second);
    QTest::keySequence(&window, QKeySequence(Qt::CTRL | Qt::Key_G));
    QVERIFY(second->findChild<QLineEdit*>("goToFrame")->isVisible());
    QVERIFY(!first->findChild<QLineEdit*>("goToFrame")->isVisibleTo(first));
    window.showPage(first);
    QTest::keySequence(&window, QKeySequence::Find);
    QVERIFY(first->filterEdit()->hasFocus());
  }

  void oneClickOnARecentCaptureOpensIt() {
    gui::MainWindow window;
    window.show();
    const QString pcap = QFileInfo(vector_file("lab-conversation.pcap")).absoluteFilePath();
    QVERIFY(wait_loaded(window.openCapture(pcap)));
    auto* welcome = window.findChild<gui::WelcomePage*>();
    window.showPage(welcome);
    QListWidget* list = welcome->recentList();
    QListWidgetItem* item = nullptr;
    for (int i = 0; i < list->count() && !item; ++i)
      if (list->item(i)->data(Qt::UserRole).toString() == pcap) item = list->item(i);
    QVERIFY(item);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
    QCOMPARE(capture_tabs(window), 2);
    QVERIFY(qobject_cast<CaptureInspector*>(window.tabs()->currentPage()));
  }

  // At 1024×700 the frame list gets most of a capture tab, with the docks where they are.
  void theFrameListTakesMostOfTheTabAt1024x700() {
    gui::MainWindow window;
    window.resize(1024, 700);
    window.show();
    CaptureInspector* inspector = window.openCapture(vector_file("lab-conversation.pcap"),
                                                     {vector_file("lab-conversation.keylog")});
    QVERIFY(wait_loaded(inspector));
    QTest::qWait(50);
    // The capture tab asks for no more than fits (the other pages' minimums are theirs).
    QVERIFY(inspector->minimumSizeHint().width() < 1024 / 2);
    QVERIFY(inspector->minimumSizeHint().height() < 700 / 2);
    QVERIFY2(inspector->frameView()->height() > inspector->lowerTabs()->height(),
             qPrintable(QString("%1 vs %2").arg(inspector->frameView()->height()).arg(inspector->lowerTabs()->height())));
    QVERIFY(inspector->lowerTabs()->minimumHeight() < inspector->lowerTabs()->height());
    // Grabs for a person to look at, when asked for.
    if (const QByteArray dir = qgetenv("ANTHRO_GRAB_DIR"); !dir.isEmpty()) {
      window.grab().save(QString::fromUtf8(dir) + "/inspector-1024x700.png");
      inspector->lowerTabs()->setCurrentIndex(3);
      QTest::qWait(20);
      window.grab().save(QString::fromUtf8(dir) + "/inspector-statistics-1024x700.png");
      std::unique_ptr<QMenu> menu(inspector->contextMenuFor(inspector->frames()->index(2, 5)));
      menu->adjustSize();
      menu->grab().save(QString::fromUtf8(dir) + "/inspector-context-menu.png");
      auto* view = inspector->findChild<QToolButton*>("inspectorView");
      view->menu()->adjustSize();
      view->menu()->grab().save(QString::fromUtf8(dir) + "/inspector-view-menu.png");
      window.keysDock()->raise();
      QTest::qWait(20);
      window.grab().save(QString::fromUtf8(dir) + "/inspector-keys-1024x700.png");
    }
  }

  // The status line, a refused filter's notice and the inspector's own controls follow a
  // language switch, in both directions.
  void theInspectorSwitchesLanguage() {
    gui::MainWindow window;
    window.resize(1024, 700);
    window.show();
    CaptureInspector* inspector = window.openCapture(vector_file("lab-conversation.pcap"),
                                                     {vector_file("lab-conversation.keylog")});
    QVERIFY(wait_loaded(inspector));
    inspector->applyFilter("foo:bar");
    QVERIFY(inspector->filterError().startsWith("Filter not applied"));
    auto* view = inspector->findChild<QToolButton*>("inspectorView");
    QCOMPARE(view->text(), QString("View"));
    auto decryption = [inspector] {
      ConnectionsModel* m = inspector->connections();
      return m->data(m->index(0, ConnectionsModel::Decryption), Qt::DisplayRole).toString();
    };
    QCOMPARE(decryption(), QString("ok"));
    gui::install_language("zh_CN");
    QTRY_COMPARE(view->text(), QString::fromUtf8("视图"));
    QCOMPARE(decryption(), QString::fromUtf8("成功"));  // core's state, in the interface's language
    QVERIFY2(inspector->filterError().startsWith(QString::fromUtf8("过滤未应用")), qPrintable(inspector->filterError()));
    QVERIFY2(inspector->filterError().contains(QString::fromUtf8("过滤键")), qPrintable(inspector->filterError()));
    QCOMPARE(inspector->lowerTabs()->tabText(3), QString::fromUtf8("统计"));
    QVERIFY(inspector->detailView()->tree()->topLevelItem(0)->text(0) == QString::fromUtf8("第 1 帧"));
    bool chinese_status = false;
    for (QLabel* label : inspector->findChildren<QLabel*>())
      chinese_status = chinese_status || (label->text().contains("lab-conversation.pcap") && label->text().contains(QString::fromUtf8("帧")));
    QVERIFY(chinese_status);
    if (const QByteArray dir = qgetenv("ANTHRO_GRAB_DIR"); !dir.isEmpty())
      window.grab().save(QString::fromUtf8(dir) + "/inspector-1024x700-zh_CN.png");
    gui::install_language("en");
    QTRY_COMPARE(view->text(), QString("View"));
    QVERIFY(inspector->filterError().startsWith("Filter not applied"));
  }

 private:
  QTemporaryDir data_;
};

QTEST_MAIN(TestCaptureTabs)
#include "test_capture_tabs.moc"
