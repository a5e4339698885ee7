// The bytes pane maps clicks and highlights to the right bytes, never paints a masked byte, and stays
// usable on large buffers.
#include <QByteArray>
#include <QClipboard>
#include <QElapsedTimer>
#include <QFloat16>
#include <QObject>
#include <QPoint>
#include <QRect>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSize>
#include <QString>
#include <QTest>

#include "hex_view.h"

using anthro::widgets::HexView;

namespace {

QByteArray counting(qsizetype size) {
  QByteArray bytes(size, Qt::Uninitialized);
  for (qsizetype i = 0; i < size; ++i) bytes[i] = static_cast<char>(i & 0xff);
  return bytes;
}

// The colour painted at a viewport point, read from a grab() of the whole widget (frame included).
QColor pixelAt(HexView& view, QPoint viewportPos) {
  const QPixmap pixmap = view.grab();
  const QPoint widgetPos = view.viewport()->mapTo(&view, viewportPos);
  return pixmap.toImage().pixelColor(widgetPos * pixmap.devicePixelRatio());
}

// A point inside the cell but clear of its glyphs: the cells carry padding, the glyphs do not.
QPoint besideGlyphs(const QRect& cell) { return {cell.left() + 1, cell.center().y()}; }

void showAndWait(HexView& view, QSize size = {}) {
  view.resize(size.isValid() ? size : view.sizeHint());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
}

}  // namespace

class TestHexView : public QObject {
  Q_OBJECT
 private slots:
  void byteAtInvertsByteRectInBothColumns() {
    HexView view;
    view.setBytes(counting(40));
    showAndWait(view);
    for (qsizetype i = 0; i < 40; ++i) {
      for (bool ascii : {false, true}) {
        const QRect rect = view.byteRect(i, ascii);
        QVERIFY2(!rect.isEmpty(), qPrintable(QString::number(i)));
        QCOMPARE(view.byteAt(rect.center()), i);
        QCOMPARE(view.byteAt(rect.topLeft()), i);
        QCOMPARE(view.byteAt(rect.bottomRight()), i);
      }
    }
    // Past the data in the last row, and out of range offsets.
    QCOMPARE(view.byteAt(view.byteRect(39).center() + QPoint(view.byteRect(39).width(), 0)), qsizetype(-1));
    QCOMPARE(view.byteAt(view.byteRect(32).center() + QPoint(0, view.byteRect(32).height())), qsizetype(-1));
    QVERIFY(view.byteRect(40).isNull());
    QVERIFY(view.byteRect(-1).isNull());
    // The ASCII column is to the right of the hex column, both inside the viewport at sizeHint.
    QVERIFY(view.byteRect(15, true).left() > view.byteRect(15).right());
    QVERIFY(view.viewport()->rect().contains(view.byteRect(15, true)));
    QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
  }

