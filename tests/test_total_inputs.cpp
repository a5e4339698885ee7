// Inputs built to break the JSON writers and readers, through anthro-wb as a user meets them:
// invalid UTF-8 where JSON is written (an ALPN name, a file name, a server's error text) must
// still give valid JSON and exit 0; JSON nested deeper than any real document must be refused
// with one line naming the file and the byte, exit 2, never a crash; a FIFO, a device or a
// directory where a file is read is refused at once, and a file past its kind's limit unread.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
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

#include <thread>

#include "capture_generator.h"
#include "loopback_listener.h"
#include "test_paths.h"

using namespace anthro;
using namespace anthro::test;

namespace {

struct Run {
  int code;
  QByteArray out, err;
};

Run run_process(const QString& program, const QStringList& args, const QString& data_dir, int timeout_ms = 60000) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("XDG_DATA_HOME", data_dir);
  p.setProcessEnvironment(env);
  p.start(program, args);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished(5000);
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

Run wb(const QStringList& args, const QString& data_dir) { return run_process(ANTHRO_WB, args, data_dir); }

// Each verb that reads a file the user names, with FILE where that file goes, and the limit its
// kind of file has (files.h), as the refusal words it.
struct FileReader {
  QStringList args;
  QString limit;
};

QList<FileReader> file_readers(const QString& dir) {
  const QString good_schema = dir + "/schema.json", capture = QString(ANTHRO_VECTORS_DIR) + "/lab-conversation.pcap";
  QList<FileReader> readers = {
      {{"hash", "FILE"}, "64 MiB a messages file"},
      {{"lint-schema", good_schema, "FILE"}, "16 MiB a tool schema"},
      {{"session", "--target", "anthro+lab://127.0.0.1:1", "--messages", "FILE"}, "64 MiB a messages file"},
      {{"rollout", "--plan", "FILE"}, "16 MiB a rollout plan"},
      {{"rollout", "--resume", "FILE"}, "128 MiB a result file"},
      {{"merge", "FILE", "FILE", "--output", dir + "/merge-out.json"}, "128 MiB a result file"},
      {{"diagnose", "--system", "--checklist", "FILE"}, "16 MiB a checklist"},
      {{"decode", capture, "--keylog", "FILE"}, "64 MiB a key log"},
      {{"analyze", capture, "--server-key", "FILE"}, "1 MiB a PEM key"},
      {{"endpoint", "--listen", "127.0.0.1:0", "--cert", "FILE", "--key", "FILE"}, "16 MiB a certificate file"},
      {{"session", "--target", "https://127.0.0.1:1/v1/messages", "--cacert", "FILE"}, "16 MiB a certificate file"},
      {{"decode", "FILE"}, {}},  // captures are streamed: no limit, but regular files only
      {{"analyze", "FILE"}, {}},
      {{"compare", "FILE", "FILE"}, {}},  // a result (128 MiB) or a capture (streamed): zeros are no JSON
  };
#ifdef ANTHRO_WITH_REPORT
  readers.push_back({{"report", "FILE", "--to", "json", "--output", dir + "/report-out.json"}, "128 MiB a result file"});
#endif
  return readers;
}

#ifdef ANTHRO_WITH_REPORT
// An analysis result whose warnings (report paragraphs) and one finding (a summary line) hold
// `texts`, as a hostile or careless result file would.
std::string result_with_texts(const QStringList& texts) {
  QJsonArray warnings;
  for (const QString& t : texts) warnings.append(t);
  QJsonObject finding{{"verdict", "fail"}, {"id", "x"}, {"evidence", texts.value(0)}};
  QJsonObject result{{"kind", "analysis"}, {"schema_version", 1}, {"packets", 1}, {"connections", QJsonArray()},
                     {"findings", QJsonArray{finding}}, {"warnings", warnings}};
  return QJsonDocument(result).toJson().toStdString();
}
#endif

QStringList with_file(QStringList args, const QString& file) {
  args.replaceInStrings(QRegularExpression("^FILE$"), file);
  return args;
}

// A handshake message in a TLS record.
Bytes record(std::uint8_t handshake_type, const Bytes& body) {
  Bytes out = {0x16, 0x03, 0x03};
  append_u16(out, static_cast<std::uint16_t>(body.size() + 4));
  out.push_back(handshake_type);
  out.push_back(0);
  append_u16(out, static_cast<std::uint16_t>(body.size()));
  append(out, body);
  return out;
}

Bytes alpn_extension(const std::string& name) {
  Bytes out;
  append_u16(out, 0x0010);
  append_u16(out, static_cast<std::uint16_t>(name.size() + 3));
  append_u16(out, static_cast<std::uint16_t>(name.size() + 1));
  out.push_back(static_cast<std::uint8_t>(name.size()));
  append(out, as_bytes(name));
  return out;
}

// TLS 1.2 hellos (no supported_versions) that offer and select `alpn`.
std::vector<Segment> tls12_hellos(const std::string& alpn) {
  Bytes ext = alpn_extension(alpn);
  Bytes ch = {0x03, 0x03};
  ch.resize(ch.size() + 32, 0x11);  // random
  append(ch, Bytes{0, 0, 2, 0xC0, 0x2F, 1, 0});  // no session id, one suite, null compression
  append_u16(ch, static_cast<std::uint16_t>(ext.size()));
  append(ch, ext);
  Bytes sh = {0x03, 0x03};
  sh.resize(sh.size() + 32, 0x22);
  append(sh, Bytes{0, 0xC0, 0x2F, 0});
  append_u16(sh, static_cast<std::uint16_t>(ext.size()));
  append(sh, ext);
  Bytes c = record(1, ch), s = record(2, sh);
  return exchange({{true, std::string(c.begin(), c.end())}, {false, std::string(s.begin(), s.end())}});
}

// JSON whose value nests `levels` objects deep, each `{"a":`.
std::string deep_json(std::size_t levels) {
  std::string text;
  for (std::size_t i = 0; i < levels; ++i) text += "{\"a\":";
  text += "1";
  text.append(levels, '}');
  return text;
}

void write_text(const QString& path, const std::string& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  QCOMPARE(f.write(text.data(), static_cast<qint64>(text.size())), static_cast<qint64>(text.size()));
}

bool is_json(const QByteArray& text) {
  QJsonParseError error;
  QJsonDocument::fromJson(text, &error);
  return error.error == QJsonParseError::NoError;
}

// One HTTP exchange on a loopback port: whatever the request, `response` and close.
class OneShotHttpServer {
 public:
  explicit OneShotHttpServer(std::string response) : response_(std::move(response)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~OneShotHttpServer() {
    ::shutdown(listener_.fd(), SHUT_RDWR);
    thread_.join();
  }
  std::uint16_t port() const { return listener_.port(); }

 private:
  void serve() {
    int peer = ::accept(listener_.fd(), nullptr, nullptr);
    if (peer < 0) return;
    std::string request;
    char buf[4096];
    // The request's head and body: enough once the blank line and a JSON object's end are in.
    while (request.find("\r\n\r\n") == std::string::npos || request.back() != '}') {
      ssize_t n = ::recv(peer, buf, sizeof buf, 0);
      if (n <= 0) break;
      request.append(buf, static_cast<std::size_t>(n));
    }
    (void)!::send(peer, response_.data(), response_.size(), MSG_NOSIGNAL);
    ::close(peer);
  }

  std::string response_;
  anthro::test::LoopbackListener listener_{4};
  std::thread thread_;
};

}  // namespace

class TestTotalInputs : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  // A crafted TLS 1.2 ServerHello whose ALPN name is not UTF-8 (the bytes a peer chose).
  void alpnNotUtf8GivesValidJson() {
    QString path = dir_.filePath("alpn.pcap");
    write_capture(path.toStdString(), tls12_hellos("h2\xff\xfe"));
    Run analyze = wb({"analyze", path, "--format", "json"}, dir_.path());
    QVERIFY2(analyze.code == 0, analyze.err.constData());
    QVERIFY2(is_json(analyze.out), analyze.out.left(400).constData());
    QJsonObject conn = QJsonDocument::fromJson(analyze.out).object()["connections"].toArray().at(0).toObject();
    QVERIFY2(QJsonDocument(conn).toJson().contains("h2\xef\xbf\xbd"), QJsonDocument(conn).toJson().constData());

    Run decode = wb({"decode", path, "--format", "jsonl"}, dir_.path());
    QVERIFY2(decode.code == 0, decode.err.constData());
    QList<QByteArray> lines = decode.out.trimmed().split('\n');
    QVERIFY(!lines.isEmpty());
    bool named = false;  // the "tls" line names the ALPN
    for (const auto& line : lines) {
      QVERIFY2(is_json(line), line.constData());
      named |= QJsonDocument::fromJson(line).object()["alpn"].toString() == QString::fromUtf8("h2\xef\xbf\xbd\xef\xbf\xbd");
    }
    QVERIFY2(named, decode.out.constData());
  }

