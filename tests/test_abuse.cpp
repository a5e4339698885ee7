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
#include "layerzero/session.h"
#include "profiles_vectors.h"
#include "raw_peer.h"
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

// `anthro-wb endpoint` as a child process, its listeners' URLs by scheme as it printed them.
class ChildEndpoint {
 public:
  ~ChildEndpoint() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    process_.waitForFinished(10000);
  }
  bool start(const QString& data_dir, const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", data_dir);
    process_.setProcessEnvironment(env);
    process_.start(ANTHRO_WB, QStringList{"endpoint", "--listen", "127.0.0.1:0", "--ttft-ms", "5:0", "--itl-ms", "1:0",
                                          "--tokens", "5", "--send-timeout", QString::number(kSendTimeoutS)} + args);
    if (!process_.waitForStarted()) return false;
    while (!urls_.count("https") && process_.waitForReadyRead(10000))
      while (process_.canReadLine()) {
        const QString line = QString::fromUtf8(process_.readLine()).trimmed();
        if (line.startsWith("listening ")) urls_[line.mid(10).section("://", 0, 0)] = line.mid(10);
      }
    process_.waitForReadyRead(200);  // the listeners printed after https
    while (process_.canReadLine()) {
      const QString line = QString::fromUtf8(process_.readLine()).trimmed();
      if (line.startsWith("listening ")) urls_[line.mid(10).section("://", 0, 0)] = line.mid(10);
    }
    return urls_.count("https");
  }
  qint64 pid() const { return process_.processId(); }
  std::uint16_t port(const QString& scheme) const { return urls_.count(scheme) ? port_of(urls_.at(scheme)) : 0; }
  bool stop() {
    ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    return process_.waitForFinished(10000) && process_.exitStatus() == QProcess::NormalExit;
  }

 private:
  QProcess process_;
  std::map<QString, QString> urls_;
};

// One Messages API request on stream `id` of `peer`, answered whole: true when its stream ends
// with status 200.
bool answered_ok(H2RawPeer& peer, std::uint32_t id) {
  std::string body = R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]})";
  peer.send(h2::request_headers(id, "POST", "/v1/messages", false,
                                {{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}}));
  peer.send(h2::frame(h2::kData, h2::kEndStream, id, body));
  bool ok = false, ended = false;
  for (const auto& f : peer.read_stream(id, 10)) {
    if (f.stream != id) continue;
    if (f.type == h2::kHeaders && !f.payload.empty()) ok = static_cast<std::uint8_t>(f.payload[0]) == 0x88;  // :status 200, HPACK static index 8
    ended = ended || (f.flags & h2::kEndStream);
  }
  return ok && ended;
}

// A request on a connection of its own.
bool honest_request(std::uint16_t port) {
  H2RawPeer peer(port);
  return peer.connected() && peer.start() && answered_ok(peer, 1);
}

anthro::Bytes lz_init_frame(const anthro::lz::SessionInit& init) {
  return *anthro::lz::encode_frame(0, anthro::lz::PayloadType::SessionInit, *anthro::lz::encode_payload(init));
}

// The first Layer Zero frame a server sent in `s2c`, if any.
std::optional<anthro::lz::DataFrame> first_lz_frame(anthro::ByteView s2c) {
  std::optional<anthro::lz::DataFrame> first;
  anthro::lz::FrameSplitter splitter(anthro::Direction::ServerToClient);
  splitter.feed(s2c, [&](const anthro::lz::FrameView& f) {
    if (!first) first = f.to_frame();
  });
  return first;
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

  // Connections that got their answer and then say nothing hold no place: with every place of
  // --max-connections taken by such peers, each is closed at the idle timeout and an honest
  // client is served (before, HTTP/2 connections never timed out after their first reply and
  // honest clients got 503).
  void http2SilentConnectionsGiveTheirPlacesBack() {
    ChildEndpoint e;
    QVERIFY(e.start(dir_.path(), {"--max-connections", "8", "--idle-timeout", "1"}));
    const int fds_before = fd_count(e.pid());
    const long rss_before = rss_kib(e.pid());
    std::vector<std::unique_ptr<H2RawPeer>> silent;
    for (int i = 0; i < 8; ++i) {
      silent.push_back(std::make_unique<H2RawPeer>(e.port("https")));
      QVERIFY(silent.back()->connected() && silent.back()->start() && answered_ok(*silent.back(), 1));
    }
    for (auto& peer : silent) QVERIFY2(peer->closed_within(10), "a silent HTTP/2 connection outlived the idle timeout");
    QVERIFY2(honest_request(e.port("https")), "an honest client was not served once the silent peers were closed");
    silent.clear();
    QTRY_COMPARE_WITH_TIMEOUT(fd_count(e.pid()), fds_before, 10000);
    qInfo("VmRSS before %ld KiB, after %ld KiB; descriptors %d", rss_before, rss_kib(e.pid()), fds_before);
    QVERIFY(rss_kib(e.pid()) - rss_before < kAfterSlackKib);
  }

  // 1,100 fresh Layer Zero sessions from the address of an honest client that holds a token:
  // the session store stays within its bound (memory and descriptors back after), and the honest
  // session resumes.
  void layerZeroSessionFloodKeepsTheHonestSession() {
    namespace lz = anthro::lz;
    ChildEndpoint e;
    QVERIFY(e.start(dir_.path(), {"--lz-listen", "127.0.0.1:0"}));
    const std::uint16_t port = e.port("lz+lab");
    QVERIFY(port != 0);
    const int fds_before = fd_count(e.pid());
    const lz::SessionInit fresh{lz_vector_terms(), std::nullopt, std::nullopt};
    const std::size_t ack_bytes = lz::kFrameOverhead + 76;
    lz::SessionToken token{};
    {
      RawPeer honest(port);
      honest.send(lz_init_frame(fresh));
      auto ack = first_lz_frame(honest.read_at_least(ack_bytes));
      QVERIFY(ack && ack->type == lz::PayloadType::SessionAck);
      token = lz::decode_session_ack(ack->payload)->token;
    }
    const long rss_before = rss_kib(e.pid());
    long rss_during = rss_before;
    std::size_t refused = 0;
    for (int i = 0; i < 1100; ++i) {
      RawPeer attacker(port);
      attacker.send(lz_init_frame(fresh));
      refused += !first_lz_frame(attacker.read_at_least(ack_bytes));
      if (i % 100 == 0) rss_during = std::max(rss_during, rss_kib(e.pid()));
    }
    RawPeer resumed(port);
    resumed.send(lz_init_frame({lz_vector_terms(), lz::ResumeFields{token, 0, lz::system_clock_ns()}, std::nullopt}));
    auto answer = first_lz_frame(resumed.read_at_least(ack_bytes));
    QVERIFY(answer);
    QCOMPARE(answer->type, lz::PayloadType::SessionAck);
    QTRY_COMPARE_WITH_TIMEOUT(fd_count(e.pid()), fds_before + 1, 10000);  // the resumed connection
    qInfo("%zu of 1100 fresh sessions refused; VmRSS before %ld KiB, during %ld KiB", refused, rss_before, rss_during);
    QVERIFY(refused > 0);
    QVERIFY2(rss_during - rss_before < kFloodGrowthKib, qPrintable(QString("grew %1 KiB").arg(rss_during - rss_before)));
  }

 private:
  QTemporaryDir dir_;
  QProcess endpoint_;
  QString https_;
};

QTEST_GUILESS_MAIN(TestAbuse)
#include "test_abuse.moc"
