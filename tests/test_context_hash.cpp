// Session affinity's Context-Hash: the independent vectors bit for bit (canonical and Python's
// default), the serialisations against real JSON.stringify (node) and json.dumps (python3) over
// random numbers and strings, and `anthro-wb hash` on each vector.
#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>

#include "affinity/context_hash.h"
#include "test_paths.h"
#include "vectors.h"

using namespace anthro;
using nlohmann::ordered_json;

namespace {

const nlohmann::json& profile_vectors() {
  static const nlohmann::json doc = nlohmann::json::parse(test::read_file(ANTHRO_PROFILES_VECTORS));
  return doc;
}

const nlohmann::json& hash_cases() { return profile_vectors()["session_affinity"]["context_hash"]; }

// What a program prints for `input` on stdin.
QByteArray run(const QString& program, const QStringList& args, const QByteArray& input) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForStarted()) qFatal("cannot start %s", qPrintable(program));
  p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(60000) || p.exitCode() != 0)
    qFatal("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
  return p.readAllStandardOutput();
}

// Random doubles over every magnitude the formats treat differently, and awkward strings.
std::string random_document(std::mt19937_64& rng) {
  std::string out = "[";
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::uniform_real_distribution<double> mantissa(1, 10);
  for (int i = 0; i < 3000; ++i) {
    double x = mantissa(rng) * std::pow(10.0, exponent(rng));
    if (i % 3 == 0) x = std::round(x);  // integral values: "1.0" against "1"
    if (i % 5 == 0) x = -x;
    if (i % 7 == 0) x = std::ldexp(static_cast<double>(rng() >> 11), exponent(rng));  // every bit pattern of the mantissa
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17e", x);  // a float literal, so both readers make a float
    out += std::string(i ? "," : "") + buf;
  }
  const char* strings[] = {R"("plain")", R"("quote \" back \\ slash /")", R"("\u0000\u0001\u001f\u007f\u0080")",
                           R"("\b\f\n\r\t")", R"("caf\u00e9 \u4e2d\u6587 \ud83d\ude42 \u2028\u2029")", R"("\uffff")"};
  for (const char* s : strings) out += std::string(",") + s + R"(,{")" + std::string(s + 1) + R"(:1.5e-7})";
  return out + "]";
}

}  // namespace

class TestContextHash : public QObject {
  Q_OBJECT
 private slots:
  void vectorsBitForBit() {
    for (const auto& c : hash_cases()) {
      const std::string name = c["name"].get<std::string>();
      auto report = context_hash_report(c["messages_json"].get<std::string>());
      QVERIFY2(report.ok(), name.c_str());
      QCOMPARE(report->canonical, c["serialized"].get<std::string>());
      QCOMPARE(report->canonical_hash, c["context_hash"].get<std::string>());
      QCOMPARE(report->python_hash, c["python_default_hash"].get<std::string>());
      QCOMPARE(report->agree(), c["variants_agree"].get<bool>());
      QCOMPARE(report->differences.empty(), c["variants_agree"].get<bool>());  // a difference is named exactly when they disagree
    }
  }

  void responseHashVector() {
    const auto& v = profile_vectors()["session_affinity"]["response_hash"];
    auto messages = ordered_json::parse(v["request_messages_json"].get<std::string>());
    QCOMPARE(context_hash(messages), v["request_hash"].get<std::string>());
    QCOMPARE(response_context_hash(messages, v["reply_text"].get<std::string>()), v["response_hash"].get<std::string>());
  }