  // A capture whose file name is not UTF-8: the name is written as the user gave it, but valid.
  void fileNameNotUtf8GivesValidJson() {
    std::string name = dir_.filePath("cap-").toStdString() + "\xff\xfe.pcap";
    write_capture(name, exchange({{true, "POST /v1/messages HTTP/1.1\r\n"}}));
    // QProcess takes QStrings, which cannot carry these bytes: the shell passes them instead.
    QString script = QStringLiteral("exec \"$0\" analyze \"$1\"\"$(printf '\\377\\376.pcap')\" --format json");
    Run r = run_process("/bin/sh", {"-c", script, ANTHRO_WB, dir_.filePath("cap-")}, dir_.path());
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(is_json(r.out), r.out.left(400).constData());
    QVERIFY(QJsonDocument::fromJson(r.out).object()["file"].toString().endsWith(QString::fromUtf8("cap-\xef\xbf\xbd\xef\xbf\xbd.pcap")));
    ::unlink(name.c_str());  // QTemporaryDir cannot name it to remove it
  }

  // A server's error text that is not UTF-8 reaches `session --format json` as valid JSON.
  void serverErrorNotUtf8GivesValidJson() {
    std::string body = "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"bad \xff\xfe bytes\"}}";
    OneShotHttpServer server("HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: " +
                             std::to_string(body.size()) + "\r\nconnection: close\r\n\r\n" + body);
    QString target = QString("http://127.0.0.1:%1/v1/messages").arg(server.port());
    Run r = wb({"session", "--target", target, "--format", "json"}, dir_.path());
    QCOMPARE(r.code, 3);  // the request failed: cli.md's endpoint failure
    QVERIFY2(is_json(r.out), r.out.constData());
    QJsonObject req = QJsonDocument::fromJson(r.out).object()["requests"].toArray().at(0).toObject();
    QVERIFY2(req["error"].toString().contains(QString::fromUtf8("bad \xef\xbf\xbd")), r.out.constData());
  }

