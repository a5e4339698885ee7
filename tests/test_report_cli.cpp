// `anthro-wb report` as users run it: each result kind (produced by anthro-wb itself) to each
// format, the content checked — HTML parsed (no external reference, every verdict, its SVG
// charts), the PDF's text (pdftotext) holding every verdict, the Markdown's PNGs present — and
// a run with an API key, a key log and a PEM key leaving none of their bytes in any output.
#include <algorithm>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <nlohmann/json.hpp>

#include "test_paths.h"

using nlohmann::json;

namespace {

struct Run {
  int code;
  QByteArray out, err;
};

const QString kApiKey = "sk-ant-api03-reportTestKey-9f8e7d6c5b4a39281706";

Run run(const QString& program, const QStringList& args, const QProcessEnvironment& env, int timeout_ms = 180000) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(program, args);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeout_ms)) p.kill();
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Parses the HTML with Python's html.parser: every src/href, the verdict chips, the SVGs.
const char* const kHtmlProbe = R"(import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.refs = []; self.chips = []; self.svgs = 0; self.tags = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ('src', 'href', 'xlink:href'):
            if k in a: self.refs.append(a[k])
        if tag == 'svg': self.svgs += 1
        c = a.get('class') or ''
        if tag == 'span' and c.startswith('chip '): self.chips.append(c.split()[1])
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read()); p.close()
print(json.dumps({'refs': p.refs, 'chips': p.chips, 'svgs': p.svgs}))
)";

}  // namespace