  void clickEmitsTheByte() {
    HexView view;
    view.setBytes(counting(40));
    showAndWait(view);
    QSignalSpy spy(&view, &HexView::byteClicked);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.byteRect(17).center());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.byteRect(3, true).center());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(1, 1));  // the offset column
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(0).at(0).value<qsizetype>(), qsizetype(17));
    QCOMPARE(spy.at(1).at(0).value<qsizetype>(), qsizetype(3));
  }

  void highlightIsPaintedInBothColumns() {
    HexView view;
    view.setBytes(counting(40));
    showAndWait(view);
    view.setHighlight(5, 10);
    QCOMPARE(view.highlight(), std::make_pair(qsizetype(5), qsizetype(10)));
    const QColor highlight = view.palette().color(QPalette::Highlight);
    const QColor base = view.palette().color(QPalette::Base);
    QVERIFY(highlight != base);
    for (bool ascii : {false, true}) {
      QCOMPARE(pixelAt(view, besideGlyphs(view.byteRect(7, ascii))), highlight);
      QCOMPARE(pixelAt(view, besideGlyphs(view.byteRect(20, ascii))), base);
      QCOMPARE(pixelAt(view, besideGlyphs(view.byteRect(10, ascii))), base);
    }
    // The band continues across the split between bytes 8 and 9.
    const QPoint split((view.byteRect(7).right() + view.byteRect(8).left()) / 2, view.byteRect(7).center().y());
    QCOMPARE(pixelAt(view, split), highlight);

    view.setHighlight(12, 12);
    QCOMPARE(view.highlight(), std::make_pair(qsizetype(0), qsizetype(0)));
    QCOMPARE(pixelAt(view, besideGlyphs(view.byteRect(7))), base);
    view.setHighlight(30, 1000);
    QCOMPARE(view.highlight(), std::make_pair(qsizetype(30), qsizetype(40)));
  }

  void rowTextLaysOutTheThreeColumns() {
    HexView view;
    static const char text[] = "Hello\x00\x01\x7f world, this is hex";
    view.setBytes(QByteArray(text, sizeof text - 1));
    QCOMPARE(view.rowText(0), QString("0000  48 65 6c 6c 6f 00 01 7f  20 77 6f 72 6c 64 2c 20  Hello...  world, "));
    // A short last row keeps its ASCII column where the full rows have it.
    QCOMPARE(view.rowText(1), QString("0010  74 68 69 73 20 69 73 20  68 65 78") + QString(15, u' ') + "  this is  hex");
    QVERIFY(view.rowText(2).isEmpty());
    QVERIFY(view.rowText(-1).isEmpty());
    view.setBytes(counting(0x10001));
    QVERIFY(view.rowText(0).startsWith("00000  00 01 "));
    QVERIFY(view.rowText(0x1000).startsWith("10000  00"));
  }

  void maskedBytesAreNeverShownOrCopied() {
    HexView view;
    view.setMaskedRanges({{6, 12}, {20, 18}, {11, 13}});
    view.setBytes("Hello secret!!");
    QCOMPARE(view.rowText(0), QString("0000  48 65 6c 6c 6f 20 ** **  ** ** ** ** ** 21        Hello ** *****!"));
    view.setHighlight(4, 14);
    QTest::keySequence(&view, QKeySequence::Copy);
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("6f 20 ** ** ** ** ** ** ** 21"));
  }

  void maskedBytesPaintAsterisks() {
    HexView view;
    view.setBytes(QByteArray(16, 'A'));
    showAndWait(view);
    const QImage plain = view.grab().toImage();
    view.setMaskedRanges({{0, 16}});
    QVERIFY(view.rowText(0).endsWith("******** ********"));
    QVERIFY(view.grab().toImage() != plain);
    view.setMaskedRanges({});
    QCOMPARE(view.grab().toImage(), plain);
  }

  void copiesHighlightedBytesAsHex() {
    HexView view;
    view.setBytes("Say Hello there");
    view.setHighlight(4, 9);
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("48 65 6c 6c 6f"));
    QGuiApplication::clipboard()->setText("untouched");
    view.setHighlight(0, 0);
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("untouched"));
  }

  void highlightScrollsIntoView() {
    HexView view;
    view.setBytes(counting(1 << 20));
    showAndWait(view, {view.sizeHint().width(), 300});
    QCOMPARE(view.verticalScrollBar()->value(), 0);
    const qsizetype last = (1 << 20) - 3;
    view.setHighlight(last, last + 2);
    QVERIFY(view.verticalScrollBar()->value() > 0);
    QVERIFY(view.viewport()->rect().contains(view.byteRect(last)));
    QVERIFY(view.viewport()->rect().contains(view.byteRect(last + 1, true)));
    QCOMPARE(pixelAt(view, besideGlyphs(view.byteRect(last))), view.palette().color(QPalette::Highlight));
    // Back to the top, and a highlight already on screen does not move the view.
    view.setHighlight(0, 4);
    QCOMPARE(view.verticalScrollBar()->value(), 0);
    view.setHighlight(16, 20);
    QCOMPARE(view.verticalScrollBar()->value(), 0);
  }

  void highlightScrollsSidewaysInANarrowView() {
    HexView view;
    view.setBytes(counting(64));
    showAndWait(view, {view.sizeHint().width() / 3, view.sizeHint().height()});
    QVERIFY(view.horizontalScrollBar()->maximum() > 0);
    view.setHighlight(47, 48);
    QVERIFY(view.horizontalScrollBar()->value() > 0);
    QVERIFY(view.viewport()->rect().contains(view.byteRect(47)));
    QCOMPARE(view.byteAt(view.byteRect(47).center()), qsizetype(47));
    view.setHighlight(0, 1);
    QVERIFY(view.viewport()->rect().contains(view.byteRect(0)));
  }

  void highlightBeforeShowIsRevealedOnShow() {
    // A child not yet laid out has a tiny viewport: the scroll must still hold once it has its real size.
    QWidget window;
    auto* view = new HexView(&window);
    view->setBytes(counting(1 << 16));
    view->setHighlight(40000, 40010);
    window.resize(view->sizeHint().width(), 300);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    view->resize(window.size());
    QVERIFY(view->verticalScrollBar()->value() > 0);
    QVERIFY(view->viewport()->rect().contains(view->byteRect(40000)));
    QVERIFY(view->viewport()->rect().contains(view->byteRect(40009, true)));
  }

  void keysScroll() {
    HexView view;
    view.setBytes(counting(1 << 20));
    showAndWait(view, {view.sizeHint().width(), 300});
    QScrollBar* bar = view.verticalScrollBar();
    QVERIFY(bar->pageStep() > 1);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(bar->value(), 1);
    QTest::keyClick(&view, Qt::Key_PageDown);
    QCOMPARE(bar->value(), 1 + bar->pageStep());
    QTest::keyClick(&view, Qt::Key_Up);
    QCOMPARE(bar->value(), bar->pageStep());
    QTest::keyClick(&view, Qt::Key_PageUp);
    QCOMPARE(bar->value(), 0);
    QTest::keyClick(&view, Qt::Key_End);
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY(view.viewport()->rect().contains(view.byteRect((1 << 20) - 1, true)));
    QTest::keyClick(&view, Qt::Key_Home);
    QCOMPARE(bar->value(), 0);
  }

  void largeBuffersPaintOnlyVisibleRows() {
    HexView view;
    const QByteArray big = counting(16 << 20);
    QElapsedTimer timer;
    timer.start();
    view.setBytes(big);
    showAndWait(view, {view.sizeHint().width(), 600});
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() / 2);
    for (int i = 0; i < 5; ++i) view.grab();
    view.setHighlight(big.size() - 1, big.size());
    view.grab();
    // Painting all million rows would take many seconds; the visible ones take milliseconds.
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(view.bytes().size(), big.size());
    QVERIFY(view.rowText((16 << 20) / 16 - 1).startsWith("fffff0  "));
  }

  void clearDropsEverything() {
    HexView view;
    view.setMaskedRanges({{0, 2}});
    view.setBytes("abc");
    view.setHighlight(0, 3);
    view.clear();
    QVERIFY(view.bytes().isEmpty());
    QCOMPARE(view.highlight(), std::make_pair(qsizetype(0), qsizetype(0)));
    QVERIFY(view.rowText(0).isEmpty());
    QCOMPARE(view.byteAt(QPoint(1, 1)), qsizetype(-1));
    view.setBytes("abc");
    QVERIFY(view.rowText(0).endsWith("abc"));
  }

  void fontChangeRelaysOut() {
    HexView view;
    view.setBytes(counting(40));
    const int narrow = view.sizeHint().width();
    QFont font = view.font();
    if (font.pointSizeF() > 0)
      font.setPointSizeF(font.pointSizeF() * 2);
    else
      font.setPixelSize(font.pixelSize() * 2);
    view.setFont(font);
    QVERIFY(view.sizeHint().width() > narrow);
    showAndWait(view);
    QCOMPARE(view.byteAt(view.byteRect(33, true).center()), qsizetype(33));
  }
};

QTEST_MAIN(TestHexView)
#include "test_hex_view.moc"