  void differencesSayWhatAndWhere() {
    auto chinese = context_hash_report(R"([{"role":"user","content":"x"},{"role":"user","content":"a 帮我"}])");
    QCOMPARE(chinese->differences.size(), std::size_t{1});
    QCOMPARE(chinese->differences[0].where, std::string("/1/content"));
    QVERIFY2(chinese->differences[0].what.find("2 characters from U+007F, the first U+5E2E '帮'") == 0,
             chinese->differences[0].what.c_str());
    auto numbers = context_hash_report(R"({"model":"m","messages":[{"input":{"a/b":1.0,"c":2.5,"d":1e16}}]})");
    QVERIFY(numbers.ok());
    QCOMPARE(numbers->differences.size(), std::size_t{2});
    QCOMPARE(numbers->differences[0].where, std::string("/0/input/a~1b"));
    QCOMPARE(numbers->differences[0].what, std::string("a number: JavaScript writes 1, Python 1.0"));
    QCOMPARE(numbers->differences[1].what, std::string("a number: JavaScript writes 10000000000000000, Python 1e+16"));
    // Only the last three messages count: a difference before them is none.
    auto early = context_hash_report(R"([{"c":"é"},{"c":"a"},{"c":"b"},{"c":"c"}])");
    QVERIFY(early->agree() && early->differences.empty());
    QCOMPARE(early->hashed, std::size_t{3});
  }

  void badInputIsNamed() {
    QVERIFY(!context_hash_report("{").ok());
    QVERIFY(context_hash_report(R"({"model":"m"})").error().detail.find("\"messages\"") != std::string::npos);
    QVERIFY(context_hash_report(R"({"messages":{}})").error().detail.find("not an array") != std::string::npos);
    QVERIFY(context_hash_report("3").error().detail.find("not an array") != std::string::npos);
    QVERIFY(context_hash_report(std::string(100, '[') + std::string(100, ']')).error().detail.find("deeper") != std::string::npos);
  }

  // The canonical writer is JSON.stringify and the other is json.dumps: real node and python3
  // read the same text and must write the same bytes.
  void serialisationsMatchNodeAndPython() {
    std::mt19937_64 rng(2026);
    for (int round = 0; round < 3; ++round) {
      std::string text = random_document(rng);
      auto doc = ordered_json::parse(text);
      QByteArray input = QByteArray::fromStdString(text);
      QByteArray node = run("node", {"-e", "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
                                          "process.stdout.write(JSON.stringify(JSON.parse(s))))"},
                            input);
      QByteArray python = run("python3", {"-c", "import json,sys;sys.stdout.write(json.dumps(json.load(sys.stdin),"
                                                "separators=(',',':')))"},
                              input);
      QCOMPARE(QByteArray::fromStdString(affinity_json(doc, HashSerialisation::Canonical)), node);
      QCOMPARE(QByteArray::fromStdString(affinity_json(doc, HashSerialisation::PythonDefault)), python);
    }
  }

  // anthro-wb hash on each vector's messages: the hash printed, the disagreeing ones flagged.
  void cliHashesEachVector() {
    QTemporaryDir dir;
    for (const auto& c : hash_cases()) {
      QString path = dir.filePath(QString::fromStdString(c["name"].get<std::string>()) + ".json");
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(c["messages_json"].get<std::string>()));
      f.close();
      QProcess p;
      p.start(ANTHRO_WB, {"hash", path, "--format", "json"});
      QVERIFY(p.waitForFinished(30000));
      QCOMPARE(p.exitCode(), 0);
      auto out = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
      QCOMPARE(out["kind"].get<std::string>(), std::string("context_hash"));
      QCOMPARE(out["canonical"]["hash"].get<std::string>(), c["context_hash"].get<std::string>());
      QCOMPARE(out["python_default"]["hash"].get<std::string>(), c["python_default_hash"].get<std::string>());
      QCOMPARE(out["variants_agree"].get<bool>(), c["variants_agree"].get<bool>());

      p.start(ANTHRO_WB, {"hash", path});
      QVERIFY(p.waitForFinished(30000));
      QCOMPARE(p.exitCode(), 0);
      QString text = QString::fromUtf8(p.readAllStandardOutput());
      QVERIFY2(text.contains(QString::fromStdString(c["context_hash"].get<std::string>())), qPrintable(text));
      QCOMPARE(text.contains("DIFFER"), !c["variants_agree"].get<bool>());
    }
    QProcess p;
    p.start(ANTHRO_WB, {"hash", dir.filePath("missing.json")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("missing.json"));
  }
};

QTEST_GUILESS_MAIN(TestContextHash)
#include "test_context_hash.moc"