class TestReportCli : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    env_ = QProcessEnvironment::systemEnvironment();
    env_.insert("XDG_DATA_HOME", dir_.filePath("data"));
    env_.insert("REPORT_TEST_KEY", kApiKey);
    env_.insert("SSLKEYLOGFILE", dir_.filePath("keys.log"));
    endpoint_.setProcessEnvironment(env_);
    endpoint_.start(ANTHRO_WB, {"endpoint", "--listen", "127.0.0.1:0", "--ttft-ms", "20:4", "--itl-ms", "1", "--tokens",
                                "12", "--fault", "context-wait=30", "--require-api-key-env", "REPORT_TEST_KEY"});
    QVERIFY(endpoint_.waitForStarted());
    while (target_.isEmpty() && endpoint_.waitForReadyRead(10000))
      while (endpoint_.canReadLine()) {
        QString line = QString::fromUtf8(endpoint_.readLine()).trimmed();
        if (line.startsWith("listening anthro://")) target_ = line.mid(10);
      }
    QVERIFY(!target_.isEmpty());
    produceResults();
  }

  void cleanupTestCase() {
    endpoint_.terminate();
    endpoint_.waitForFinished(10000);
  }

  void eachKindToEachFormat_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("format");
    for (const char* kind : {"diagnosis", "rollout", "session", "bench", "analysis", "comparison"})
      for (const char* format : {"html", "pdf", "md", "json"})
        QTest::newRow(qPrintable(QString("%1 %2").arg(kind, format))) << QString(kind) << QString(format);
  }
  void eachKindToEachFormat() {
    QFETCH(QString, kind);
    QFETCH(QString, format);
    const QString input = dir_.filePath(kind + ".json");
    const QString output = dir_.filePath("out/" + kind + "." + format);
    QDir().mkpath(dir_.filePath("out"));
    Run r = run(ANTHRO_WB, {"report", input, "--to", format, "--output", output, "--lang", "en"}, env_);
    QVERIFY2(r.code == 0, r.err.constData());
    const json result = json::parse(read(input).toStdString());
    const std::vector<std::string> verdicts = verdicts_of(result);
    if (format == "html") checkHtml(output, verdicts);
    if (format == "pdf") checkPdf(output, verdicts);
    if (format == "md") checkMarkdown(output);
    if (format == "json") {
      json doc = json::parse(read(output).toStdString());
      QCOMPARE(doc["kind"], "report");
      QCOMPARE(doc["result"]["kind"], kind.toStdString());
    }
  }

  // The PDF's pages as a reader turns them (pdftotext -layout, a form feed a page): a chart of
  // thinned samples says how many of how many the item had; the "Charts" heading is never the
  // last line of a page, wherever the text before it ends (a note of growing length moves it
  // down a page, a few lines a step); no page holds the redaction note alone.
  void pdfPagesKeepHeadingsWithTheirChartsAndSayHowManySamples() {
    const QString many = dir_.filePath("diagnosis-many.json");
    Run d = run(ANTHRO_WB, {"diagnose", "--target", target_, "--api-key-env", "REPORT_TEST_KEY", "--requests", "200",
                            "--quiet", "--output", many}, env_);
    QVERIFY2(d.code == 0 || d.code == 1, d.err.constData());
    json result = json::parse(read(many).toStdString());
    const json* decode = nullptr;
    for (const auto& item : result["checklist"])
      if (item["id"] == "frame-decode-time") decode = &item;
    QVERIFY(decode);
    const std::size_t total = (*decode)["samples_total"].get<std::size_t>();
    QVERIFY2(total > 2000 && (*decode)["samples"].size() == 2000, qPrintable(QString::number(total)));
    QCOMPARE((*decode)["n"].get<std::size_t>(), total);

    const int kSteps = 24;  // about a page, three lines a step
    for (int step = 0; step < kSteps; ++step) {
      json variant = result;
      variant["checklist"][0]["note"] = QString("a note that moves what follows; ").repeated(step * 6).toStdString();
      const QString input = dir_.filePath(QString("many-%1.json").arg(step)), output = dir_.filePath(QString("many-%1.pdf").arg(step));
      QFile f(input);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(variant.dump()));
      f.close();
      Run r = run(ANTHRO_WB, {"report", input, "--to", "pdf", "--output", output, "--lang", "en"}, env_);
      QVERIFY2(r.code == 0, r.err.constData());
      QProcess p;
      p.start("pdftotext", {"-layout", "-enc", "UTF-8", output, "-"});
      QVERIFY(p.waitForFinished(60000) && p.exitCode() == 0);
      const QStringList pages = QString::fromUtf8(p.readAllStandardOutput()).split('\f', Qt::SkipEmptyParts);
      QVERIFY(pages.size() > 1);
      QVERIFY2(pages.join('\n').contains(QString("(n = %1, 2000 drawn)").arg(total)), qPrintable(QString::number(total)));
      for (int page = 0; page < pages.size(); ++page) {
        QStringList lines;
        for (const QString& l : pages[page].split('\n'))
          if (!l.trimmed().isEmpty()) lines << l.trimmed();
        const QString where = QString("step %1, page %2 of %3").arg(step).arg(page + 1).arg(pages.size());
        QVERIFY2(lines.isEmpty() || lines.last() != "Charts", qPrintable(where + ": \"Charts\" ends the page"));
        const QStringList redaction = {"Redacted", "nothing was redacted"};
        QVERIFY2(!std::all_of(lines.begin(), lines.end(), [&](const QString& l) { return redaction.contains(l); }),
                 qPrintable(where + ": the redaction note alone"));
      }
    }
  }

  // None of the run's secrets — the API key, every key log secret, the server's PEM key — nor
  // the same secrets planted in the result, appear in any format (the PDF as text and as bytes).
  void noSecretInAnyOutput() {
    QStringList secrets = {kApiKey};
    for (const QByteArray& line : read(dir_.filePath("keys.log")).split('\n')) {
      QList<QByteArray> f = line.simplified().split(' ');
      if (f.size() >= 3 && !line.startsWith('#')) secrets << QString::fromLatin1(f.last());
    }
    QVERIFY2(secrets.size() > 3, "the run wrote no key log");
    QString pem = QString::fromLatin1(read(server_key_path()));
    QVERIFY2(pem.contains("PRIVATE KEY"), qPrintable(server_key_path()));
    for (const QString& line : pem.split('\n'))
      if (line.size() >= 16 && !line.startsWith("-----")) secrets << line;
    json planted = json::parse(read(dir_.filePath("diagnosis.json")).toStdString());
    planted["warnings"].push_back("key log: " + read(dir_.filePath("keys.log")).toStdString());
    planted["warnings"].push_back("Authorization: Bearer " + kApiKey.toStdString());
    planted["warnings"].push_back("server key " + pem.toStdString());
    planted["request"] = {{"api_key", kApiKey.toStdString()}};
    QFile f(dir_.filePath("planted.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(planted.dump()));
    f.close();
    for (const char* input : {"diagnosis.json", "planted.json"})
      for (const char* format : {"html", "pdf", "md", "json"}) {
        const QString output = dir_.filePath(QString("secret/%1.%2").arg(input, format));
        QDir().mkpath(dir_.filePath("secret"));
        Run r = run(ANTHRO_WB, {"report", dir_.filePath(input), "--to", format, "--output", output}, env_);
        QVERIFY2(r.code == 0, r.err.constData());
        QByteArray bytes = read(output);
        if (QString(format) == "pdf") bytes += pdftotext(output);
        for (const QString& s : secrets)
          QVERIFY2(!bytes.contains(s.toLatin1()), qPrintable(QString("%1 in %2").arg(s.left(12), output)));
      }
    QVERIFY(read(dir_.filePath("secret/planted.json.html")).contains("key log secret"));  // and it says so
  }

  // The Chinese report: translated labels and CJK text drawn with a font that has them.
  void chineseReport() {
    const QString output = dir_.filePath("zh.pdf");
    Run r = run(ANTHRO_WB, {"report", dir_.filePath("diagnosis.json"), "--to", "pdf", "--output", output, "--lang", "zh_CN"}, env_);
    QVERIFY2(r.code == 0, r.err.constData());
    QString text = QString::fromUtf8(pdftotext(output));
    QVERIFY2(text.contains(QString::fromUtf8("摘要")), qPrintable(text.left(400)));  // "Summary"
    QVERIFY(text.contains(QString::fromUtf8("失败")));                              // "fail"
    QProcess fonts;
    fonts.start("pdffonts", {output});
    QVERIFY(fonts.waitForFinished(30000));
    QVERIFY2(fonts.readAllStandardOutput().contains("CJK"), "no CJK font embedded");
  }

  // Ids, commands and paths are monospaced and drawn without ligatures: the PDF's text holds
  // them as typed ("ring-buffer-stall", not "ring-buﬀer-stall"), so one copied out of the report
  // is found again. A team's own item brings a command with "ffi" and "fl" in its remedy, and
  // the result file's name a path with them.
  void codeCopiesOutAsTyped() {
    json d = json::parse(read(dir_.filePath("diagnosis.json")).toStdString());
    const std::string command = "offload-flush --affinity 0";
    d["checklist"].push_back({{"id", "offload-affinity"}, {"verdict", "warn"}, {"title", "Offload flushes share a core"},
                              {"evidence", "2 flushes on core 0"}, {"remedy", "`" + command + "` pins the flusher."}});
    const QString input = dir_.filePath("offload-affinity-flush.json"), output = dir_.filePath("offload.pdf");
    QFile f(input);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(d.dump()));
    f.close();
    Run r = run(ANTHRO_WB, {"report", input, "--to", "pdf", "--output", output, "--lang", "en"}, env_);
    QVERIFY2(r.code == 0, r.err.constData());
    const QString text = QString::fromUtf8(pdftotext(output));
    for (const QString& typed : {QString("ring-buffer-stall"), QString("offload-affinity"), QString::fromStdString(command), input})
      QVERIFY2(text.contains(typed), qPrintable(typed + " not in the PDF's text:\n" + text.left(3000)));
  }

  void badInputsAreRefused() {
    QFile f(dir_.filePath("bad.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"kind\": \"diagnosis\", \"schema_version\": 2}");
    f.close();
    const QString out = dir_.filePath("never.html");
    Run r = run(ANTHRO_WB, {"report", dir_.filePath("bad.json"), "--to", "html", "--output", out}, env_);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad.json: field schema_version"), r.err.constData());
    QVERIFY(!QFile::exists(out));
    QCOMPARE(run(ANTHRO_WB, {"report", dir_.filePath("none.json"), "--to", "html", "--output", out}, env_).code, 2);
    QCOMPARE(run(ANTHRO_WB, {"report", dir_.filePath("diagnosis.json"), "--to", "docx", "--output", out}, env_).code, 2);
    // An existing file is replaced only by a complete one: a report into an unwritable place
    // fails and leaves the old file as it was.
    QFile old(dir_.filePath("old.html"));
    QVERIFY(old.open(QIODevice::WriteOnly));
    old.write("previous report");
    old.close();
    r = run(ANTHRO_WB, {"report", dir_.filePath("bad.json"), "--to", "html", "--output", old.fileName()}, env_);
    QCOMPARE(r.code, 2);
    QCOMPARE(read(old.fileName()), QByteArray("previous report"));
  }

  // anthro-wb loads no Qt (every other command starts without it): `report` runs
  // anthro-wb-report, and says so when that program is not where it looks.
  void theRendererIsAProgramOfItsOwn() {
    QProcess readelf;
    readelf.start("readelf", {"--dynamic", ANTHRO_WB});
    QVERIFY(readelf.waitForFinished(30000));
    QCOMPARE(readelf.exitCode(), 0);
    const QByteArray needed = readelf.readAllStandardOutput();
    QVERIFY2(needed.contains("(NEEDED)"), needed.constData());
    QVERIFY2(!needed.contains("libQt6"), needed.constData());

    QProcessEnvironment env = env_;
    const QString missing = dir_.filePath("no-such-renderer");
    env.insert("ANTHRO_REPORT_HELPER", missing);
    const QString out = dir_.filePath("never2.html");
    Run r = run(ANTHRO_WB, {"report", dir_.filePath("diagnosis.json"), "--to", "html", "--output", out}, env);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(("the report renderer is not an executable file at " + missing).toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
  }

 private:
  void produceResults() {
    const QString wb = ANTHRO_WB;
    auto must = [&](const QStringList& args, const QString& out, QList<int> codes = {0, 1, 4}) {
      Run r = run(wb, args, env_);
      QVERIFY2(codes.contains(r.code), qPrintable(args.join(' ') + ": " + r.err));
      if (!out.isEmpty()) {
        QFile f(dir_.filePath(out));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(r.out);
      }
    };
    must({"diagnose", "--target", target_, "--api-key-env", "REPORT_TEST_KEY", "--requests", "30", "--quiet", "--output",
          dir_.filePath("diagnosis.json")},
         "");
    must({"rollout", "--stage", "4", "--requests-per-stage", "40", "--format", "json", "--quiet"}, "rollout.json");
    must({"session", "--target", target_, "--api-key-env", "REPORT_TEST_KEY", "--repeat", "3", "--format", "json"}, "session.json");
    must({"bench", "--target", target_, "--api-key-env", "REPORT_TEST_KEY", "--concurrency", "2", "--requests", "10",
          "--format", "json"},
         "bench.json");
    must({"bench", "--target", target_, "--api-key-env", "REPORT_TEST_KEY", "--concurrency", "2", "--requests", "30",
          "--format", "json"},
         "bench30.json");
    must({"compare", dir_.filePath("bench.json"), dir_.filePath("bench30.json"), "--output", dir_.filePath("comparison.json")}, "");
    must({"analyze", QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap", "--keylog",
          QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.keylog", "--format", "json"},
         "analysis.json");
  }

  QString server_key_path() const {
    for (const QString& name : QDir(dir_.filePath("data/anthro-workbench")).entryList(QDir::Files))
      if (read(dir_.filePath("data/anthro-workbench/" + name)).contains("PRIVATE KEY"))
        return dir_.filePath("data/anthro-workbench/" + name);
    return {};
  }

  static QByteArray pdftotext(const QString& pdf) {
    QProcess p;
    p.start("pdftotext", {"-enc", "UTF-8", pdf, "-"});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) qFatal("pdftotext %s failed", qPrintable(pdf));
    return p.readAllStandardOutput();
  }

  // The verdicts a reader must find: every checklist item's, every stage's and gate's.
  static std::vector<std::string> verdicts_of(const json& r) {
    std::vector<std::string> v;
    if (r.value("kind", "") == "diagnosis")
      for (const auto& item : r["checklist"]) v.push_back(item["verdict"]);
    if (r.value("kind", "") == "comparison")  // the table's words, in place of the chips' verdicts
      for (const auto& f : r["figures"]) v.push_back(f["verdict"]);
    if (r.value("kind", "") == "rollout")
      for (const auto& stage : r["stages"]) {
        v.push_back(stage["verdict"]);
        for (const auto& g : stage["gates"]) v.push_back(g["verdict"]);
      }
    return v;
  }

  void checkHtml(const QString& path, const std::vector<std::string>& verdicts) {
    QProcess p;
    p.start("/usr/bin/python3", {"-c", kHtmlProbe, path});
    QVERIFY(p.waitForFinished(60000) && p.exitCode() == 0);
    json probe = json::parse(p.readAllStandardOutput().toStdString());
    for (const auto& ref : probe["refs"]) {
      std::string r = ref;
      QVERIFY2(r.rfind("#", 0) == 0 || r.rfind("data:", 0) == 0, r.c_str());  // nothing outside the file
    }
    std::string html = read(path).toStdString();
    for (const auto& v : verdicts) QVERIFY2(html.find(">" + v + "<") != std::string::npos, v.c_str());
    std::size_t figures = 0;
    for (std::size_t at = 0; (at = html.find("<figure", at)) != std::string::npos; ++at) ++figures;
    QCOMPARE(probe["svgs"].get<std::size_t>(), figures);  // every chart is an inline SVG
  }

  void checkPdf(const QString& path, const std::vector<std::string>& verdicts) {
    QVERIFY(read(path).startsWith("%PDF-"));
    QString text = QString::fromUtf8(pdftotext(path));
    std::map<std::string, int> want;
    for (const auto& v : verdicts) ++want[v];
    for (const auto& [v, n] : want) {
      int found = static_cast<int>(text.count(QRegularExpression("\\b" + QString::fromStdString(v) + "\\b")));
      QVERIFY2(found >= n, qPrintable(QString("%1: %2 of %3").arg(QString::fromStdString(v)).arg(found).arg(n)));
    }
  }

  void checkMarkdown(const QString& path) {
    QString md = QString::fromUtf8(read(path));
    QRegularExpression image("!\\[[^\\]]*\\]\\(([^)]+)\\)");
    for (auto it = image.globalMatch(md); it.hasNext();) {
      QString png = QFileInfo(path).dir().filePath(QUrl::fromPercentEncoding(it.next().captured(1).toUtf8()));
      QVERIFY2(read(png).startsWith("\x89PNG"), qPrintable(png));
    }
  }

  QTemporaryDir dir_;
  QProcessEnvironment env_;
  QProcess endpoint_;
  QString target_;
};

QTEST_GUILESS_MAIN(TestReportCli)
#include "test_report_cli.moc"
