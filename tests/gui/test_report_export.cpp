// File → Export report… as a user drives it, offscreen: a diagnosis run on the embedded
// endpoint through the Diagnosis page, the export dialog's preview (verdicts, chart images),
// HTML and PDF saved and read back, the report switched to 简体中文 while the interface stays
// English; a capture tab's report; a failed save that writes nothing. And the report labels:
// the ones registered for translation are core's, each with a zh_CN translation.
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <QAction>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTextDocument>
#include <set>

#include "capture_inspector.h"
#include "diagnosis_model.h"
#include "diagnosis_page.h"
#include "evidence_view.h"
#include "main_window.h"
#include "report_dialog.h"
#include "report_renderer.h"
#include "session_panel.h"
#include "test_paths.h"

using namespace anthro;
using namespace anthro::widgets;

namespace {

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString pdftotext(const QString& pdf) {
  QProcess p;
  p.start("pdftotext", {"-enc", "UTF-8", pdf, "-"});
  if (!p.waitForFinished(30000)) return {};
  return QString::fromUtf8(p.readAllStandardOutput());
}

// The export dialog the main window opened, once its preview is ready.
ReportDialog* wait_dialog(gui::MainWindow& window) {
  auto* dialog = window.findChild<ReportDialog*>();
  if (!dialog) return nullptr;
  if (dialog->busy()) {
    QSignalSpy ready(dialog, &ReportDialog::previewReady);
    if (!ready.wait(30000)) return nullptr;
  }
  return dialog;
}

// Every chart of the report is an image of the preview's document, and the preview shows it.
void check_chart_images(ReportDialog* dialog) {
  const ReportDocument* doc = dialog->document();
  QVERIFY(doc);
  QVERIFY(!doc->charts.empty());
  QTextDocument* shown = dialog->preview()->document();
  for (const auto& c : doc->charts) {
    const QString url = QString("chart:%1").arg(QString::fromStdString(c.id));
    QImage image = shown->resource(QTextDocument::ImageResource, QUrl(url)).value<QImage>();
    QVERIFY2(!image.isNull() && image.width() > 300, qPrintable(url));
    QVERIFY2(shown->toHtml().contains("src=\"" + url + "\""), qPrintable(url));
  }
}

}  // namespace

