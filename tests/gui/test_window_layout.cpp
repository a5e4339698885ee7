// The main window on a laptop screen (1024×700, 1366×768) in English and 简体中文: every page
// fits, no text of a visible label, button, check box or combo box is cut, and toggling a dock
// does not grow the window. Also the GUI's Start capture (a real capture on lo, opened in the
// inspector), the session page's recent targets and its persistent connection error.
#include <QElapsedTimer>
#include <QFile>
#include <QFloat16>
#include <QList>
#include <QObject>
#include <QRect>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTableView>
#include <QTabWidget>

#include <unistd.h>

#include "capture_dialog.h"
#include "report_dialog.h"
#include "capture_helper_env.h"
#include "capture_inspector.h"
#include "diagnosis_page.h"
#include "frame_table_model.h"
#include "rollout_page.h"
#include "language.h"
#include "main_window.h"
#include "session_panel.h"
#include "vectors.h"
#include "data_home.h"
#include "scale_suite.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

bool wait_loaded(CaptureInspector* inspector, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (inspector->loading() && t.elapsed() < timeout_ms) QTest::qWait(20);
  return !inspector->loading();
}

QString where(const QWidget* w) {
  QString path;
  for (const QWidget* p = w; p; p = p->parentWidget())
    path.prepend("/" + QString::fromLatin1(p->metaObject()->className()) +
                 (p->objectName().isEmpty() ? QString() : "#" + p->objectName()));
  return path;
}

// Texts a visible widget of `root` shows cut short, one line each ("where: text (needs N px, has M)").
QStringList clipped_texts(QWidget* root) {
  QStringList out;
  auto visible = [root](const QWidget* w) { return w->isVisibleTo(root) && w->width() > 0; };
  for (auto* label : root->findChildren<QLabel*>()) {
    if (!visible(label) || label->wordWrap() || label->text().isEmpty() || Qt::mightBeRichText(label->text())) continue;
    int need = 0;
    QString shown = label->text();
    if (label->buddy()) shown.replace(QRegularExpression("&(.)"), "\\1");  // a mnemonic's & is not drawn
    for (const QString& line : shown.split('\n'))
      need = std::max(need, label->fontMetrics().horizontalAdvance(line));
    int has = label->contentsRect().width() - 2 * label->margin() - label->indent();
    if (need > has + 1)
      out << QString("%1: \"%2\" needs %3 px, has %4").arg(where(label), label->text()).arg(need).arg(has);
  }
  for (auto* button : root->findChildren<QAbstractButton*>()) {
    if (!visible(button) || button->text().isEmpty()) continue;
    if (!qobject_cast<QPushButton*>(button) && !qobject_cast<QCheckBox*>(button)) continue;
    if (button->sizeHint().width() > button->width() + 1)
      out << QString("%1: \"%2\" needs %3 px, has %4")
                 .arg(where(button), button->text())
                 .arg(button->sizeHint().width())
                 .arg(button->width());
  }
  for (auto* combo : root->findChildren<QComboBox*>()) {
    if (!visible(combo) || combo->isEditable() || combo->currentText().isEmpty()) continue;
    QStyleOptionComboBox opt;
    opt.initFrom(combo);
    opt.editable = false;
    QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
    // Every item, not only the current one: the one picked later must fit as well.
    for (int i = 0; i < combo->count(); ++i) {
      int need = combo->fontMetrics().horizontalAdvance(combo->itemText(i));
      if (need > field.width() + 1)
        out << QString("%1: item \"%2\" needs %3 px, has %4 (w %5 min %6)").arg(where(combo), combo->itemText(i)).arg(need).arg(field.width()).arg(combo->width()).arg(combo->minimumWidth());
    }
  }
  // One-line fields squeezed in height cut their text too.
  for (auto* field : root->findChildren<QWidget*>()) {
    if (!visible(field) || !(qobject_cast<QLineEdit*>(field) || qobject_cast<QAbstractSpinBox*>(field) ||
                             qobject_cast<QComboBox*>(field) || qobject_cast<QPushButton*>(field)))
      continue;
    if (qobject_cast<QLineEdit*>(field) && (qobject_cast<QComboBox*>(field->parentWidget()) ||
                                            qobject_cast<QAbstractSpinBox*>(field->parentWidget())))
      continue;  // the combo's or spin box's own editor
    if (field->height() < field->sizeHint().height() - 1)
      out << QString("%1: %2 px high, needs %3").arg(where(field)).arg(field->height()).arg(field->sizeHint().height());
  }
  for (auto* box : root->findChildren<QGroupBox*>()) {
    if (!visible(box) || box->title().isEmpty()) continue;
    int need = box->fontMetrics().horizontalAdvance(box->title()) + (box->isCheckable() ? 24 : 0);
    if (need > box->width())
      out << QString("%1: title \"%2\" needs %3 px, has %4").arg(where(box), box->title()).arg(need).arg(box->width());
  }
  return out;
}

