// The Diagnosis page as a user drives it, offscreen, against the main window's embedded
// endpoint with a fault on: the flagged item shows with its evidence, and a click on the
// evidence lands on that stream's frames in the capture inspector; the same from a loaded
// capture ("Diagnose this capture"); Cancel; an item re-run alone; a manual item ticked.
#include <QElapsedTimer>
#include <QFloat16>
#include <QObject>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTabWidget>
#include <QTreeWidget>

#include "affinity/exchange.h"
#include "affinity/format.h"
#include "capture_inspector.h"
#include "client_faults_box.h"
#include "diagnosis_model.h"
#include "diagnosis_page.h"
#include "english_text.h"
#include "evidence_chart.h"
#include "evidence_view.h"
#include "frame_table_model.h"
#include "language.h"
#include "main_window.h"
#include "timing.h"
#include "vectors.h"
#include "error_text.h"

using namespace anthro;
using namespace anthro::widgets;

namespace {

Verdict verdict_of(DiagnosisPage* page, const QString& id) {
  int row = page->model()->rowOf(id);
  return static_cast<Verdict>(page->model()->data(page->model()->index(row, 0), DiagnosisModel::VerdictRole).toInt());
}

// Is `expected` the one item of `checklist` the page flagged (warn or fail)? Each item that
// disagrees is printed with its verdict.
bool only_flagged(DiagnosisPage* page, const Checklist& checklist, const std::string& expected) {
  bool ok = true;
  for (const auto& item : checklist.items) {
    const Verdict v = verdict_of(page, QString::fromStdString(item.id));
    const bool flagged = v == Verdict::Warn || v == Verdict::Fail;
    if (flagged == (item.id == expected)) continue;
    qWarning("%s: %s", item.id.c_str(), to_string(v));
    ok = false;
  }
  return ok;
}

bool wait_loaded(CaptureInspector* inspector, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (inspector->loading() && t.elapsed() < timeout_ms) QTest::qWait(20);
  return !inspector->loading();
}

// Clicks the evidence list's row `ref` as a user would.
void click_ref(EvidenceView* view, int ref) {
  QTreeWidgetItem* item = view->refs()->topLevelItem(ref);
  QVERIFY(item);
  view->refs()->scrollToItem(item);
  QTest::mouseClick(view->refs()->viewport(), Qt::LeftButton, {}, view->refs()->visualItemRect(item).center());
}

// The inspector shows only the frames of `stream` on connection `conn` (the analysis' name),
// and that stream paused for longer than `gap_ms` between two tokens.
void check_frames(CaptureInspector* inspector, const std::string& conn, std::uint32_t stream, double gap_ms) {
  QVERIFY(wait_loaded(inspector, 30000));
  auto analysis = inspector->index()->analysis();
  const RequestResult* shown = nullptr;
  std::uint32_t conn_number = 0;  // the analysis's (the CLI's, the report's) number is the Connection column's
  for (std::size_t c = 0; c < analysis->connections.size(); ++c)
    if (analysis->connections[c].info.name == conn)
      for (const auto& s : analysis->connections[c].streams)
        if (s.stream_id == stream) shown = &s, conn_number = static_cast<std::uint32_t>(c + 1);
  QVERIFY2(shown, qPrintable(QString::fromStdString(conn)));
  QVERIFY2(*shown->figures.max_gap_ms > gap_ms, qPrintable(QString::number(*shown->figures.max_gap_ms)));
  QTRY_VERIFY_WITH_TIMEOUT(!inspector->filtering(), 10000);  // else the rows may be the last jump's
  FrameTableModel* frames = inspector->frames();
  QTRY_COMPARE_WITH_TIMEOUT(frames->rowCount(), int(shown->figures.tokens + 2), 10000);  // REQUEST, tokens, RESPONSE
  for (int row = 0; row < frames->rowCount(); ++row) {
    QCOMPARE(frames->data(frames->index(row, FrameTableModel::Stream), Qt::DisplayRole).toUInt(), stream);
    QCOMPARE(frames->data(frames->index(row, FrameTableModel::Connection), Qt::DisplayRole).toUInt(), conn_number);
  }
}

// Every column of the inspector's frame list from the session tracer's on that is shown holds
// a value in some row (the rows shown are a filter's: the whole capture is loaded for it), and
// Summary starts inside the list's viewport.
void check_no_empty_column(CaptureInspector* inspector) {
  inspector->applyFilter("");
  QTRY_VERIFY_WITH_TIMEOUT(!inspector->filtering(), 10000);
  FrameTableModel* frames = inspector->frames();
  QTableView* view = inspector->frameView();
  for (int c = FrameTableModel::FirstTracer; c < frame_column_count(); ++c) {
    if (view->isColumnHidden(c) || c == summary_column()) continue;
    bool filled = false;
    for (int r = 0; r < frames->rowCount() && !filled; ++r)
      filled = !frames->data(frames->index(r, c), Qt::DisplayRole).toString().isEmpty();
    QVERIFY2(filled, qPrintable(frames->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() + " is empty"));
  }
  QVERIFY(!view->isColumnHidden(summary_column()));
  const int at = view->columnViewportPosition(summary_column());
  QVERIFY2(at >= 0 && at + 40 < view->viewport()->width(),
           qPrintable(QString("Summary at %1 of %2").arg(at).arg(view->viewport()->width())));
}

}  // namespace

