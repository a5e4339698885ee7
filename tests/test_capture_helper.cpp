// anthro-capture, the one program that opens a live interface, and the code that runs it:
// hostile arguments refused, capabilities gone once the interface is open, pcapng on stdout
// ending with its statistics, stopped by end of stdin or SIGTERM; run_live_capture naming
// where it looked for a missing helper and the setcap command for a helper without capabilities.
#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "capture/capture_file.h"
#include "capture/capture_helper.h"
#include "capture/live_capture.h"
#include "capture_helper_env.h"
#include "endpoint_fixture.h"

using namespace anthro;
namespace ch = anthro::capture_helper;

namespace {

// A listening TCP socket on 127.0.0.1; send() connects to it and pushes bytes through lo.
class LoopbackPeer {
 public:
  LoopbackPeer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listener_, 4);
    socklen_t len = sizeof a;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~LoopbackPeer() { ::close(listener_); }
  std::uint16_t port() const { return port_; }
  QString filter() const { return QString("tcp port %1").arg(port_); }

  // Connects, sends `bytes`, reads them on the other side, closes both.
  bool send(std::size_t bytes) {
    int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port_);
    if (::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    int s = ::accept(listener_, nullptr, nullptr);
    std::string data(bytes, 'x');
    bool ok = ::write(c, data.data(), data.size()) == static_cast<ssize_t>(data.size());
    std::size_t got = 0;
    char buf[65536];
    while (ok && got < bytes) {
      ssize_t n = ::read(s, buf, sizeof buf);
      if (n <= 0) ok = false;
      else got += static_cast<std::size_t>(n);
    }
    ::close(c);
    ::close(s);
    return ok;
  }

 private:
  int listener_ = -1;
  std::uint16_t port_ = 0;
};

struct HelperRun {
  int exit_code = -1;
  QByteArray out, err;
};