  // Result, plan, checklist and messages files nested 100,000 deep (nlohmann writes and copies
  // recursively, so each used to overflow the stack): one line naming the file and the byte.
  void deepJsonFilesAreRefused() {
    QString deep = dir_.filePath("deep.json");
    write_text(deep, deep_json(100000));
    const std::size_t at = 64 * 5;  // the 65th '{'
    QList<QStringList> cases = {
        {"rollout", "--resume", deep},
        {"rollout", "--plan", deep},
        {"diagnose", "--system", "--checklist", deep},
        {"session", "--target", "anthro+lab://127.0.0.1:1", "--messages", deep},
        {"compare", deep, deep},
    };
#ifdef ANTHRO_WITH_REPORT
    cases.push_back({"report", deep, "--to", "json", "--output", dir_.filePath("out.json")});
#endif
    for (const QStringList& args : cases) {
      Run r = wb(args, dir_.path());
      QString what = args.join(' ') + " -> " + QString::number(r.code) + ": " + r.err;
      QVERIFY2(r.code == 2, qPrintable(what));
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY2(r.err.startsWith("anthro-wb " + args[0].toUtf8() + ": "), qPrintable(what));
      QVERIFY2(r.err.contains(deep.toUtf8()), qPrintable(what));
      QVERIFY2(r.err.contains("nested deeper than 64 levels at byte " + QByteArray::number(qulonglong(at))), qPrintable(what));
    }
  }

  // /dev/zero, a FIFO nobody writes to and a directory, for every verb that reads a file: exit 2
  // at once (the FIFO used to block the open forever, /dev/zero to be read to gigabytes) with
  // one line naming the file and what it is.
  void specialFilesAreRefusedAtOnce() {
    write_text(dir_.filePath("schema.json"), "{}");
    const QString fifo = dir_.filePath("fifo");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    const QList<QPair<QString, QString>> specials = {
        {"/dev/zero", "is a character device"}, {fifo, "is a FIFO"}, {dir_.filePath("."), "is a directory"}};
    for (const FileReader& reader : file_readers(dir_.path()))
      for (const auto& [file, what] : specials) {
        const QStringList args = with_file(reader.args, file);
        Run r = run_process(ANTHRO_WB, args, dir_.path(), 20000);
        QString said = args.join(' ') + " -> " + QString::number(r.code) + ": " + r.err;
        QVERIFY2(r.code == 2, qPrintable(said));
        QVERIFY2(r.err.contains((file + ": " + what + ", not a regular file").toUtf8()), qPrintable(said));
      }
  }

  // A regular file one byte past its kind's limit (sparse: no disk used) is refused by that
  // limit, without being read: today's code read it whole and failed on its contents.
  void filesPastTheirLimitAreRefused() {
    write_text(dir_.filePath("schema.json"), "{}");
    for (const FileReader& reader : file_readers(dir_.path())) {
      if (reader.limit.isEmpty()) continue;
      const QString big = dir_.filePath("big");
      const qint64 limit = reader.limit.section(' ', 0, 0).toLongLong() << 20;
      QFile f(big);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.resize(limit + 1));
      f.close();
      const QStringList args = with_file(reader.args, big);
      Run r = run_process(ANTHRO_WB, args, dir_.path(), 20000);
      QString said = args.join(' ') + " -> " + QString::number(r.code) + ": " + r.err;
      QVERIFY2(r.code == 2, qPrintable(said));
      QVERIFY2(r.err.contains((big + ": larger than the " + reader.limit + " may be").toUtf8()), qPrintable(said));
    }
  }

  // The same refusal within a memory ceiling far below the file: nothing is read into memory.
  void aHugeFileIsNotReadIntoMemory() {
    const QString huge = dir_.filePath("huge.json");
    QFile f(huge);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.resize(qint64(2) << 30));
    f.close();