class TestReportExport : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(data_.isValid());
    QVERIFY(out_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toUtf8());  // the endpoint's generated credentials
  }

  // The labels lupdate sees are the labels core uses, and each has a Chinese translation; the
  // few that read the same in both languages are named here.
  void everyReportLabelHasAChineseTranslation() {
    std::set<QString> registered, used;
    for (const QString& l : translatableReportLabels()) registered.insert(l);
    for (const auto& l : report_labels()) used.insert(QString::fromStdString(l));
    QCOMPARE(registered, used);

    const std::set<QString> same_in_both = {"OpenSSL", "Qt", "TTFT", "HTTP", "ALPN", "anthro-v1"};
    const ReportOptions zh = reportOptions({}, "zh_CN", false);
    const ReportOptions en = reportOptions({}, "en", false);
    for (const QString& label : used) {
      const std::string english = label.toStdString();
      QCOMPARE(QString::fromStdString(en.translate(english)), label);
      const QString chinese = QString::fromStdString(zh.translate(english));
      if (same_in_both.count(label)) QCOMPARE(chinese, label);  // the list holds no label that is translated
      else QVERIFY2(chinese != label && !chinese.isEmpty(), qPrintable(label + " has no zh_CN translation"));
      if (label.contains("%1")) QVERIFY2(chinese.contains("%1"), qPrintable(label));
    }
    // The report's own translator: the interface's (English here) is left alone.
    QCOMPARE(QCoreApplication::translate("Report", "Summary"), QString("Summary"));
  }

  // A diagnosis through the Diagnosis page, exported from File → Export report….
  void aDiagnosisIsPreviewedAndSavedAsHtmlAndPdf() {
    gui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    DiagnosisPage* page = window.diagnosisPage();
    Checklist checklist = builtin_latency_checklist();
    ChecklistItem manual;  // a manual item with a person's note: the report carries the note
    manual.id = "runbook-read";
    manual.probe = "manual";
    manual.title = {"The on-call runbook was read", "已阅读值班手册"};
    manual.remedy = {"Read it.", "去读。"};
    checklist.items.push_back(manual);
    page->setChecklist(checklist);
    page->setTarget(window.endpointUrl("anthro+lab"));
    page->setWorkload(20, 4);
    page->setCaptureRun(false);
    window.showPage(page);
    QVERIFY(!window.exportReportAction()->isEnabled());  // nothing run yet
    QVERIFY(!window.exportReport());
    QSignalSpy finished(page, &DiagnosisPage::finished);
    QVERIFY(page->run());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    const int manual_row = page->model()->rowOf("runbook-read");
    page->model()->setTicked(manual_row, true, "read on 2024-05-01");
    const Diagnosis diagnosis = *page->diagnosis();
    QCOMPARE(diagnosis.items.size(), checklist.items.size());

    QVERIFY(window.exportReportAction()->isEnabled());
    window.exportReportAction()->trigger();
    QPointer<ReportDialog> dialog = wait_dialog(window);
    QVERIFY(dialog);
    QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
    QCOMPARE(dialog->language(), QString("en"));  // the interface's
    QCOMPARE(dialog->document()->kind, ResultKind::Diagnosis);

    // The preview: each item with its verdict before its heading, and the charts as images.
    const QStringList lines = dialog->preview()->toPlainText().split('\n');
    for (const auto& item : diagnosis.items) {
      const QString id = QString::fromStdString(item.id);
      const QString verdict = QString::fromLatin1(to_string(item.verdict));
      bool shown = false;
      for (const QString& line : lines)
        if (line.endsWith("(" + id + ")") && line.trimmed().startsWith(verdict + " ")) shown = true;
      QVERIFY2(shown, qPrintable(id + " " + verdict));
    }
    QVERIFY(dialog->preview()->toPlainText().contains("read on 2024-05-01"));
    check_chart_images(dialog);

    // HTML: every item's verdict chip in its heading (its id as code), the charts inline as SVG.
    const QString html_path = out_.filePath("diagnosis.html");
    dialog->setFormat(ReportFormat::Html);
    QVERIFY2(dialog->save(html_path), qPrintable(dialog->errorText()));
    const QString html = QString::fromUtf8(read(html_path));
    static const QRegularExpression heading(R"re(<span class="chip (\w+)">[^<]*</span> [^<]*\(<code>([\w-]+)</code>\)</h3>)re");
    std::map<QString, QString> verdicts;
    for (auto m = heading.globalMatch(html); m.hasNext();) {
      auto match = m.next();
      verdicts[match.captured(2)] = match.captured(1);
    }
    QCOMPARE(verdicts.size(), diagnosis.items.size());
    for (const auto& item : diagnosis.items)
      QCOMPARE(verdicts[QString::fromStdString(item.id)], QString::fromLatin1(to_string(item.verdict)));
    QCOMPARE(html.count("<svg"), static_cast<int>(dialog->document()->charts.size()));
    QVERIFY(html.contains("read on 2024-05-01"));
    QVERIFY2(window.logText().contains(html_path), qPrintable(window.logText()));

    // PDF: its text holds every verdict the diagnosis gave.
    const QString pdf_path = out_.filePath("diagnosis.pdf");
    dialog->setFormat(ReportFormat::Pdf);
    QVERIFY2(dialog->save(pdf_path), qPrintable(dialog->errorText()));
    QVERIFY(read(pdf_path).startsWith("%PDF"));
    QVERIFY(!QFile::exists(pdf_path + ".tmp"));
    const QString text = pdftotext(pdf_path);
    QVERIFY2(text.contains("Latency diagnosis"), qPrintable(text.left(300)));
    for (const auto& item : diagnosis.items)
      QVERIFY2(text.contains(QString::fromLatin1(to_string(item.verdict))), to_string(item.verdict));
    QVERIFY(window.logText().contains(pdf_path));

    // A save that cannot happen says why in the dialog and leaves nothing behind.
    const QString nowhere = out_.filePath("missing-dir/report.html");
    dialog->setFormat(ReportFormat::Html);
    QVERIFY(!dialog->save(nowhere));
    QVERIFY(!dialog->errorText().isEmpty());
    QVERIFY(!QFile::exists(nowhere));

    // 简体中文: the report's labels change, the interface's do not.
    QSignalSpy ready(dialog, &ReportDialog::previewReady);
    dialog->setLanguage("zh_CN");
    QVERIFY(dialog->busy());
    QVERIFY(ready.wait(30000));
    QCOMPARE(ready.at(0).at(0).toBool(), true);
    const QString chinese = dialog->preview()->toPlainText();
    QVERIFY2(chinese.contains(QString::fromUtf8("摘要")), qPrintable(chinese.left(300)));  // "Summary"
    QVERIFY(chinese.contains(QString::fromUtf8("延迟诊断")));                              // "Latency diagnosis"
    QVERIFY(!chinese.contains("Summary"));
    QVERIFY(chinese.contains(QString::fromUtf8("已阅读值班手册")));  // the manual item's title, in Chinese
    check_chart_images(dialog);
    QCOMPARE(QCoreApplication::translate("Report", "Summary"), QString("Summary"));
    const QString zh_path = out_.filePath("diagnosis-zh.pdf");
    dialog->setFormat(ReportFormat::Pdf);
    QVERIFY(dialog->save(zh_path));
    QVERIFY(pdftotext(zh_path).contains(QString::fromUtf8("摘要")));

    dialog->close();  // deleted on close
    QTRY_VERIFY(dialog.isNull());
  }

  // The live session page reports what ended last: the session, then a load. "Redact prompts
  // and answers" takes the answer's text out of the report.
  void theLiveSessionPageExportsItsLastSessionOrLoad() {
    gui::MainWindow window;
    SessionPanel* panel = window.sessionPanel();
    window.showPage(panel);
    QVERIFY(!window.exportReportAction()->isEnabled());
    panel->setTarget(window.endpointUrl("anthro+lab"));
    QSignalSpy session(panel, &SessionPanel::sessionFinished);
    QVERIFY(panel->send());
    QVERIFY(session.wait(30000));
    const QString answer = panel->answer().trimmed().left(24);
    QVERIFY(answer.size() > 10);
    QVERIFY(window.exportReportAction()->isEnabled());
    window.exportReportAction()->trigger();
    ReportDialog* dialog = wait_dialog(window);
    QVERIFY(dialog);
    QCOMPARE(dialog->document()->kind, ResultKind::Session);
    QVERIFY(QString::fromStdString(dialog->document()->result_json).contains(answer));
    QSignalSpy ready(dialog, &ReportDialog::previewReady);
    dialog->setRedactPrompts(true);
    QVERIFY(ready.wait(30000));
    QVERIFY(!dialog->document()->redactions.empty());
    QVERIFY(!QString::fromStdString(dialog->document()->result_json).contains(answer));
    QVERIFY(!dialog->preview()->toPlainText().contains(answer));
    dialog->close();

    QSignalSpy load(panel, &SessionPanel::loadFinished);
    panel->setLoad(8, 2);
    panel->runLoad();
    QVERIFY(load.wait(30000));
    QCOMPARE(load.at(0).at(0).toBool(), true);
    QPointer<ReportDialog> bench = window.exportReport();
    QVERIFY(bench);
    QSignalSpy bench_ready(bench.data(), &ReportDialog::previewReady);
    QVERIFY(bench_ready.wait(30000));
    QCOMPARE(bench->document()->kind, ResultKind::Bench);
    QVERIFY(bench->preview()->toPlainText().contains("Load benchmark"));
  }

  // A capture tab's report: its analysis, from the inspector's own button.
  void aCaptureTabExportsItsAnalysis() {
    gui::MainWindow window;
    const QDir vectors(ANTHRO_VECTORS_DIR);
    CaptureInspector* inspector =
        window.openCapture(vectors.filePath("lab-conversation.pcap"), {vectors.filePath("lab-conversation.keylog")});
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->loading(), 20000);
    QVERIFY(window.exportReportAction()->isEnabled());
    emit inspector->exportReportRequested();
    ReportDialog* dialog = wait_dialog(window);
    QVERIFY(dialog);
    QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
    QCOMPARE(dialog->document()->kind, ResultKind::Analysis);
    const QString text = dialog->preview()->toPlainText();
    QVERIFY(text.contains("Capture analysis"));
    QVERIFY(text.contains("lab-conversation.pcap"));
    const QString md = out_.filePath("capture.md");
    dialog->setFormat(ReportFormat::Markdown);
    QVERIFY2(dialog->save(md), qPrintable(dialog->errorText()));
    QVERIFY(read(md).contains("Capture analysis"));
    QVERIFY(window.logText().contains(md));
  }

 private:
  QTemporaryDir data_, out_;
};

QTEST_MAIN(TestReportExport)
#include "test_report_export.moc"
