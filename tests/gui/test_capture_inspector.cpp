// The inspector's everyday moves, offscreen: header sorting (and back to capture order), Ctrl+C
// of rows, filters with an unknown key refused with the list kept, the selection and the detail
// panes after filtering, go to frame / Home / End, the time formats and a time reference on the
// vector capture, the row context menu, and the Statistics tables' CSV export. Its scale suite:
// a million frames loading in the main window and sorting, memory and the event loop bounded.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QItemSelectionModel>
#include <QModelIndex>
#include <QObject>
#include <QPoint>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTabWidget>
#include <QTreeWidget>

#include "capture_generator.h"
#include "capture_inspector.h"
#include "capture_statistics.h"
#include "connection_detail_view.h"
#include "connections_model.h"
#include "data_home.h"
#include "frame_detail_view.h"
#include "frame_table_model.h"
#include "hex_view.h"
#include "main_window.h"
#include "timing.h"
#include "vectors.h"
#include "scale_suite.h"

#include <fstream>

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

CaptureKeySources vector_keys() { return {{vectors_path("lab-conversation.keylog")}, {}}; }

// A shown inspector with `path` loaded (within `timeout_ms`).
std::unique_ptr<CaptureInspector> open_loaded(const QString& path, int timeout_ms = 20000) {
  auto inspector = std::make_unique<CaptureInspector>();
  inspector->resize(1000, 700);
  inspector->show();
  QSignalSpy loaded(inspector.get(), &CaptureInspector::loaded);
  inspector->open(path, vector_keys());
  if (!loaded.wait(timeout_ms) || !loaded.at(0).at(0).toBool()) qFatal("%s did not load", qPrintable(path));
  return inspector;
}

QString vector_pcap() { return QString::fromStdString(vectors_path("lab-conversation.pcap")); }

QString cell(CaptureInspector& i, int row, int column) {
  return i.frames()->data(i.frames()->index(row, column), Qt::DisplayRole).toString();
}

QStringList column_of(CaptureInspector& i, int column) {
  QStringList out;
  for (int row = 0; row < i.frames()->rowCount(); ++row) out << cell(i, row, column);
  return out;
}

void click_header(CaptureInspector& i, int column) {
  QHeaderView* header = i.frameView()->horizontalHeader();
  QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                    QPoint(header->sectionViewportPosition(column) + 5, header->height() / 2));
}

// Resident memory of this process in bytes (VmRSS).
std::uint64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

std::optional<std::size_t> current_frame(CaptureInspector& i) {
  QModelIndex current = i.frameView()->currentIndex();
  if (!current.isValid()) return std::nullopt;
  return i.frames()->frameAt(current.row());
}

}  // namespace