class TestDiagnosisPage : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(data_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toUtf8());  // the endpoint's generated credentials
  }
  void cleanup() { gui::install_language("en"); }  // a test that failed in 简体中文 leaves English behind

  // stall=800@10: every stream pauses 800 ms at its tenth token; server-stall must warn, and
  // its evidence must open that stream's frames in the run's own capture.
  void aLiveRunFlagsTheStallAndJumpsToItsFrames() {
    gui::MainWindow window(nullptr, {"stall=800@10"});
    window.resize(1500, 920);
    window.show();
    DiagnosisPage* page = window.diagnosisPage();
    window.showPage(page);
    page->setTarget(window.endpointUrl("anthro"));
    page->setWorkload(40, 4);
    page->setCaptureRun(true);
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QSignalSpy captured(page, &DiagnosisPage::captureReady);
    QPushButton* run = nullptr;
    for (auto* b : page->findChildren<QPushButton*>())
      if (b->text() == "Run diagnosis") run = b;
    QVERIFY(run);
    QTest::mouseClick(run, Qt::LeftButton);
    QVERIFY(page->running());
    QVERIFY(finished.wait(120000));
    QVERIFY2(!captured.isEmpty(), qPrintable("no capture: " + window.logText()));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(captured.size(), 1);

    const QString stall_reason = page->model()->data(page->model()->index(page->model()->rowOf("server-stall"), 2), Qt::DisplayRole).toString();
    QVERIFY2(verdict_of(page, "server-stall") == Verdict::Warn, qPrintable(stall_reason + "\n" + window.logText()));
    QCOMPARE(verdict_of(page, "gpu-context-wait"), Verdict::Pass);  // only the mapped item is flagged
    QCOMPARE(verdict_of(page, "ttft-tail"), Verdict::Inconclusive);  // 40 requests < 100
    // The run's capture is a source: http-fallback (capture only) is measured on it.
    const ItemResult& fallback = *page->model()->row(page->model()->rowOf("http-fallback")).result;
    QVERIFY2(fallback.verdict == Verdict::Pass, fallback.reason.c_str());
    QVERIFY(std::find(fallback.sources.begin(), fallback.sources.end(), ProbeSource::Capture) != fallback.sources.end());
    QVERIFY(fallback.n > 0);
    QCOMPARE(page->model()->data(page->model()->index(page->model()->rowOf("server-stall"), 0), Qt::DisplayRole).toString(),
             QString("warn"));

    page->selectItem("server-stall");
    EvidenceView* evidence = page->evidence();
    QVERIFY(evidence->figure("statistic").contains("ms"));
    QVERIFY(evidence->figure("threshold").contains("500"));
    QCOMPARE(evidence->chart()->kind(), EvidenceChart::Kind::Timeline);
    QVERIFY(evidence->refs()->topLevelItemCount() > 0);
    const ItemResult& result = *page->model()->row(page->model()->rowOf("server-stall")).result;
    const auto& run_info = *page->model()->row(page->model()->rowOf("server-stall")).run;
    const EvidenceRef& ref = result.refs.at(0);
    QVERIFY(ref.stream_id);
    QVERIFY2(run_info.conn_names.count(ref.conn), ref.conn.c_str());

    click_ref(evidence, 0);
    CaptureInspector* inspector = window.currentInspector();
    QVERIFY(inspector);
    QCOMPARE(inspector->path(), captured.at(0).at(0).toString());
    check_frames(inspector, run_info.conn_names.at(ref.conn), *ref.stream_id, 500);

    window.resize(1366, 768);
    check_no_empty_column(inspector);

    // From that capture, "Diagnose this capture": the same item flagged, from packets alone.
    QSignalSpy again(page, &DiagnosisPage::finished);
    emit inspector->diagnoseRequested();
    QCOMPARE(window.tabs()->currentPage(), page);
    QVERIFY(again.wait(60000));
    QCOMPARE(again.at(0).at(0).toBool(), true);
    QCOMPARE(verdict_of(page, "server-stall"), Verdict::Warn);
    const ItemResult& from_capture = *page->model()->row(page->model()->rowOf("server-stall")).result;
    page->selectItem("server-stall");
    click_ref(evidence, 1);
    QCOMPARE(window.currentInspector(), inspector);
    check_frames(inspector, from_capture.refs.at(1).conn, *from_capture.refs.at(1).stream_id, 500);
  }

  // Session affinity rides on the Messages API: a captured run's evidence (strip-affinity-headers:
  // replies without the request's session) jumps to that exchange's frames in the run's capture,
  // the HTTP/1.1 exchange the live client numbered as the capture does.
  void sessionAffinityEvidenceJumpsToTheExchangesFrames() {
    gui::MainWindow window(nullptr, {"strip-affinity-headers"});
    window.resize(1366, 768);
    window.show();
    DiagnosisPage* page = window.diagnosisPage();
    window.showPage(page);
    page->setChecklist(*builtin_checklist("session-affinity"));
    page->setTarget(window.endpointUrl("https") + "/v1/messages");
    page->setWorkload(24, 2);
    page->setCaptureRun(true);
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QSignalSpy captured(page, &DiagnosisPage::captureReady);
    QVERIFY(page->run());
    QVERIFY(finished.wait(120000));
    QVERIFY2(!captured.isEmpty(), qPrintable("no capture: " + window.logText()));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY2(page->progressText().startsWith("Diagnosis done; evidence jumps to the frames of"), qPrintable(page->progressText()));

    page->selectItem("sa-header-dropped");
    const DiagnosisRow& row = page->model()->row(page->model()->rowOf("sa-header-dropped"));
    QVERIFY2(row.result && (row.result->verdict == Verdict::Warn || row.result->verdict == Verdict::Fail),
             qPrintable(window.logText()));
    const EvidenceRef& ref = row.result->refs.at(0);
    QVERIFY(ref.stream_id);
    QVERIFY2(row.run->conn_names.count(ref.conn), ref.conn.c_str());
    const std::string conn = row.run->conn_names.at(ref.conn);

    QSignalSpy said(page, &DiagnosisPage::message);
    click_ref(page->evidence(), 0);
    QVERIFY2(said.isEmpty(), qPrintable(said.isEmpty() ? QString() : said.at(0).at(0).toString()));
    CaptureInspector* inspector = window.currentInspector();
    QVERIFY(inspector);
    QCOMPARE(inspector->path(), captured.at(0).at(0).toString());
    QVERIFY(wait_loaded(inspector, 30000));
    // The exchange in the capture.
    auto analysis = inspector->index()->analysis();
    std::uint32_t conn_number = 0;
    const RequestResult* exchange = nullptr;
    for (std::size_t c = 0; c < analysis->connections.size(); ++c)
      if (analysis->connections[c].info.name == conn)
        for (const auto& s : analysis->connections[c].streams)
          if (s.stream_id == *ref.stream_id) exchange = &s, conn_number = static_cast<std::uint32_t>(c + 1);
    QVERIFY2(exchange, qPrintable(QString::fromStdString(conn)));
    const auto* affinity = exchange->extensions.find<AffinityExchange>(session_affinity_id());
    QVERIFY(affinity && !affinity->session_id);  // the reply came without its session
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->filtering(), 10000);
    FrameTableModel* frames = inspector->frames();
    QTRY_VERIFY_WITH_TIMEOUT(frames->rowCount() > 2, 10000);
    QCOMPARE(frames->data(frames->index(0, FrameTableModel::Type), Qt::DisplayRole).toString(), QString("HTTP_REQUEST"));
    QCOMPARE(frames->data(frames->index(1, FrameTableModel::Type), Qt::DisplayRole).toString(), QString("HTTP_RESPONSE"));
    for (int r = 0; r < frames->rowCount(); ++r) {
      QCOMPARE(frames->data(frames->index(r, FrameTableModel::Stream), Qt::DisplayRole).toUInt(), *ref.stream_id);
      QCOMPARE(frames->data(frames->index(r, FrameTableModel::Connection), Qt::DisplayRole).toUInt(), conn_number);
    }
    check_no_empty_column(inspector);  // the token stream's tracer columns have nothing here
  }

  // "Close without CANCEL" in the page's client faults reaches the live workload.
  void closeWithoutCancelFlagsCancelNotSent() {
    gui::MainWindow window;
    DiagnosisPage* page = window.diagnosisPage();
    page->setTarget(window.endpointUrl("anthro"));
    page->setWorkload(40, 2);
    page->setCaptureRun(false);
    page->clientFaults()->setFaults({.close_without_cancel = true});
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    const QString reason = page->model()->data(page->model()->index(page->model()->rowOf("cancel-not-sent"), 2), Qt::DisplayRole).toString();
    QVERIFY2(verdict_of(page, "cancel-not-sent") == Verdict::Warn, qPrintable(reason + "\n" + window.logText()));
    // The outcome line follows a language switch, both ways.
    QCOMPARE(page->progressText(), QString("Diagnosis done"));
    gui::install_language("zh_CN");
    QTRY_COMPARE(page->progressText(), QString::fromUtf8("诊断完成"));
    // Issue 41: in 简体中文 every reason the page shows — the list's and the evidence panel's,
    // with its statistic — is Chinese, not core's English.
    for (int row = 0; row < page->model()->rowCount(); ++row) {
      const QString reason = page->model()->data(page->model()->index(row, DiagnosisModel::ReasonColumn), Qt::DisplayRole).toString();
      const std::string english = test::english_run(reason.toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + reason));
      page->selectItem(QString::fromStdString(page->model()->row(row).item.id));
      for (const char* figure : {"reason", "statistic", "n", "threshold", "sources"}) {
        const QString shown = page->evidence()->figure(figure);
        QVERIFY2(test::english_run(shown.toStdString()).empty(), qPrintable(QString(figure) + ": " + shown));
      }
      // The sources and a threshold's verdict are core's single words: in Chinese too.
      QVERIFY2(!page->evidence()->figure("sources").contains("live"), qPrintable(page->evidence()->figure("sources")));
      const QString threshold = page->evidence()->figure("threshold");
      QVERIFY2(!threshold.contains("→ warn") && !threshold.contains("→ fail"), qPrintable(threshold));
    }
    QVERIFY(page->model()->data(page->model()->index(page->model()->rowOf("cancel-not-sent"), DiagnosisModel::ReasonColumn),
                                Qt::DisplayRole).toString().contains(QString::fromUtf8("客户端未发送 CANCEL 就放弃的流")));
    gui::install_language("en");
    QTRY_COMPARE(page->progressText(), QString("Diagnosis done"));
  }

  // The session-affinity checklist picked from the page's list, as a user does: the live target
  // moves to the Messages API (anthro-v1 cannot carry session affinity's headers), the run flags
  // the fault the embedded endpoint has on and nothing else, and "Latency diagnosis" comes back.
  void sessionAffinityChecklistPickedFromTheList() {
    gui::MainWindow window(nullptr, {"strip-affinity-headers"});
    DiagnosisPage* page = window.diagnosisPage();
    window.showPage(page);
    page->setTarget(window.endpointUrl("anthro"));
    page->setWorkload(24, 2);
    page->setCaptureRun(false);
    QComboBox* box = page->checklistBox();
    QCOMPARE(box->count(), int(builtin_checklists().size()));
    QCOMPARE(box->currentData().toString(), QString("latency"));
    box->setFocus();
    QTest::keyClick(box, Qt::Key_Down);
    QCOMPARE(box->currentText(), QString("Session affinity"));
    QCOMPARE(page->checklist().id, std::string("session-affinity"));
    QCOMPARE(page->model()->rowCount(), int(builtin_checklist("session-affinity")->items.size()));
    QCOMPARE(page->target(), window.endpointUrl("https") + "/v1/messages");

    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY2(only_flagged(page, *builtin_checklist("session-affinity"), "sa-header-dropped"), "see the verdicts above");
    gui::install_language("zh_CN");
    QTRY_COMPARE(box->currentText(), QString::fromStdString(builtin_checklist("session-affinity")->title.zh_CN));
    gui::install_language("en");
    QTest::keyClick(box, Qt::Key_Up);
    QCOMPARE(page->checklist().id, std::string("latency"));
  }

  // The token-stream checklist picked from the list: the target moves to the Messages API, the
  // embedded endpoint serves the token stream, and only the degraded-path item is flagged.
  void tokenStreamChecklistPickedFromTheList() {
    gui::MainWindow window(nullptr, {"ts-degraded=0.3"});
    DiagnosisPage* page = window.diagnosisPage();
    window.showPage(page);
    page->setTarget(window.endpointUrl("anthro"));
    page->setWorkload(24, 2);
    page->setCaptureRun(true);  // its evidence, riding on HTTP as session affinity's does, finds its exchanges
    QComboBox* box = page->checklistBox();
    box->setCurrentIndex(box->findData(QString("token-stream")));
    emit box->activated(box->currentIndex());
    QCOMPARE(page->checklist().id, std::string("token-stream"));
    QCOMPARE(page->target(), window.endpointUrl("https") + "/v1/messages");
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY2(only_flagged(page, *builtin_checklist("token-stream"), "ts-degraded-rate"), "see the verdicts above");
    const DiagnosisRow& row = page->model()->row(page->model()->rowOf("ts-degraded-rate"));
    QVERIFY(row.result && !row.result->refs.empty() && row.result->refs.front().stream_id);
    QVERIFY2(row.run->conn_names.count(row.result->refs.front().conn), row.result->refs.front().conn.c_str());
  }

  // A finding another explains shows its cause as a link; following it selects that item.
  void aCauseLinksToItsItem() {
    Observations o;
    o.live = true;
    for (int i = 0; i < 100; ++i) {
      ObservedRequest q;
      q.edit().timeline.request_written = 1;
      q.edit().end = RequestEnd::Response;
      q.edit().figures.ttft_ms = i < 3 ? 3800 : 100;
      q.edit().server_timing = Timing{};
      q.edit().server_timing->context_wait_us = i < 3 ? 3'700'000 : 30'000;
      o.requests.push_back(q);
    }
    auto run = std::make_shared<DiagnosisRun>();
    DiagnosisPage page;
    page.model()->setDiagnosis(evaluate(builtin_latency_checklist(), o), run);
    page.selectItem("ttft-tail");
    QLabel* cause = page.evidence()->causeLabel();
    QVERIFY(!cause->isHidden());
    QVERIFY2(cause->text().startsWith("Caused by <a href=\"gpu-context-wait\">") &&
                 cause->text().contains("context wait is 97.37 % of TTFT in the 3 slowest requests"),
             qPrintable(cause->text()));
    emit cause->linkActivated("gpu-context-wait");
    QCOMPARE(page.list()->currentIndex().row(), page.model()->rowOf("gpu-context-wait"));
    QVERIFY(cause->isHidden());  // gpu-context-wait has no cause of its own
  }

  // A target nothing listens on ends the run with the address and the reason, as the CLI
  // says it, and no verdicts: nothing was measured.
  void anUnreachableTargetEndsWithItsReasonAndNoVerdicts() {
    DiagnosisPage page;
    page.setTarget("anthro://127.0.0.1:1");
    page.setCaptureRun(false);
    QSignalSpy finished(&page, &DiagnosisPage::finished);
    QSignalSpy said(&page, &DiagnosisPage::message);
    QVERIFY(page.run());
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    const QString reason = "cannot connect to 127.0.0.1:1: Connection refused";
    QCOMPARE(page.progressText(), reason);
    QVERIFY(!said.isEmpty());
    QCOMPARE(said.last().at(0).toString(), reason);
    QVERIFY(!page.hasDiagnosis());
    for (int r = 0; r < page.model()->rowCount(); ++r) QVERIFY2(!page.model()->row(r).result, qPrintable(page.model()->title(r)));
  }

  // The Thresholds field takes what `diagnose --threshold` takes: a bad entry is marked on the
  // field in the page's words and nothing runs; a good one changes the item's threshold.
  void thresholdsComeFromTheirField() {
    DiagnosisPage page;
    auto* field = page.findChild<QLineEdit*>("thresholds");
    QVERIFY(field);
    const QString capture = QString::fromStdString(test::vectors_path("lab-conversation.pcap"));
    const CaptureKeySources keys{{test::vectors_path("lab-conversation.keylog")}, {}};
    QSignalSpy finished(&page, &DiagnosisPage::finished);
    QVERIFY(page.diagnoseCapture(capture, keys));
    QVERIFY(finished.wait(60000));
    const std::string standard = page.diagnosis()->item("server-stall")->threshold;

    field->setText("server-stall=abc");
    QSignalSpy said(&page, &DiagnosisPage::message);
    QVERIFY(!page.diagnoseCapture(capture, keys));
    QVERIFY(!page.running());
    QVERIFY(field_marked(field));
    QCOMPARE(field->toolTip(), QString("Thresholds: \"server-stall=abc\": \"abc\" is not a number"));
    QCOMPARE(said.last().at(0).toString(), field->toolTip());
    field->setText("no-such-item=3");
    QVERIFY(!page.diagnoseCapture(capture, keys));
    QVERIFY2(field->toolTip().contains("no item \"no-such-item\""), qPrintable(field->toolTip()));

    field->setText("server-stall=7");
    QVERIFY(page.diagnoseCapture(capture, keys));
    QVERIFY(!field_marked(field));
    QVERIFY(finished.wait(60000));
    const std::string own = page.diagnosis()->item("server-stall")->threshold;
    QVERIFY2(own != standard && own.find('7') != std::string::npos, own.c_str());
  }

  void cancelStopsARun() {
    gui::MainWindow window;
    DiagnosisPage* page = window.diagnosisPage();
    page->setTarget(window.endpointUrl("anthro+lab"));
    page->setWorkload(2000, 4);
    page->setCaptureRun(false);
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(page->busy());
    // The bar is determinate once the run knows its total: "54/200", not back and forth.
    QTRY_VERIFY_WITH_TIMEOUT(page->progressBar()->maximum() > 0 && page->progressBar()->value() >= 3, 30000);
    const int total = page->progressBar()->maximum();
    QVERIFY(total > 2000);  // the ordinary requests and the probes
    QElapsedTimer t;
    t.start();
    page->cancel();
    QVERIFY(t.elapsed() < anthro::test::timing_bound(200, 1000));  // never waits on the worker (its run takes seconds)
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY(!page->running());
    // It says how far it got, and the dropped run's progress line ("live: bench: 18 requests
    // done", once a second) never replaces that.
    const QRegularExpression said("^Cancelled: (\\d+) of (\\d+) requests done$");
    QVERIFY2(said.match(page->progressText()).hasMatch(), qPrintable(page->progressText()));
    QCOMPARE(said.match(page->progressText()).captured(2).toInt(), total);
    QTest::qWait(1500);
    QVERIFY2(said.match(page->progressText()).hasMatch(), qPrintable(page->progressText()));
    QVERIFY(page->run());  // a new run starts at once; the old worker's reports are dropped
    page->cancel();
  }

  // An item re-run alone gets a fresh result; the others keep theirs. A manual item is ticked
  // with a note.
  void anItemRerunsAloneAndAManualItemIsTicked() {
    gui::MainWindow window;
    DiagnosisPage* page = window.diagnosisPage();
    Checklist checklist = builtin_latency_checklist();
    ChecklistItem manual;
    manual.id = "runbook-read";
    manual.probe = "manual";
    manual.title = {"The on-call runbook was read", "已阅读值班手册"};
    manual.remedy = {"Read it.", "去读。"};
    checklist.items.push_back(manual);
    page->setChecklist(checklist);
    page->setTarget(window.endpointUrl("anthro+lab"));
    page->setWorkload(20, 4);
    page->setCaptureRun(false);
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(finished.wait(60000));
    QCOMPARE(verdict_of(page, "connection-reset"), Verdict::Pass);
    QCOMPARE(verdict_of(page, "runbook-read"), Verdict::Manual);
    const auto before = page->model()->row(page->model()->rowOf("connection-reuse")).run;

    page->selectItem("connection-reset");
    QVERIFY(page->evidence()->rerunButton()->isEnabled());
    QTest::mouseClick(page->evidence()->rerunButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QVERIFY(page->model()->row(page->model()->rowOf("connection-reset")).run != before);
    QCOMPARE(page->model()->row(page->model()->rowOf("connection-reuse")).run, before);

    page->selectItem("runbook-read");
    QVERIFY(page->evidence()->tickBox()->isVisible() || !window.isVisible());
    page->evidence()->noteEdit()->setText("read on 2024-05-01");
    page->evidence()->tickBox()->setChecked(true);
    const int row = page->model()->rowOf("runbook-read");
    QVERIFY(page->model()->row(row).ticked);
    QCOMPARE(page->model()->data(page->model()->index(row, DiagnosisModel::ReasonColumn), Qt::DisplayRole).toString(),
             QString("checked: read on 2024-05-01"));
    page->setLanguage("zh_CN");
    QCOMPARE(page->model()->title(row), QString::fromUtf8("已阅读值班手册"));
  }

 private:
  QTemporaryDir data_;
};

QTEST_MAIN(TestDiagnosisPage)
#include "test_diagnosis_page.moc"