// Runs the helper with `args`, its stdin open, and waits for it to end by itself.
HelperRun run_helper(const QStringList& args, int timeout_ms = 10000) {
  QProcess p;
  p.start(built_capture_helper(), args);
  HelperRun r;
  if (!p.waitForStarted(5000) || !p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished(5000);
    r.err = "did not end";
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

// The "CapEff:" or "CapPrm:" mask of a process, from /proc.
QString capability_mask(qint64 pid, const QString& field) {
  QFile f(QString("/proc/%1/status").arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return "unreadable";
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith(field.toLatin1() + ":")) return QString::fromLatin1(line.mid(field.size() + 1)).trimmed();
  return "absent";
}

}  // namespace

class TestCaptureHelper : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString path(const QString& name) const { return dir_.filePath(name); }

  // Starts the helper on lo for `peer`'s port and waits for "ready".
  bool start_capture(QProcess& p, const LoopbackPeer& peer, QByteArray& err) {
    p.setReadChannel(QProcess::StandardError);  // waitForReadyRead() waits for its lines
    p.start(built_capture_helper(), {"--interface", "lo", "--filter", peer.filter()});
    if (!p.waitForStarted(5000)) return false;
    while (!err.contains("ready\n") && p.waitForReadyRead(5000)) err += p.readAllStandardError();
    err += p.readAllStandardError();
    return err.contains("ready\n");
  }

  // The packets and statistics of pcapng bytes the helper wrote.
  struct Parsed {
    std::uint64_t packets = 0, tcp_payload_packets = 0;
    std::optional<InterfaceStatistics> stats;
    std::string error;
  };
  Parsed parse(const QByteArray& pcapng, const QString& name) {
    QFile f(path(name));
    f.open(QIODevice::WriteOnly);
    f.write(pcapng);
    f.close();
    Parsed out;
    auto reader = CaptureReader::open(path(name).toStdString());
    if (!reader) {
      out.error = reader.error().detail;
      return out;
    }
    while (auto packet = (*reader)->next()) ++out.packets;
    if ((*reader)->error()) out.error = (*reader)->error()->detail;
    out.stats = (*reader)->statistics(0);
    return out;
  }

 private slots:
  void initTestCase() {
    QVERIFY2(QFileInfo(built_capture_helper()).isExecutable(),
             qPrintable("ANTHRO_CAPTURE_HELPER is not the built helper: " + built_capture_helper()));
  }

  // Every argument a privileged program gets is checked; the refusal names it; nothing is
  // captured and nothing reaches stdout.
  void hostileArgumentsAreRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("named");
    QTest::newRow("no interface") << QStringList{} << "--interface NAME is required";
    QTest::newRow("a path as interface") << QStringList{"--interface", "../../etc/passwd"} << "not start with \".\"";
    QTest::newRow("slash in interface") << QStringList{"--interface", "lo/x"} << "character 3 of the name (byte 47)";
    QTest::newRow("option-like interface") << QStringList{"--interface", "-w"} << "not start with \"-\"";
    QTest::newRow("long interface") << QStringList{"--interface", QString(65, 'a')} << "name of 65 characters (at most 64)";
    QTest::newRow("empty interface") << QStringList{"--interface", ""} << "--interface: empty name";
    QTest::newRow("newline in filter") << QStringList{"--interface", "lo", "--filter", "tcp\nport 1"}
                                       << "--filter: character 4 (byte 10) is not printable ASCII";
    QTest::newRow("long filter") << QStringList{"--interface", "lo", "--filter", QString(4097, 'a')}
                                 << "--filter: 4097 characters (at most 4096)";
    QTest::newRow("zero snaplen") << QStringList{"--interface", "lo", "--snaplen", "0"} << "--snaplen \"0\"";
    QTest::newRow("huge snaplen") << QStringList{"--interface", "lo", "--snaplen", "99999999999"} << "--snaplen \"99999999999\"";
    QTest::newRow("negative duration") << QStringList{"--interface", "lo", "--duration", "-1"} << "--duration \"-1\"";
    QTest::newRow("nan duration") << QStringList{"--interface", "lo", "--duration", "nan"} << "--duration \"nan\"";
    QTest::newRow("trailing junk") << QStringList{"--interface", "lo", "--duration", "3s"} << "--duration \"3s\"";
    QTest::newRow("an output path") << QStringList{"--interface", "lo", "--output", "/tmp/x"}
                                    << "argument 3 (\"--output\"): expected --interface";
    QTest::newRow("a positional") << QStringList{"lo"} << "argument 1 (\"lo\")";
    QTest::newRow("twice") << QStringList{"--interface", "lo", "--interface", "eth0"} << "--interface given twice";
    QTest::newRow("missing value") << QStringList{"--interface"} << "--interface needs a value";
    QTest::newRow("list with more") << QStringList{"--list-interfaces", "--interface", "lo"}
                                    << "--list-interfaces takes no other option";
  }
  void hostileArgumentsAreRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    HelperRun r = run_helper(args);
    QCOMPARE(r.exit_code, int(ch::kExitUsage));
    QVERIFY2(r.err.startsWith("anthro-capture: "), r.err.constData());
    QVERIFY2(QString::fromUtf8(r.err).contains(named), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);  // one line, no echo of a newline smuggled in
    QVERIFY(r.out.isEmpty());
  }

  void interfaceNamesAsLibpcapGivesThem() {
    for (const char* name : {"lo", "eth0", "any", "nflog:5", "usbmon1", "enp0s31f6", "br-1a2b.100", "veth@if3"})
      QVERIFY2(ch::check_interface_name(name).ok(), name);
    auto parsed = ch::parse_arguments({"--interface", "nflog:5", "--filter", "tcp port 7443", "--snaplen", "128",
                                       "--duration", "2.5"});
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->interface, std::string("nflog:5"));
    QCOMPARE(parsed->snaplen, 128);
    QCOMPARE(parsed->duration_s, 2.5);
    // What run_live_capture passes is what the helper accepts.
    LiveCaptureConfig c;
    c.interface = "lo";
    c.filter = "tcp port 1";
    c.duration_s = 0.25;
    auto round = ch::parse_arguments(ch::capture_arguments(c));
    QVERIFY(round.ok());
    QCOMPARE(round->filter, c.filter);
    QCOMPARE(round->duration_s, 0.25);
    QCOMPARE(round->snaplen, c.snaplen);
  }

  void interfaceListLinesAreParsedNotTrusted() {
    NetworkInterface lo{"lo", "Loopback\tdevice\n", true, true};
    auto back = ch::parse_interface_line(ch::interface_line(lo));
    QVERIFY(back);
    QCOMPARE(back->name, std::string("lo"));
    QCOMPARE(back->description, std::string("Loopback device "));
    QVERIFY(back->loopback && back->up);
    QVERIFY(!ch::parse_interface_line("../x\t-\t-\t"));
    QVERIFY(!ch::parse_interface_line("eth0\tmaybe\t-\t"));
    QVERIFY(!ch::parse_interface_line("eth0\t-\t-"));
  }

  // The list comes from the helper, loopback first.
  void interfacesAreListedThroughTheHelper() {
    auto list = list_capture_interfaces();
    QVERIFY2(list.ok(), list.ok() ? "" : list.error().detail.c_str());
    QVERIFY(!list->empty());
    QCOMPARE(list->front().name, std::string("lo"));
    QVERIFY(list->front().loopback);
  }

  // Capabilities are gone once "ready" is said; the traffic arrives as pcapng on stdout; the
  // end of stdin stops it, with an Interface Statistics Block last.
  void capturesWithoutCapabilitiesAndStopsAtEndOfStdin() {
    LoopbackPeer peer;
    QProcess p;
    QByteArray err;
    QVERIFY2(start_capture(p, peer, err), err.constData());
    // This test runs as root, whose helper starts with every capability: none is left now.
    QCOMPARE(capability_mask(p.processId(), "CapEff"), QString("0000000000000000"));
    QCOMPARE(capability_mask(p.processId(), "CapPrm"), QString("0000000000000000"));
    for (int i = 0; i < 5; ++i) QVERIFY(peer.send(1000));
    QTest::qWait(300);
    p.closeWriteChannel();
    QVERIFY2(p.waitForFinished(5000), "the end of stdin did not stop the helper");
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    err += p.readAllStandardError();
    Parsed got = parse(p.readAllStandardOutput(), "stdin.pcapng");
    QVERIFY2(got.error.empty(), got.error.c_str());
    // 5 connections: each at least SYN, SYN-ACK, ACK, data, FIN/ACK both ways.
    QVERIFY2(got.packets >= 5 * 7, qPrintable(QString::number(got.packets)));
    QVERIFY(got.stats);
    QVERIFY2(got.stats->received >= got.packets, qPrintable(QString::number(got.stats->received)));
    QCOMPARE(got.stats->os_drops, std::uint64_t{0});
    QVERIFY2(err.contains("progress "), err.constData());
  }

  void sigtermStopsItWithItsStatistics() {
    LoopbackPeer peer;
    QProcess p;
    QByteArray err;
    QVERIFY2(start_capture(p, peer, err), err.constData());
    QVERIFY(peer.send(3000));
    QTest::qWait(300);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(5000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    Parsed got = parse(p.readAllStandardOutput(), "sigterm.pcapng");
    QVERIFY2(got.error.empty(), got.error.c_str());
    QVERIFY(got.packets >= 7);
    QVERIFY(got.stats);
  }

  void anUnknownInterfaceIsNamed() {
    HelperRun r = run_helper({"--interface", "no-such-if0"});
    QCOMPARE(r.exit_code, int(ch::kExitUsage));
    QVERIFY2(r.err.contains("no interface named \"no-such-if0\""), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }

  // The library end to end: the keys ahead of the packets, the statistics carried over, the
  // counts those of the file, progress while it runs, no temporary left.
  void runLiveCaptureWritesKeysPacketsAndStatistics() {
    test::EndpointFixture f({}, 10, 1, 10);
    f.start();
    const std::string url = f.endpoint().url("anthro");
    LiveCaptureConfig c;
    c.interface = "lo";
    c.filter = "tcp port " + url.substr(url.rfind(':') + 1);
    c.output = path("live.pcapng").toStdString();
    c.keylog_path = path("live.keylog").toStdString();
    std::atomic<bool> stop{false}, ready{false};
    std::atomic<int> progress_calls{0};
    Result<LiveCaptureStats> stats = make_error("capture", "not run");
    std::thread t([&] {
      stats = run_live_capture(c, stop, [&] { ready = true; }, [&](const LiveCaptureStats&) { ++progress_calls; });
      ready = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(ready, 10000);
    SessionConfig s = f.session("anthro");
    s.keylog_path = c.keylog_path;
    s.repeat = 3;
    SessionResult live = test::EndpointFixture::run(s);
    QTest::qWait(500);
    stop = true;
    t.join();
    QVERIFY2(stats.ok(), stats.ok() ? "" : stats.error().detail.c_str());
    QVERIFY(!live.error);
    QVERIFY(stats->secrets_embedded);
    QVERIFY(progress_calls > 0);
    QVERIFY(!QFile::exists(path("live.pcapng.capturing")));
    auto reader = CaptureReader::open(c.output);
    QVERIFY(reader.ok());
    std::uint64_t packets = 0, bytes = 0;
    while (auto p = (*reader)->next()) {
      ++packets;
      bytes += p->original_length;
      QCOMPARE((*reader)->secrets().size(), std::size_t{1});  // the DSB came before the first packet
    }
    QCOMPARE(stats->packets, packets);
    QCOMPARE(stats->bytes, bytes);
    QVERIFY(packets > 10);
    auto isb = (*reader)->statistics(0);
    QVERIFY(isb);
    QCOMPARE(isb->os_drops, stats->kernel_drops);
    QVERIFY(isb->received >= packets);
    QCOMPARE((*reader)->interfaces().at(0).name, std::string("lo"));
  }

  // A helper that is not where it should be: every place looked at is named.
  void aMissingHelperNamesWhereItLooked() {
    {
      HelperOverride env(path("nowhere/anthro-capture"));
      LiveCaptureConfig c;
      c.interface = "lo";
      c.output = path("never.pcapng").toStdString();
      std::atomic<bool> stop{false};
      auto r = run_live_capture(c, stop);
      QVERIFY(!r.ok());
      QCOMPARE(r.error().kind, ErrorClass::Usage);
      QVERIFY2(r.error().detail.find(path("nowhere/anthro-capture").toStdString() + " (from ANTHRO_CAPTURE_HELPER)") !=
                   std::string::npos,
               r.error().detail.c_str());
      auto list = list_capture_interfaces();
      QVERIFY(!list.ok());
      QCOMPARE(list.error().detail, r.error().detail);
      QVERIFY(!QFile::exists(path("never.pcapng")));
    }
    HelperOverride unset{QString()};
    LiveCaptureConfig c;
    c.interface = "lo";
    c.output = path("never.pcapng").toStdString();
    std::atomic<bool> stop{false};
    auto r = run_live_capture(c, stop);
    QVERIFY(!r.ok());
    const QString here = QCoreApplication::applicationDirPath();
    const QString detail = QString::fromStdString(r.error().detail);
    QVERIFY2(detail.contains(here + "/anthro-capture, "), qPrintable(detail));
    QVERIFY2(detail.contains(QFileInfo(here).path() + "/lib/anthro-workbench/anthro-capture"), qPrintable(detail));
    QVERIFY2(detail.contains("$ANTHRO_CAPTURE_HELPER is not set"), qPrintable(detail));
  }

  // A helper without its capabilities (a copy, run as nobody when this test is root): the
  // setcap command naming the helper's own path, classed as a permission error; no file left.
  void aHelperWithoutCapabilitiesNamesTheSetcapCommand() {
    UnprivilegedHelper env;
    const QString helper = QFileInfo(env.helper()).canonicalFilePath();
    LiveCaptureConfig c;
    c.interface = "lo";
    c.output = path("denied.pcapng").toStdString();
    std::atomic<bool> stop{false};
    auto r = run_live_capture(c, stop);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().reason, std::string("permission"));
    const QString detail = QString::fromStdString(r.error().detail);
    QVERIFY2(detail.startsWith("capture on lo is not permitted ("), qPrintable(detail));
    QVERIFY2(detail.endsWith("sudo setcap cap_net_raw,cap_net_admin+eip " + helper), qPrintable(detail));
    QVERIFY(!QFile::exists(path("denied.pcapng")));
    QVERIFY(!QFile::exists(path("denied.pcapng.capturing")));
  }
};

QTEST_GUILESS_MAIN(TestCaptureHelper)
#include "test_capture_helper.moc"