#ifdef ANTHRO_SANITIZED
    // AddressSanitizer reserves terabytes of address space for its shadow, so an address-space
    // limit stops it at start; its allocator holds the same ceiling instead.
    const QString options = qEnvironmentVariable("ASAN_OPTIONS") + ":max_allocation_size_mb=1024";
    Run r = run_process("env", {"ASAN_OPTIONS=" + options, ANTHRO_WB, "hash", huge}, dir_.path(), 20000);
#else
    Run r = run_process("prlimit", {"--as=1073741824", ANTHRO_WB, "hash", huge}, dir_.path(), 20000);
#endif
    QVERIFY2(r.code == 2, qPrintable(QString::number(r.code) + ": " + r.err));
    QVERIFY2(r.err.contains((huge + ": larger than the 64 MiB a messages file may be").toUtf8()), r.err.constData());
  }

#ifdef ANTHRO_WITH_REPORT
  // API keys not at a word's start and api_key members of JSON inside a string leave no byte in
  // `report --to json`; ordinary words that contain "sk-" stay as they were.
  void reportRedactsSecretsAnywhere() {
    const QString key = "sk-ant-api03-Zq7xW9vB2nL4kP8sR1tY6uH3jM5cF0dG";
    const QList<QPair<QString, QString>> cases = {
        {"key=" + key, "key=[redacted]"},
        {"export ANTHROPIC_API_KEY=\"" + key + "\"", "export ANTHROPIC_API_KEY=\"[redacted]\""},
        {"(" + key + ")", "([redacted])"},
        {"mykey" + key, "mykey[redacted]"},
        {"body {\"api_key\": \"hunter2-plain-secret\"}", "body {\"api_key\": \"[redacted]\"}"},
        {"log {\\\"x-api-key\\\": \\\"hunter3-escaped-secret\\\"}", "log {\\\"x-api-key\\\": \\\"[redacted]\\\"}"},
        {"the task-ant colony, a risk-free plan, desk-ant-files-2024-archive-folder", {}},
    };
    QStringList texts;
    for (const auto& c : cases) texts << c.first;
    const QByteArray out = report_of_texts(texts, "json");
    QVERIFY(!out.isEmpty());
    for (const char* secret : {"Zq7xW9vB2nL4kP8sR1tY6uH3jM5cF0dG", "hunter2-plain-secret", "hunter3-escaped-secret"})
      QVERIFY2(!out.contains(secret), secret);
    const QJsonArray warnings = QJsonDocument::fromJson(out).object()["result"].toObject()["warnings"].toArray();
    QCOMPARE(warnings.size(), cases.size());
    for (int i = 0; i < cases.size(); ++i)
      QCOMPARE(warnings[i].toString(), cases[i].second.isNull() ? cases[i].first : cases[i].second);
  }

  // Markdown passes raw HTML through: a result's text must reach `report --to md` as text.
  void markdownReportEscapesHtml() {
    const QStringList hostile = {"<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "</table> & more"};
    const QByteArray md = report_of_texts(hostile, "md");
    QVERIFY(!md.isEmpty());
    for (const char* raw : {"<script", "<img", "</table"}) QVERIFY2(!md.contains(raw), md.constData());
    for (const char* text : {"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&lt;/table&gt; &amp; more"})
      QVERIFY2(md.contains(text), md.constData());
  }
#endif

 private:
#ifdef ANTHRO_WITH_REPORT
  // `report --to FORMAT` of a result whose warnings are `texts`: the report's bytes, or empty
  // (with the failure logged) when anthro-wb failed or wrote nothing.
  QByteArray report_of_texts(const QStringList& texts, const QString& format) {
    const QString input = dir_.filePath("texts.json"), output = dir_.filePath("texts-report." + format);
    write_text(input, result_with_texts(texts));
    Run r = wb({"report", input, "--to", format, "--output", output}, dir_.path());
    QFile f(output);
    if (r.code != 0 || !f.open(QIODevice::ReadOnly)) {
      qWarning("report --to %s: exit %d: %s", qPrintable(format), r.code, r.err.constData());
      return {};
    }
    return f.readAll();
  }

#endif
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestTotalInputs)
#include "test_total_inputs.moc"
