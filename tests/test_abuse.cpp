// Floods against `anthro-wb endpoint` run as a child process, with its resident memory
// (/proc/PID/status VmRSS) and open descriptors (/proc/PID/fd) read before, during and after,
// and an honest client served during each. Loopback only, bounded in count and time (well
// under a minute); labelled `timing` (tests/CMakeLists.txt): the optimised pass runs it.
#include <signal.h>

#include <QDir>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <memory>
#include <thread>

#include "h2_raw_peer.h"
#include "test_paths.h"

using namespace anthro::test;

namespace {

constexpr double kSendTimeoutS = 2;  // the endpoint's --send-timeout: how long a stalled write lives
// RSS growth allowed while the floods run: the queues are bounded (max_queued_bytes, 1 MiB a
// connection) and each connection holds TLS and nghttp2 state, a few MiB for four of them.
// Unbounded, one non-reading PING flood reached 2.4 GB in 30 s.
constexpr long kFloodGrowthKib = 64 * 1024;
// After the connections close: back within this of the baseline (malloc_trim returns what
// the full queues took; what stays is the allocator's ordinary slack).
constexpr long kAfterSlackKib = 16 * 1024;

long rss_kib(qint64 pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

int fd_count(qint64 pid) { return static_cast<int>(QDir(QString("/proc/%1/fd").arg(pid)).entryList(QDir::NoDotAndDotDot | QDir::System).size()); }

std::uint16_t port_of(const QString& url) { return static_cast<std::uint16_t>(url.section(':', -1).toUInt()); }

// An HTTP/2 Messages API request answered whole: true when its stream ends with status 200.
bool honest_request(std::uint16_t port) {
  H2RawPeer peer(port);
  if (!peer.connected() || !peer.start()) return false;
  std::string body = R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]})";
  peer.send(h2::request_headers(1, "POST", "/v1/messages", false,
                                {{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}}));
  peer.send(h2::frame(h2::kData, h2::kEndStream, 1, body));
  bool ok = false, ended = false;
  for (const auto& f : peer.read_stream(1, 10)) {
    if (f.stream != 1) continue;
    if (f.type == h2::kHeaders && !f.payload.empty()) ok = static_cast<std::uint8_t>(f.payload[0]) == 0x88;  // :status 200, HPACK static index 8
    ended = ended || (f.flags & h2::kEndStream);
  }
  return ok && ended;
}

}  // namespace

class TestAbuse : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", dir_.path());
    endpoint_.setProcessEnvironment(env);
    endpoint_.start(ANTHRO_WB, {"endpoint", "--listen", "127.0.0.1:0", "--ttft-ms", "5:0", "--itl-ms", "1:0", "--tokens",
                                "5", "--send-timeout", QString::number(kSendTimeoutS), "--idle-timeout", "30"});
    QVERIFY(endpoint_.waitForStarted());
    while (https_.isEmpty() && endpoint_.waitForReadyRead(10000))
      while (endpoint_.canReadLine()) {
        QString line = QString::fromUtf8(endpoint_.readLine()).trimmed();
        if (line.startsWith("listening https://")) https_ = line.mid(10);
      }
    QVERIFY2(!https_.isEmpty(), "anthro-wb endpoint printed no https listener");
  }

  void cleanupTestCase() {
    ::kill(static_cast<pid_t>(endpoint_.processId()), SIGTERM);
    QVERIFY(endpoint_.waitForFinished(10000));
  }

  // Four HTTP/2 connections send PINGs and read none of the ACKs. The endpoint stops reading
  // each once its output passes max_queued_bytes, and the send timeout closes them.
  void http2PingFloodStaysBoundedAndGivesMemoryBack() {
    const qint64 pid = endpoint_.processId();
    const int fds_before = fd_count(pid);  // the listeners and the loop's own
    QVERIFY(honest_request(port_of(https_)));  // the allocator's steady state first
    QTRY_COMPARE(fd_count(pid), fds_before);
    const long rss_before = rss_kib(pid);

    std::string pings;
    for (int i = 0; i < 1024; ++i) pings += h2::frame(h2::kPing, 0, 0, "12345678");
    std::vector<std::unique_ptr<H2RawPeer>> floods;
    long rss_during = rss_before;
    std::size_t flooded = 0;
    for (int i = 0; i < 4; ++i) {
      floods.push_back(std::make_unique<H2RawPeer>(port_of(https_)));
      H2RawPeer& flood = *floods.back();
      QVERIFY(flood.connected() && flood.start());
      while (flood.sent() < (64u << 20) && flood.send(pings, 0.5)) rss_during = std::max(rss_during, rss_kib(pid));
      QVERIFY2(flood.sent() < (64u << 20), "the endpoint kept reading a peer that reads nothing");
      rss_during = std::max(rss_during, rss_kib(pid));
      flooded += flood.sent();
    }
    QVERIFY2(honest_request(port_of(https_)), "an honest client was not served during the flood");
    rss_during = std::max(rss_during, rss_kib(pid));

    // Each flood's stalled write times out; then the peers go too.
    QTest::qWait(static_cast<int>(kSendTimeoutS * 1000) + 500);
    floods.clear();
    QTRY_COMPARE_WITH_TIMEOUT(fd_count(pid), fds_before, 10000);
    long rss_after = rss_kib(pid);
    for (int i = 0; i < 50 && rss_after - rss_before > kAfterSlackKib; ++i) {
      QTest::qWait(100);
      rss_after = rss_kib(pid);
    }
    qInfo("%zu KiB of PINGs sent; VmRSS before %ld KiB, during %ld KiB, after %ld KiB; descriptors %d", flooded >> 10,
          rss_before, rss_during, rss_after, fds_before);
    QVERIFY2(rss_during - rss_before < kFloodGrowthKib, qPrintable(QString("grew %1 KiB").arg(rss_during - rss_before)));
    QVERIFY2(rss_after - rss_before < kAfterSlackKib, qPrintable(QString("kept %1 KiB").arg(rss_after - rss_before)));
    QVERIFY(honest_request(port_of(https_)));
  }

 private:
  QTemporaryDir dir_;
  QProcess endpoint_;
  QString https_;
};

QTEST_GUILESS_MAIN(TestAbuse)
#include "test_abuse.moc"