class TestCaptureInspector : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("TZ", "UTC"); }  // the time of day is local time

  // A capture cut inside its last packet says so above its frames: where the file ends and the
  // record it cut; the whole file shows no banner.
  void aTruncatedCaptureShowsABanner() {
    QTemporaryDir dir;
    QFile whole(vector_pcap());
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    const QString cut = dir.filePath("cut.pcap");
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes.left(bytes.size() - 10));
    out.close();
    auto full = open_loaded(vector_pcap());
    QVERIFY(!full->truncationBanner()->isVisible());
    const int packets = static_cast<int>(full->index()->analysis()->packets);
    auto inspector = open_loaded(cut);
    QLabel* banner = inspector->truncationBanner();
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QString("ends at byte %1, inside packet %2 ").arg(bytes.size() - 10).arg(packets)),
             qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QString("The %1 packets before it are shown").arg(packets - 1)), qPrintable(banner->text()));
    QVERIFY(banner->geometry().bottom() < inspector->frameView()->mapTo(inspector.get(), QPoint(0, 0)).y());
  }

  void headerClicksSortAndSortBack() {
    QTemporaryDir dir;
    const QString path = dir.filePath("many.pcap");
    write_capture(path.toStdString(), many_connections(3, 4, 5));
    auto inspector = open_loaded(path);
    const int frames = 3 * 4 * 7;
    QCOMPARE(inspector->frames()->rowCount(), frames);

    click_header(*inspector, FrameTableModel::Type);
    QTRY_VERIFY(!inspector->frames()->showsAll() && !inspector->filtering());
    QCOMPARE(inspector->frameView()->horizontalHeader()->sortIndicatorSection(), int(FrameTableModel::Type));
    QStringList types = column_of(*inspector, FrameTableModel::Type);
    QCOMPARE(types.size(), frames);
    QCOMPARE(types.count("REQUEST"), 12);
    const bool up = inspector->frames()->sortOrder() == Qt::AscendingOrder;
    QStringList expected = types;
    std::sort(expected.begin(), expected.end());
    if (!up) std::reverse(expected.begin(), expected.end());
    QCOMPARE(types, expected);

    // The other way round.
    click_header(*inspector, FrameTableModel::Type);
    QTRY_VERIFY(inspector->frames()->sortOrder() == (up ? Qt::DescendingOrder : Qt::AscendingOrder) &&
                !inspector->filtering());
    QCOMPARE(column_of(*inspector, FrameTableModel::Type).first(), up ? QString("STREAM_TOKEN") : QString("REQUEST"));

    // Stream numbers sort as numbers; ties keep capture order.
    inspector->frames()->sort(FrameTableModel::Stream, Qt::DescendingOrder);
    QTRY_VERIFY(!inspector->filtering());
    QStringList streams = column_of(*inspector, FrameTableModel::Stream);
    QCOMPARE(streams.first(), QString("7"));
    for (int row = 1; row < frames; ++row) {
      QVERIFY(streams[row - 1].toInt() >= streams[row].toInt());
      if (streams[row - 1] == streams[row])
        QVERIFY(cell(*inspector, row - 1, FrameTableModel::Number).toInt() < cell(*inspector, row, FrameTableModel::Number).toInt());
    }

    // Back to capture order: the No. column ascending, and the list live again.
    inspector->frameView()->sortByColumn(FrameTableModel::Number, Qt::AscendingOrder);
    QTRY_VERIFY(inspector->frames()->showsAll());
    for (int row = 0; row < frames; ++row) QCOMPARE(cell(*inspector, row, FrameTableModel::Number), QString::number(row + 1));

    // Sorting keeps a filter, and the filter keeps the order.
    inspector->applyFilter("type:RESPONSE");
    inspector->frames()->sort(FrameTableModel::Connection, Qt::DescendingOrder);
    QTRY_VERIFY(!inspector->filtering() && inspector->frames()->rowCount() == 12);
    QCOMPARE(cell(*inspector, 0, FrameTableModel::Connection), QString("3"));
    QCOMPARE(cell(*inspector, 11, FrameTableModel::Connection), QString("1"));
    QVERIFY(column_of(*inspector, FrameTableModel::Type).count("RESPONSE") == 12);
  }

  // The connections sort too, and the detail shows the connection clicked, not the row's
  // place before sorting.
  void connectionsSortAndShowTheRowClicked() {
    QTemporaryDir dir;
    const QString path = dir.filePath("three.pcap");
    write_capture(path.toStdString(), many_connections(3, 1, 2));
    auto inspector = open_loaded(path);
    QTableView* view = nullptr;
    for (auto* v : inspector->findChildren<QTableView*>())
      if (qobject_cast<QSortFilterProxyModel*>(v->model())) view = v;
    QVERIFY(view);
    view->sortByColumn(ConnectionsModel::Number, Qt::DescendingOrder);
    QCOMPARE(view->model()->index(0, ConnectionsModel::Number).data().toString(), QString("3"));
    view->selectRow(0);
    const QString name = view->model()->index(0, ConnectionsModel::Name).data().toString();
    QCOMPARE(name, QString::fromStdString(inspector->connections()->connections().at(2).name));
    QCOMPARE(inspector->connectionDetail()->topLevelItem(0)->text(0), name);
  }

  // Words, not codes: the suites an offer's aead bits name, a token frame's place in its stream,
  // and a frame no key opens said once.
  void wording() {
    auto inspector = open_loaded(vector_pcap());
    const QString offer = inspector->connectionDetail()->value("offer", "aead");
    QVERIFY2(offer.endsWith(")") && offer.contains("aes-256-gcm") && offer.contains("(0x0"), qPrintable(offer));
    const QString answer = inspector->connectionDetail()->value("answer", "aead");
    QVERIFY2(!answer.contains(",") && answer.contains("(0x0"), qPrintable(answer));
    QCOMPARE(cell(*inspector, 1, summary_column()), QString("token 0 \"Hello\""));

    CaptureInspector keyless;
    QSignalSpy loaded(&keyless, &CaptureInspector::loaded);
    keyless.open(vector_pcap(), {});
    QVERIFY(loaded.wait(10000));
    const QString summary = cell(keyless, 0, summary_column());
    QVERIFY2(summary.startsWith("no key for connection token") && summary.count("no key") == 1, qPrintable(summary));
  }

  void ctrlCCopiesTheSelectedRows() {
    auto inspector = open_loaded(vector_pcap());
    QTableView* view = inspector->frameView();
    view->setFocus();
    view->selectRow(1);
    view->selectionModel()->select(inspector->frames()->index(3, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QApplication::clipboard()->clear();
    QTest::keySequence(view, QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0].split('\t').mid(0, 2), (QStringList{"No.", "Time (s)"}));
    QCOMPARE(lines[0].split('\t').size(), 8);
    QStringList second = lines[1].split('\t');
    QCOMPARE(second.size(), 8);
    QCOMPARE(second[0], QString("2"));
    QCOMPARE(second[4], QString("STREAM_TOKEN"));
    QVERIFY(second[7].contains("\"Hello\""));
    QCOMPARE(lines[2].split('\t')[0], QString("4"));
  }

  void anUnknownFilterKeyIsRefusedAndTheListKept() {
    auto inspector = open_loaded(vector_pcap());
    inspector->applyFilter("type:STREAM_TOKEN");
    QTRY_COMPARE(inspector->frames()->rowCount(), 4);
    QVERIFY(inspector->filterError().isEmpty());
    QVERIFY(!inspector->noticeLabel()->isVisible());

    inspector->applyFilter("foo:bar");
    QCOMPARE(inspector->frames()->rowCount(), 4);
    QCOMPARE(inspector->appliedFilter(), QString("type:STREAM_TOKEN"));
    const QString error = inspector->filterError();
    QVERIFY2(error.contains("\"foo\"") && error.contains("conn:") && error.contains("stream:") && error.contains("type:"),
             qPrintable(error));
    QVERIFY2(error.contains("type:STREAM_TOKEN"), qPrintable(error));  // what the list still shows
    QVERIFY(inspector->noticeLabel()->isVisible());
    QCOMPARE(inspector->noticeLabel()->text(), error);
    QTest::qWait(200);
    QCOMPARE(inspector->frames()->rowCount(), 4);

    // Quoted, it is text to find; a good filter clears the notice.
    inspector->applyFilter("\"foo:bar\"");
    QTRY_COMPARE(inspector->frames()->rowCount(), 0);
    QVERIFY(!inspector->noticeLabel()->isVisible());
    inspector->applyFilter("");
    QCOMPARE(inspector->frames()->rowCount(), 6);
  }

  void theDetailNeverShowsAFrameOutsideTheList() {
    auto inspector = open_loaded(vector_pcap());
    inspector->frameView()->selectRow(1);  // frame 2, the first STREAM_TOKEN
    QCOMPARE(inspector->detailView()->fieldValue("text"), QString("Hello"));

    inspector->applyFilter("type:STREAM_TOKEN");  // it still matches: still selected and shown
    QTRY_COMPARE(inspector->frames()->rowCount(), 4);
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(1));
    QCOMPARE(inspector->frameView()->currentIndex().row(), 0);
    QCOMPARE(inspector->detailView()->fieldValue("text"), QString("Hello"));
    QVERIFY(!inspector->hexView()->bytes().isEmpty());

    inspector->applyFilter("type:RESPONSE");  // it does not: nothing selected, nothing below
    QTRY_COMPARE(inspector->frames()->rowCount(), 1);
    QVERIFY(!current_frame(*inspector));
    QCOMPARE(inspector->detailView()->tree()->topLevelItemCount(), 0);
    QVERIFY(inspector->hexView()->bytes().isEmpty());
  }

  void goToFrameHomeAndEnd() {
    auto inspector = open_loaded(vector_pcap());
    QVERIFY(inspector->goToFrame(5));
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(4));
    QVERIFY(!inspector->goToFrame(99));
    QVERIFY2(inspector->filterError().contains("99") && inspector->filterError().contains("6"), qPrintable(inspector->filterError()));
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(4));

    // Ctrl+G, a number, Enter.
    inspector->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(inspector.get()));
    QTest::keySequence(inspector.get(), QKeySequence(Qt::CTRL | Qt::Key_G));
    auto* go = inspector->findChild<QLineEdit*>("goToFrame");
    QVERIFY(go && go->isVisible());
    QTest::keyClicks(go, "3");
    QTest::keyClick(go, Qt::Key_Return);
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(2));
    QVERIFY(!go->isVisible());

    QTest::keyClick(inspector->frameView(), Qt::Key_End);
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(5));
    QTest::keyClick(inspector->frameView(), Qt::Key_Home);
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(0));

    // Ctrl+F to the filter, Ctrl+Enter applies it.
    QTest::keySequence(inspector.get(), QKeySequence::Find);
    QVERIFY(inspector->filterEdit()->hasFocus());
    QTest::keyClicks(inspector->filterEdit(), "type:RESPONSE");
    QTest::keyClick(inspector->filterEdit(), Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE(inspector->frames()->rowCount(), 1);
    QCOMPARE(inspector->appliedFilter(), QString("type:RESPONSE"));
    QVERIFY(!inspector->goToFrame(2));  // hidden by the filter
    QVERIFY(inspector->filterError().contains("type:RESPONSE"));
    QVERIFY(inspector->goToFrame(6));
  }

  // The vector's frames are packets at 1700000000 s + 10, 190, 210, 230, 250 and 270 ms.
  void timeFormatsAndTheTimeReference() {
    auto inspector = open_loaded(vector_pcap());
    QCOMPARE(column_of(*inspector, FrameTableModel::Time),
             (QStringList{"0.000000", "0.180000", "0.200000", "0.220000", "0.240000", "0.260000"}));
    inspector->setTimeFormat(TimeFormat::SincePrevious);
    QCOMPARE(column_of(*inspector, FrameTableModel::Time),
             (QStringList{"0.000000", "0.180000", "0.020000", "0.020000", "0.020000", "0.020000"}));
    inspector->setTimeFormat(TimeFormat::TimeOfDay);
    QCOMPARE(cell(*inspector, 0, FrameTableModel::Time), QString("22:13:20.010000"));  // 2023-11-14 UTC
    QCOMPARE(cell(*inspector, 5, FrameTableModel::Time), QString("22:13:20.270000"));
    QCOMPARE(inspector->frames()->headerData(FrameTableModel::Time, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString("Time of day"));

    inspector->frameView()->selectRow(2);
    inspector->toggleReference();
    QCOMPARE(inspector->frames()->timeFormat(), TimeFormat::SinceReference);
    QCOMPARE(column_of(*inspector, FrameTableModel::Time),
             (QStringList{"-0.200000", "-0.020000", "*REF*", "0.020000", "0.040000", "0.060000"}));
    inspector->toggleReference();  // unset: since the start again
    QCOMPARE(cell(*inspector, 2, FrameTableModel::Time), QString("0.200000"));
  }

  void theRowContextMenu() {
    auto inspector = open_loaded(vector_pcap());
    const QModelIndex stream_cell = inspector->frames()->index(1, FrameTableModel::Stream);
    std::unique_ptr<QMenu> menu(inspector->contextMenuFor(stream_cell));
    QCOMPARE(current_frame(*inspector), std::optional<std::size_t>(1));
    auto* filter = menu->findChild<QAction*>("filterOnValue");
    QVERIFY(filter);
    QCOMPARE(filter->text(), QString("Filter on conn:1 stream:1"));
    auto* hex = menu->findChild<QAction*>("copyHex");
    hex->trigger();
    const QString copied = QApplication::clipboard()->text();
    QCOMPARE(copied, QString::fromLatin1(inspector->hexView()->bytes().toHex()));
    menu->findChild<QAction*>("copyFields")->trigger();
    QVERIFY(QApplication::clipboard()->text().contains("text\tHello"));

    QAction* mark = nullptr;
    for (QAction* a : menu->actions())
      if (a->objectName() == "markFrame") mark = a;
    QVERIFY(mark);
    mark->trigger();
    QVERIFY(inspector->frames()->isMarked(1));
    QVERIFY(inspector->frames()->data(stream_cell, Qt::BackgroundRole).isValid());
    mark->trigger();
    QVERIFY(!inspector->frames()->isMarked(1));

    filter->trigger();
    QTRY_COMPARE(inspector->frames()->rowCount(), 6);  // every frame of the vector is stream 1's
    QCOMPARE(inspector->appliedFilter(), QString("conn:1 stream:1"));
    std::unique_ptr<QMenu> type_menu(inspector->contextMenuFor(inspector->frames()->index(0, FrameTableModel::Type)));
    QCOMPARE(type_menu->findChild<QAction*>("filterOnValue")->text(), QString("Filter on type:REQUEST"));
  }

  void statisticsExportAsCsv() {
    QTemporaryDir dir;
    const QString path = dir.filePath("many.pcap");
    write_capture(path.toStdString(), many_connections(2, 3, 4));
    auto inspector = open_loaded(path);
    CaptureStatistics* stats = inspector->statistics();
    QCOMPARE(stats->view(CaptureStatistics::Streams)->model()->rowCount(), 6);

    // Each stream's TTFT from the frame rows: its REQUEST packet to its first STREAM_TOKEN.
    std::map<std::pair<QString, QString>, double> request_ts;
    std::map<std::pair<QString, QString>, QString> ttft;
    auto index = inspector->index();
    for (std::size_t f = 0; f < index->frame_count(); ++f) {
      auto row = *index->row(f);
      const std::pair key{QString::number(row.connection + 1), QString::number(row.stream_id)};
      if (row.type == std::uint8_t(FrameType::Request)) request_ts[key] = row.ts;
      if (row.type == std::uint8_t(FrameType::StreamToken) && !ttft.count(key))
        ttft[key] = QString::number((row.ts - request_ts.at(key)) * 1000, 'f', 2);
    }
    QCOMPARE(ttft.size(), std::size_t(6));

    const QString csv_path = dir.filePath("streams.csv");
    auto written = stats->exportCsv(CaptureStatistics::Streams, csv_path);
    QVERIFY(written);
    QFile file(csv_path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split("\r\n", Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 7);
    QVERIFY2(lines[0].startsWith("Conn,Stream,End,Tokens,TTFT (ms),E2E (ms)"), qPrintable(lines[0]));
    for (int i = 1; i < lines.size(); ++i) {
      const QStringList f = lines[i].split(',');
      QCOMPARE(f.size(), 11);
      QCOMPARE(f[2], QString("response"));
      QCOMPARE(f[3], QString("4"));
      QCOMPARE(f[4], ttft.at({f[0], f[1]}));
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);  // the capture and the CSV: no temporary left

    // Sorted by TTFT, descending: the CSV follows the table's order.
    stats->view(CaptureStatistics::Streams)->sortByColumn(4, Qt::DescendingOrder);
    const QStringList sorted = stats->csv(CaptureStatistics::Streams).split("\r\n", Qt::SkipEmptyParts);
    for (int i = 2; i < sorted.size(); ++i) QVERIFY(sorted[i - 1].split(',')[4].toDouble() >= sorted[i].split(',')[4].toDouble());

    // The TTFT table: a row a connection and one for all, n counting the streams.
    const QStringList ttft_csv = stats->csv(CaptureStatistics::Ttft).split("\r\n", Qt::SkipEmptyParts);
    QCOMPARE(ttft_csv.size(), 4);
    QVERIFY(ttft_csv.filter(QRegularExpression("^all,6,")).size() == 1);

    // A stream's row, double-clicked, shows its frames.
    inspector->lowerTabs()->setCurrentWidget(stats);
    QTableView* streams = stats->view(CaptureStatistics::Streams);
    stats->tables()->setCurrentWidget(streams);
    QTRY_VERIFY(streams->isVisible() && streams->viewport()->height() > 0);
    QTest::qWait(20);
    const QModelIndex first = streams->model()->index(0, 1);
    const QString conn = streams->model()->index(0, 0).data().toString(), stream = first.data().toString();
    const QPoint at = streams->visualRect(first).center();
    QTest::mouseClick(streams->viewport(), Qt::LeftButton, {}, at);  // the press a double-click starts with
    QTest::mouseDClick(streams->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(inspector->appliedFilter(), QString("conn:%1 stream:%2").arg(conn, stream));
    QTRY_COMPARE(inspector->frames()->rowCount(), 6);  // REQUEST, 4 tokens, RESPONSE

    // A file that cannot be written is refused and nothing is left.
    QVERIFY(!stats->exportCsv(CaptureStatistics::Streams, dir.filePath("missing/streams.csv")));
  }

  // The frame list gets most of the tab, and the panes below can be made small.
  void theFrameListTakesMostOfTheTab() {
    auto inspector = open_loaded(vector_pcap());
    inspector->resize(1024, 560);
    QTest::qWait(50);
    auto* split = inspector->findChild<QSplitter*>("inspectorSplit");
    QVERIFY(split);
    QVERIFY2(inspector->frameView()->height() > inspector->lowerTabs()->height(),
             qPrintable(QString("%1 vs %2").arg(inspector->frameView()->height()).arg(inspector->lowerTabs()->height())));
    const int lower_min = inspector->lowerTabs()->minimumHeight();
    QVERIFY(lower_min < inspector->lowerTabs()->height());
    split->setSizes({10000, 1});  // as far down as it goes
    QTest::qWait(20);
    QCOMPARE(inspector->lowerTabs()->height(), lower_min);
    QVERIFY(inspector->frameView()->height() > split->height() * 2 / 3);
  }
};

// The scale suite (tests/scale_suite.h): the optimised pass only.
class TestCaptureInspectorScale : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(data_.set()); }  // the main window's embedded endpoint

  // A million frames load in the main window while the list is scrolled: the event loop never
  // freezes, and the file is not held in memory.
  void aMillionFramesLoadWithoutFreezing() {
    QTemporaryDir dir;
    const QString path = dir.filePath("million.pcap");
    write_capture(path.toStdString(), many_connections(20, 50, 1000));  // 20 × 50 × 1002 frames
    const std::uint64_t file_size = QFileInfo(path).size();
    gui::MainWindow window;
    window.show();
    const std::uint64_t rss_before = rss_bytes();
    std::uint64_t rss_peak = rss_before;

    QElapsedTimer clock;
    qint64 last = 0, worst_gap = 0;
    QTimer watchdog;
    watchdog.setInterval(10);
    connect(&watchdog, &QTimer::timeout, [&] {
      qint64 now = clock.elapsed();
      worst_gap = std::max(worst_gap, now - last);
      last = now;
      rss_peak = std::max(rss_peak, rss_bytes());
    });
    clock.start();
    watchdog.start();
    CaptureInspector* inspector = window.openCapture(path, {QString::fromStdString(vectors_path("lab-conversation.keylog"))});
    // Scroll through the list while it loads, as a user would.
    QTimer scroller;
    connect(&scroller, &QTimer::timeout, [&] { inspector->frameView()->scrollToBottom(); });
    scroller.start(200);
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->loading(), 300000);
    watchdog.stop();
    QCOMPARE(inspector->frames()->rowCount(), 20 * 50 * 1002);
    qInfo("file %.1f MB, worst event-loop gap %lld ms, RSS growth %.1f MB", file_size / 1048576.0,
          static_cast<long long>(worst_gap), (rss_peak - rss_before) / 1048576.0);
    // Guards, not the promise: the figures are printed above (~25 ms, ~0.2× on a quiet machine)
    // and the index pass's RSS is measured by capture_bench. A test on a busy 2-core machine can
    // only say that the loop never froze and that the file is not held in memory.
    QVERIFY2(worst_gap <= timing_bound(1000, 5000), qPrintable(QString("event loop blocked for %1 ms").arg(worst_gap)));
    QVERIFY2(rss_peak - rss_before <= file_size + sanitizer_quarantine_bytes(),
             "memory grew by more than the file: frames are being held");
  }

  // A million frames sort on a worker into a permutation: the model holds 4 bytes a frame and
  // the sort one key a frame while it runs, never the rows.
  void aMillionFramesSortWithBoundedMemory() {
    QTemporaryDir dir;
    const QString path = dir.filePath("million.pcap");
    write_capture(path.toStdString(), many_connections(20, 50, 1000));  // 20 × 50 × 1002 frames
    auto inspector = open_loaded(path, 300000);  // as long as the sanitizers take
    const int frames = 20 * 50 * 1002;
    QCOMPARE(inspector->frames()->rowCount(), frames);
    const std::uint64_t rss_before = rss_bytes();
    std::uint64_t rss_peak = rss_before;
    QTimer sampler;
    connect(&sampler, &QTimer::timeout, [&] { rss_peak = std::max(rss_peak, rss_bytes()); });
    sampler.start(10);
    inspector->frames()->sort(FrameTableModel::Time, Qt::DescendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->frames()->showsAll() && !inspector->filtering(), 120000);
    inspector->frames()->sort(FrameTableModel::Type, Qt::AscendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->filtering(), 120000);
    sampler.stop();
    QCOMPARE(inspector->frames()->rowCount(), frames);
    QCOMPARE(cell(*inspector, 0, FrameTableModel::Type), QString("REQUEST"));
    QCOMPARE(cell(*inspector, 999, FrameTableModel::Type), QString("REQUEST"));
    QCOMPARE(cell(*inspector, 1000, FrameTableModel::Type), QString("RESPONSE"));
    QCOMPARE(cell(*inspector, frames - 1, FrameTableModel::Type), QString("STREAM_TOKEN"));
    // Ties keep capture order.
    QVERIFY(cell(*inspector, 0, FrameTableModel::Number).toInt() < cell(*inspector, 1, FrameTableModel::Number).toInt());
    qInfo("RSS growth while sorting %d frames: %.1f MB", frames, (rss_peak - rss_before) / 1048576.0);
    QVERIFY2(rss_peak - rss_before < (160ull << 20) + sanitizer_quarantine_bytes(), "sorting holds more than a key a frame");
  }

 private:
  PrivateDataHome data_;
};

ANTHRO_TEST_MAIN_WITH_SCALE(TestCaptureInspector, TestCaptureInspectorScale)
#include "test_capture_inspector.moc"