// The chain of widgets that sets `root`'s minimum width, widest first at each level: what a
// failure names.
QString widest_chain(QWidget* root) {
  QString out;
  for (QWidget* w = root; w;) {
    out += QString("\n  %1 min %2").arg(where(w)).arg(w->minimumSizeHint().width());
    QWidget* next = nullptr;
    for (auto* c : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
      if (c->isVisibleTo(w) && (!next || c->minimumSizeHint().width() > next->minimumSizeHint().width())) next = c;
    w = next;
  }
  return out;
}

}  // namespace

class TestWindowLayout : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(data_.set()); }

  void cleanup() { gui::install_language("en"); }

  // The layout check (TestWindowLayoutScale) sees a cut text when there is one.
  void theClipCheckSeesCutTexts() {
    QWidget root;
    auto* label = new QLabel("a text far too long for its place", &root);
    auto* button = new QPushButton("a button far too long for its place", &root);
    auto* combo = new QComboBox(&root);
    combo->addItems({"short", "an item far too long for its place"});
    for (QWidget* w : std::initializer_list<QWidget*>{label, button, combo}) w->setGeometry(0, 0, 60, 30);
    root.show();
    QCOMPARE(clipped_texts(&root).size(), 3);
    for (QWidget* w : std::initializer_list<QWidget*>{label, button, combo}) w->setGeometry(0, 0, 600, 30);
    QCOMPARE(clipped_texts(&root), QStringList());
  }

  // Session → Start Capture…: a capture on lo while the embedded endpoint answers, stopped,
  // opens in a tab with its packets.
  void startCaptureOpensTheCapture() {
    gui::MainWindow window;
    window.resize(1024, 700);
    window.show();
    CaptureDialog* dialog = window.startCapture();
    QVERIFY(dialog && dialog->isVisible());
    QVERIFY2(dialog->width() <= 1024, qPrintable(QString::number(dialog->width())));
    QTRY_VERIFY2_WITH_TIMEOUT(clipped_texts(dialog).isEmpty(), qPrintable(clipped_texts(dialog).join('\n')), 3000);
    const QString port = window.endpointUrl("anthro+lab").section(':', -1);
    const QString out = data_.filePath("gui-capture.pcapng");
    dialog->setInterface("lo");
    dialog->setFilter("tcp port " + port);
    dialog->setOutput(out);
    QCOMPARE(dialog->commandLine(), "anthro-wb capture --interface lo --filter 'tcp port " + port + "' --output " + out);
    QSignalSpy captured(dialog, &CaptureDialog::captured);
    QVERIFY(dialog->start());
    QTRY_VERIFY_WITH_TIMEOUT(dialog->state() != CaptureDialog::State::Starting, 10000);
    if (dialog->state() == CaptureDialog::State::Idle) QFAIL(qPrintable("capture failed: " + dialog->status()));
    QCOMPARE(dialog->state(), CaptureDialog::State::Capturing);
    SessionPanel* panel = window.sessionPanel();
    panel->setTarget(window.endpointUrl("anthro+lab"));
    QSignalSpy finished(panel, &SessionPanel::sessionFinished);
    QVERIFY(panel->send());
    QVERIFY(finished.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(dialog->progress().packets >= 6, 5000);  // the counts move while it runs
    QVERIFY(dialog->progress().bytes > 0);
    if (QString grabs = qEnvironmentVariable("ANTHRO_LAYOUT_GRABS"); !grabs.isEmpty())
      dialog->grab().save(grabs + "/capture-dialog-running.png");
    dialog->stop();
    QVERIFY(captured.wait(10000) || !captured.isEmpty());
    QCOMPARE(captured.at(0).at(0).toString(), out);
    CaptureInspector* inspector = window.currentInspector();
    QVERIFY(inspector);
    QCOMPARE(inspector->path(), out);
    QVERIFY(wait_loaded(inspector, 20000));
    QVERIFY2(inspector->frames()->rowCount() > 0, "no frames in the capture");
  }

  // A bad interface is refused in the dialog, naming it; nothing opens.
  void aCaptureThatCannotStartSaysWhy() {
    gui::MainWindow window;
    CaptureDialog* dialog = window.startCapture();
    dialog->setInterface("no-such-if0");
    dialog->setOutput(data_.filePath("never.pcapng"));
    QSignalSpy captured(dialog, &CaptureDialog::captured);
    QVERIFY(dialog->start());
    QTRY_COMPARE_WITH_TIMEOUT(dialog->state(), CaptureDialog::State::Idle, 10000);
    QVERIFY2(dialog->status().contains("no-such-if0"), qPrintable(dialog->status()));
    if (QString grabs = qEnvironmentVariable("ANTHRO_LAYOUT_GRABS"); !grabs.isEmpty())
      dialog->grab().save(grabs + "/capture-dialog-error.png");
    QVERIFY(captured.isEmpty());
    QVERIFY(!QFile::exists(data_.filePath("never.pcapng")));
    // A filter libpcap cannot compile is named with its reason.
    dialog->setInterface("lo");
    dialog->setFilter("tcp prot 80");
    QVERIFY(dialog->start());
    QTRY_COMPARE_WITH_TIMEOUT(dialog->state(), CaptureDialog::State::Idle, 10000);
    QVERIFY2(dialog->status().startsWith("capture filter \"tcp prot 80\": "), qPrintable(dialog->status()));
    QVERIFY(captured.isEmpty());
    QVERIFY(!QFile::exists(data_.filePath("never.pcapng")));
  }

  // A capture helper without its capabilities (run as nobody when the test is root, as on a
  // machine where the .deb's setcap never ran): the dialog says why (pcap's error) and the
  // command that grants them, not a command line that would fail the same way.
  void aCaptureWithoutPermissionSaysWhatGrantsIt() {
    gui::MainWindow window;
    CaptureDialog* dialog = window.startCapture();
    dialog->setInterface("lo");
    dialog->setOutput(data_.filePath("denied.pcapng"));
    UnprivilegedHelper helper;
    QVERIFY(dialog->start());
    QTRY_COMPARE_WITH_TIMEOUT(dialog->state(), CaptureDialog::State::Idle, 10000);
    QVERIFY2(dialog->status().startsWith("This account may not capture"), qPrintable(dialog->status()));
    QVERIFY2(dialog->status().contains("not permitted ("), qPrintable(dialog->status()));  // with pcap's reason
    QVERIFY2(dialog->status().contains("setcap cap_net_raw,cap_net_admin+eip /"), qPrintable(dialog->status()));
    QVERIFY(!dialog->status().contains(" -i "));
    QVERIFY(!QFile::exists(data_.filePath("denied.pcapng")));
  }

  // The embedded endpoint's URLs change with every start: they are never kept as recent
  // targets, and those a previous start left are dropped.
  void recentTargetsForgetTheEmbeddedPorts() {
    QString old_anthro;
    {
      gui::MainWindow window;
      old_anthro = window.endpointUrl("anthro");
      SessionPanel* panel = window.sessionPanel();
      panel->setTarget(old_anthro);
      QSignalSpy finished(panel, &SessionPanel::sessionFinished);
      QVERIFY(panel->send());
      QVERIFY(finished.wait(30000));
      QVERIFY(!panel->recentTargets().contains(old_anthro));
      panel->setTarget("anthro+lab://127.0.0.1:1");
      QVERIFY(panel->send());
      QVERIFY(finished.wait(30000));
      QCOMPARE(panel->recentTargets().value(0), QString("anthro+lab://127.0.0.1:1"));
    }
    // An older version kept them: the next start removes them.
    QSettings().setValue("session/recentTargets", QStringList{old_anthro, "anthro+lab://127.0.0.1:1"});
    gui::MainWindow window;
    SessionPanel* panel = window.sessionPanel();
    QCOMPARE(panel->recentTargets(), QStringList{"anthro+lab://127.0.0.1:1"});
    QComboBox* combo = nullptr;  // the target list: the editable combo of the page
    for (auto* c : panel->findChildren<QComboBox*>())
      if (c->isEditable()) combo = c;
    QVERIFY(combo);
    QCOMPARE(combo->findText(old_anthro), -1);
    QCOMPARE(combo->itemText(0), window.endpointUrl("anthro"));
  }

  // "Connection refused" stays on the session page until the next Send.
  void aFailedConnectionStaysOnThePage() {
    gui::MainWindow window;
    SessionPanel* panel = window.sessionPanel();
    panel->setTarget("anthro+lab://127.0.0.1:1");
    QSignalSpy finished(panel, &SessionPanel::sessionFinished);
    QVERIFY(panel->send());
    QVERIFY(finished.wait(30000));
    QVERIFY2(panel->sessionError().contains("127.0.0.1:1"), qPrintable(panel->sessionError()));
    QTest::qWait(200);
    QVERIFY(!panel->sessionError().isEmpty());
    panel->setTarget(window.endpointUrl("anthro+lab"));
    QVERIFY(panel->send());
    QVERIFY(panel->sessionError().isEmpty());
    QVERIFY(finished.wait(30000));
    QVERIFY(panel->sessionError().isEmpty());
  }

  // Qt's own texts follow the interface's language too (a message box's standard buttons,
  // file dialogs): 简体中文 loads Qt's own translation beside the workbench's.
  void qtsOwnTextsFollowTheLanguage() {
    gui::install_language("zh_CN");
    {
      QMessageBox box(QMessageBox::Question, "t", "t", QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
      QCOMPARE(box.button(QMessageBox::Save)->text(), QString::fromUtf8("保存"));
      QCOMPARE(box.button(QMessageBox::Cancel)->text(), QString::fromUtf8("取消"));
    }
    gui::install_language("en");
    QMessageBox box(QMessageBox::Question, "t", "t", QMessageBox::Save);
    QCOMPARE(box.button(QMessageBox::Save)->text(), QString("Save"));
  }

  // Every dialog on a laptop: inside the window, its buttons in view, no text cut.
  void everyDialogFitsALaptop_data() {
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("screen");
    for (const char* lang : {"en", "zh_CN"})
      for (QSize s : {QSize(1024, 700), QSize(1366, 768)})
        QTest::addRow("%s %dx%d", lang, s.width(), s.height()) << QString(lang) << s;
  }
  void everyDialogFitsALaptop() {
    QFETCH(QString, language);
    QFETCH(QSize, screen);
    gui::install_language(language);
    gui::MainWindow window;
    window.resize(screen);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    CaptureInspector* capture = window.openCapture(QString::fromStdString(test::vectors_path("lab-conversation.pcap")));
    QVERIFY(wait_loaded(capture, 20000));
    const QList<QWidget*> dialogs = {static_cast<QWidget*>(window.exportReport(capture)), static_cast<QWidget*>(window.startCapture())};
    for (QWidget* dialog : dialogs) {
      QVERIFY(dialog);
      QVERIFY(QTest::qWaitForWindowExposed(dialog));
      const QString name = QString::fromLatin1(dialog->metaObject()->className());
      const QRect room = window.frameGeometry();
      QVERIFY2(dialog->width() <= room.width() && dialog->height() <= room.height(),
               qPrintable(QString("%1 is %2x%3 in a %4x%5 window").arg(name).arg(dialog->width()).arg(dialog->height()).arg(room.width()).arg(room.height())));
      int buttons = 0;
      for (auto* button : dialog->findChildren<QPushButton*>()) {
        if (!button->isVisibleTo(dialog)) continue;
        ++buttons;
        const QRect at(button->mapTo(dialog, QPoint(0, 0)), button->size());
        QVERIFY2(dialog->rect().contains(at), qPrintable(QString("%1: \"%2\" at %3,%4 is outside the %5x%6 dialog")
                                                          .arg(name, button->text()).arg(at.x()).arg(at.y()).arg(dialog->width()).arg(dialog->height())));
      }
      QVERIFY2(buttons >= 2, qPrintable(name));
      QTRY_VERIFY2_WITH_TIMEOUT(clipped_texts(dialog).isEmpty(), qPrintable(name + ":\n" + clipped_texts(dialog).join('\n')), 3000);
      dialog->close();
    }
  }

  // The Log dock keeps the height a person gave it across restarts, but never more than a
  // quarter of the window: it does not grow from one start to the next.
  void theLogDockStaysSmall() {
    int heights[3] = {};
    for (int start = 0; start < 3; ++start) {
      gui::MainWindow window;
      window.resize(1024, 700);
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      QTest::qWait(50);
      heights[start] = window.logDock()->height();
      QVERIFY2(heights[start] <= window.height() / 4,
               qPrintable(QString("start %1: the log is %2 px of %3").arg(start).arg(heights[start]).arg(window.height())));
      if (start == 0) window.resizeDocks({window.logDock()}, {500}, Qt::Vertical);  // dragged tall
      QTest::qWait(50);
      window.close();
    }
    QCOMPARE(heights[2], heights[1]);
  }

  // The API key: its source and, beside it, a field wide enough for its placeholder.
  void theApiKeyFieldIsWide() {
    for (const char* lang : {"en", "zh_CN"}) {
      gui::install_language(lang);
      gui::MainWindow window;
      window.resize(1024, 700);
      window.show();
      window.showPage(window.sessionPanel());
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      QLineEdit* key = nullptr;
      for (auto* e : window.sessionPanel()->findChildren<QLineEdit*>())
        if (e->echoMode() == QLineEdit::Password) key = e;
      QVERIFY(key);
      // The text's room: the field less its frame and the text margins of the style.
      const int need = key->fontMetrics().horizontalAdvance(key->placeholderText()) + 12;
      QVERIFY2(key->width() >= need, qPrintable(QString("%1: %2 px for a %3 px placeholder").arg(lang).arg(key->width()).arg(need)));
    }
  }

 private:
  PrivateDataHome data_;
};

// The scale suite (tests/scale_suite.h): every page in both languages at two laptop sizes, after
// a session and a load have filled it; the optimised pass only.
class TestWindowLayoutScale : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(data_.set()); }
  void cleanup() { gui::install_language("en"); }

  void everyPageFitsALaptop_data() {
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("screen");
    for (const char* lang : {"en", "zh_CN"})
      for (QSize s : {QSize(1024, 700), QSize(1366, 768)})
        QTest::addRow("%s %dx%d", lang, s.width(), s.height()) << QString(lang) << s;
  }

  void everyPageFitsALaptop() {
    QFETCH(QString, language);
    QFETCH(QSize, screen);
    gui::install_language(language);
    gui::MainWindow window;
    CaptureInspector* capture = window.openCapture(QString::fromStdString(test::vectors_path("lab-conversation.pcap")));
    QVERIFY(wait_loaded(capture, 20000));
    window.resize(screen);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The session page as it is after use: its stats line and the load's summary filled.
    SessionPanel* panel = window.sessionPanel();
    window.showPage(panel);
    panel->setTarget(window.endpointUrl("anthro+lab"));
    panel->setLoad(4, 2);
    QSignalSpy finished(panel, &SessionPanel::sessionFinished);
    QSignalSpy loaded(panel, &SessionPanel::loadFinished);
    QVERIFY(panel->send());
    QVERIFY(finished.wait(30000));
    panel->runLoad();
    QVERIFY(loaded.wait(60000));
    const QString grabs = qEnvironmentVariable("ANTHRO_LAYOUT_GRABS");  // where to save what was checked, to look at
    const QList<QWidget*> pages = {window.tabs()->page(0), window.sessionPanel(), window.diagnosisPage(),
                                   window.rolloutPage(), static_cast<QWidget*>(capture)};
    for (QWidget* page : pages) {
      window.showPage(page);
      QTest::qWait(50);
      const QString name = QString::fromLatin1(page->metaObject()->className());
      QVERIFY2(window.minimumSizeHint().width() <= screen.width() && window.minimumSizeHint().height() <= screen.height(),
               qPrintable(QString("%1: the window needs %2x%3 px")
                              .arg(name)
                              .arg(window.minimumSizeHint().width())
                              .arg(window.minimumSizeHint().height())));
      // A tall page scrolls under the tab bar, which stays in view; none is wider than the window.
      QScrollArea* scroller = window.tabs()->scroller(window.tabs()->currentIndex());
      QVERIFY(scroller);
      QVERIFY(!scroller->isAncestorOf(window.tabs()->tabBar()));
      QVERIFY(window.tabs()->tabBar()->isVisible());
      QVERIFY2(!scroller->horizontalScrollBar()->isVisible(),
               qPrintable(QString("%1 needs %2 px of width, has %3")
                              .arg(name)
                              .arg(page->minimumSizeHint().width())
                              .arg(scroller->viewport()->width()) + widest_chain(page)));
      if (page == window.tabs()->page(0))
        QVERIFY2(!scroller->verticalScrollBar()->isVisible(),
                 qPrintable(QString("the welcome page scrolls: it needs %1 px, has %2 (hfw %3, size %4, range %5)").arg(page->minimumSizeHint().height()).arg(scroller->viewport()->height()).arg(page->layout() && page->layout()->hasHeightForWidth() ? page->layout()->totalHeightForWidth(scroller->viewport()->width()) : -1).arg(page->height()).arg(scroller->verticalScrollBar()->maximum())));
      QVERIFY2(window.width() <= screen.width() && window.height() <= screen.height(),
               qPrintable(QString("%1: the window grew to %2x%3").arg(name).arg(window.width()).arg(window.height())));
      if (!grabs.isEmpty())
        window.grab().save(QString("%1/%2-%3x%4-%5.png").arg(grabs, language).arg(screen.width()).arg(screen.height()).arg(name.section(':', -1)));
      // What the user sees once the page has settled: under load (CI, ASan) a page switch can
      // still be mid-relayout after the wait above, a field squeezed for a moment.
      QStringList cut;
      QTRY_VERIFY2_WITH_TIMEOUT(
          (cut = clipped_texts(page) + clipped_texts(window.keysDock()) + clipped_texts(window.logDock())).isEmpty(),
          qPrintable(name + " at " + language + ":\n" + cut.join('\n')), 3000);
      for (int i = 0; i < window.tabs()->count(); ++i) {
        QTabBar* bar = window.tabs()->tabBar();
        int need = bar->fontMetrics().horizontalAdvance(bar->tabText(i));
        QVERIFY2(bar->tabRect(i).width() >= need, qPrintable("tab " + bar->tabText(i) + " is cut"));
      }
    }
    // The capture dialog too.
    CaptureDialog* dialog = window.startCapture();
    QTest::qWait(50);
    QVERIFY2(dialog->width() <= screen.width(), qPrintable(QString::number(dialog->width())));
    QTRY_VERIFY2_WITH_TIMEOUT(clipped_texts(dialog).isEmpty(), qPrintable(clipped_texts(dialog).join('\n')), 3000);
    if (!grabs.isEmpty()) dialog->grab().save(QString("%1/%2-capture-dialog.png").arg(grabs, language));
    dialog->close();
    // Docks come and go without growing the window.
    window.showPage(window.sessionPanel());
    const QSize before = window.size();
    for (QDockWidget* dock : {window.keysDock(), window.logDock()}) {
      dock->toggleViewAction()->trigger();
      QTest::qWait(30);
      dock->toggleViewAction()->trigger();
      QTest::qWait(30);
      QCOMPARE(window.size(), before);
    }
  }

 private:
  PrivateDataHome data_;
};

ANTHRO_TEST_MAIN_WITH_SCALE(TestWindowLayout, TestWindowLayoutScale)
#include "test_window_layout.moc"
