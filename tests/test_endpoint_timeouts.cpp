// The endpoint's timeouts and connection cap, on real sockets with small configured timeouts:
// peers that stay silent, trickle a request or sit idle are closed once their phase outlasts
// its budget; peers that are slow but steady are not; a connection beyond the cap is told why.
// Bounds derive from the configured timeouts: never closed before them, and closed well
// inside the peer's own 5 s patience.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>
#include <thread>

#include "endpoint_fixture.h"
#include "h2_raw_peer.h"
#include "lab_client_keys.h"
#include "net/deadline.h"

using namespace anthro;
using namespace anthro::test;

namespace {

constexpr double kPatienceS = 5;  // how long a peer here waits before calling the server stuck

std::uint16_t port_of(const std::string& url) { return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1))); }

// A blocking TCP peer that says only what a test makes it say.
class TcpPeer {
 public:
  // `receive_buffer` shrinks the socket's buffer (before connecting, so the window is small too).
  // The clock starts before connecting: the server may accept and arm its deadline before
  // connect() returns here, so a clock started after it could see a close come early.
  explicit TcpPeer(std::uint16_t port, int receive_buffer = 0) {
    clock_.start();
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~TcpPeer() { ::close(fd_); }
  bool connected() const { return connected_; }
  double seconds() const { return clock_.nsecsElapsed() / 1e9; }

  void send(std::string_view text) { (void)!::send(fd_, text.data(), text.size(), MSG_NOSIGNAL); }
  void send(ByteView bytes) { send(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())); }

  // Reads until `want` bytes arrived, the server closed, or `wait_s` passed; true when it closed.
  bool read(std::string& out, double wait_s, std::size_t want = SIZE_MAX) {
    timeval tv{static_cast<time_t>(wait_s), static_cast<suseconds_t>((wait_s - static_cast<time_t>(wait_s)) * 1e6)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    while (out.size() < want) {
      ssize_t n = ::recv(fd_, buf, std::min(sizeof buf, want - out.size()), 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return true;
      if (n < 0) return false;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return false;
  }
  // True when the server closed within `wait_s`, reading and dropping what it sent.
  bool closed_within(double wait_s) {
    std::string ignored;
    return read(ignored, wait_s);
  }
  // Without waiting: has the server closed?
  bool closed_now() {
    char c;
    ssize_t n = ::recv(fd_, &c, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

  // The anthro-v1 in-band preface; true once the server's answer is read.
  bool negotiate() {
    send(keys_.preface(0x1122334455667788ULL));
    std::string answer;
    read(answer, kPatienceS, kPrefaceSize);
    return keys_.accept(as_bytes(answer));
  }
  LabClientKeys& keys() { return keys_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  QElapsedTimer clock_;
  LabClientKeys keys_;
};

std::string messages_head(std::size_t content_length) {
  return "POST /v1/messages HTTP/1.1\r\nhost: x\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n"
         "content-length: " + std::to_string(content_length) + "\r\n\r\n";
}

// A valid Messages API body of exactly `size` bytes (padded inside the prompt).
std::string messages_body(std::size_t size) {
  std::string head = R"({"model":"m","max_tokens":3,"messages":[{"role":"user","content":")", tail = R"("}]})";
  return head + std::string(size - head.size() - tail.size(), 'a') + tail;
}

// What a Deadline did through re-arming, disarming and a shorter arm after a longer one, on
// a real connected socket (the stream it closes).
struct DeadlineRun {
  bool expired_while_rearmed = true, open_while_rearmed = false;
  bool expired_when_disarmed = true;
  bool expired_after_shorter = false, closed_after_shorter = false;
};

DeadlineRun run_deadline() {
  using namespace anthro::net;
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  tcp::socket client(io);
  client.connect(acceptor.local_endpoint());
  auto stream = make_plain_stream(acceptor.accept());
  Deadline deadline(*stream);
  DeadlineRun run;
  auto scenario = [&]() -> awaitable<void> {
    asio::steady_timer t(io);
    deadline.arm(0.3);
    for (int i = 0; i < 12; ++i) {  // 0.6 s, twice the budget, re-armed every 50 ms
      co_await sleep_for(t, 0.05);
      deadline.arm(0.3);
    }
    run.expired_while_rearmed = deadline.expired();
    run.open_while_rearmed = stream->socket().is_open();
    deadline.disarm();
    co_await sleep_for(t, 0.5);
    run.expired_when_disarmed = deadline.expired();
    deadline.arm(5);
    deadline.arm(0.1);  // sooner than the wait already pending
    co_await sleep_for(t, 0.6);
    run.expired_after_shorter = deadline.expired();
    run.closed_after_shorter = !stream->socket().is_open();
  };
  asio::co_spawn(io, scenario(), asio::detached);
  io.run_for(std::chrono::seconds(10));
  return run;
}

}  // namespace

class TestEndpointTimeouts : public QObject {
  Q_OBJECT
 private slots:
  // The deadline every write and read phase arms: re-arming pushes it back, disarming stops it,
  // and a shorter arm after a longer one is kept (arming is lazy; its timer waits again).
  void deadlinesFollowTheirLastArm() {
    DeadlineRun run = run_deadline();
    QVERIFY(!run.expired_while_rearmed);
    QVERIFY(run.open_while_rearmed);
    QVERIFY(!run.expired_when_disarmed);
    QVERIFY(run.expired_after_shorter);
    QVERIFY(run.closed_after_shorter);
  }

  // No ClientHello on the TLS port, no preface on the lab port, no request on the HTTP port.
  void silentConnectionsCloseAfterTheirTimeout() {
    EndpointFixture f;
    f.config().handshake_timeout_s = 0.3;
    f.config().header_timeout_s = 0.4;
    f.start();
    struct Case {
      const char* scheme;
      double timeout_s;
    };
    std::uint64_t expected = 0;
    for (Case c : {Case{"anthro", 0.3}, Case{"anthro+lab", 0.3}, Case{"http", 0.4}}) {
      TcpPeer peer(port_of(f.endpoint().url(c.scheme)));
      QVERIFY(peer.connected());
      QVERIFY2(peer.closed_within(kPatienceS), c.scheme);
      QVERIFY2(peer.seconds() >= c.timeout_s, c.scheme);
      ++expected;
      QTRY_COMPARE(f.endpoint().counters().timeouts, expected);  // counted just after the close
    }
  }

  // Slowloris: a header byte every 50 ms never leaves the connection quiet for long, but the
  // head as a whole must arrive within the header timeout.
  void slowlorisHttpSenderIsClosed() {
    EndpointFixture f;
    f.config().header_timeout_s = 0.5;
    f.config().idle_timeout_s = 10;
    f.start();
    TcpPeer peer(port_of(f.endpoint().url("http")));
    peer.send("POST /v1/messages HTTP/1.1\r\n");
    bool closed = false;
    for (int i = 0; i < kPatienceS / 0.05 && !closed; ++i) {
      peer.send("x");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      closed = peer.closed_now();
    }
    QVERIFY(closed);
    QVERIFY(peer.seconds() >= 0.5);
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
    QCOMPARE(f.endpoint().counters().http_requests, std::uint64_t{0});
  }

  // A body trickled slower than 1 KiB/s runs out of time; one sent steadily at several KiB/s
  // takes longer than the body timeout in all and is answered.
  void bodyTimeoutCutsATrickleNotASteadySender() {
    EndpointFixture f({}, 5, 1, 3);
    f.config().body_timeout_s = 0.4;
    f.start();
    TcpPeer trickle(port_of(f.endpoint().url("http")));
    trickle.send(messages_head(4096));
    bool closed = false;
    for (int i = 0; i < kPatienceS / 0.1 && !closed; ++i) {
      trickle.send("aaaaaaaaaa");  // 100 bytes/s
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      closed = trickle.closed_now();
    }
    QVERIFY(closed);
    QVERIFY(trickle.seconds() >= 0.4);
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});

    TcpPeer steady(port_of(f.endpoint().url("http")));
    std::string body = messages_body(8 * 1024);
    steady.send(messages_head(body.size()));
    for (std::size_t at = 0; at < body.size(); at += 1024) {  // ~8 KiB/s, 1.2 s in all
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      steady.send(std::string_view(body).substr(at, 1024));
    }
    QVERIFY(steady.seconds() > 2 * 0.4);
    std::string reply;
    steady.read(reply, kPatienceS, 12);
    QCOMPARE(QString::fromStdString(reply), QString("HTTP/1.1 200"));
    QCOMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
  }

  // Negotiated, then nothing: closed after the idle timeout, counted from the preface's answer.
  void idleAnthroConnectionIsClosed() {
    EndpointFixture f;
    f.config().idle_timeout_s = 0.4;
    f.start();
    TcpPeer peer(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(peer.negotiate());
    double negotiated = peer.seconds();
    QVERIFY(peer.closed_within(kPatienceS));
    QVERIFY(peer.seconds() - negotiated >= 0.4 - 0.01);  // the answer left a moment before it was read
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
  }

  // A stream in flight is not idle: tokens 150 ms apart over ~1.3 s, with every timeout at
  // 0.3 s, end in a RESPONSE on anthro-v1 (TLS and lab) and a complete SSE reply over HTTP.
  void slowSteadyStreamsAreNotClosed() {
    EndpointFixture f({}, 400, 150, 6);
    f.config().handshake_timeout_s = 0.3;
    f.config().idle_timeout_s = 0.3;
    f.config().header_timeout_s = 0.3;
    f.config().body_timeout_s = 0.3;
    f.start();
    for (std::string target : {"anthro", "anthro+lab", "http"}) {
      SessionConfig c = f.session(target, target == "http" ? "/v1/messages" : "");
      c.repeat = 2;  // the second request starts well inside the idle timeout of the first's end
      SessionResult r = EndpointFixture::run(c);
      QVERIFY2(!r.error, target.c_str());
      QCOMPARE(r.requests.size(), std::size_t{2});
      for (const auto& q : r.requests) {
        QVERIFY2(!q.error, (target + ": " + q.error.value_or("")).c_str());
        QCOMPARE(q.end, RequestEnd::Response);
        QCOMPARE(q.figures.tokens, std::uint64_t{6});
        QVERIFY(q.figures.e2e_ms.value_or(0) > 3 * 300);
      }
    }
    QCOMPARE(f.endpoint().counters().timeouts, std::uint64_t{0});
  }

  // A peer that asks for a long reply and then stops reading: once the server's write has
  // waited the send timeout, the connection is closed and counted, on anthro-v1 and HTTP alike,
  // while a peer of the same endpoint that reads is served.
  void aPeerThatStopsReadingIsClosed() {
    constexpr std::uint32_t kTokens = 200000;  // megabytes of frames: far beyond the socket buffers
    EndpointFixture f({}, 0, 0, kTokens);
    f.config().default_max_tokens = kTokens;
    f.config().send_timeout_s = 0.5;
    f.config().idle_timeout_s = 0;
    f.start();
    TcpPeer anthro(port_of(f.endpoint().url("anthro+lab")), 4096);
    QVERIFY(anthro.negotiate());
    anthro.send(anthro.keys().request(1, kTokens));
    TcpPeer http(port_of(f.endpoint().url("http")), 4096);
    std::string body = R"({"model":"m","max_tokens":200000,"stream":true,"messages":[{"role":"user","content":"hi"}]})";
    http.send(messages_head(body.size()) + body);
    // Filling the socket buffers takes the generator a while under the sanitizers: patience,
    // not a promise of speed; the bound below is the one that matters.
    QTRY_COMPARE_WITH_TIMEOUT(f.endpoint().counters().timeouts, std::uint64_t{2}, 60000);
    QVERIFY(anthro.seconds() >= 0.5 && http.seconds() >= 0.5);
    QTRY_COMPARE(f.endpoint().counters().open_connections, std::uint64_t{0});
    QVERIFY(anthro.closed_within(kPatienceS) && http.closed_within(kPatienceS));

    SessionConfig reader = f.session("anthro");
    reader.max_tokens = 50;
    SessionResult r = EndpointFixture::run(reader);
    QVERIFY(!r.error && !r.requests.at(0).error);
    QCOMPARE(r.requests.at(0).figures.tokens, std::uint64_t{50});
  }

  // HTTP/2 (ALPN h2): after one complete reply, silence. The idle timeout counts from the
  // last stream's end, as HTTP/1.1's counts from the last reply.
  void http2IdleAfterTheLastStreamIsClosed() {
    EndpointFixture f;
    f.config().idle_timeout_s = 1;
    f.start();
    H2RawPeer peer(port_of(f.endpoint().url("https")));
    QVERIFY(peer.connected() && peer.start());
    QVERIFY(peer.send(h2::request_headers(1, "GET", "/nowhere", true)));
    auto frames = peer.read_stream(1);
    QVERIFY(!frames.empty() && frames.back().stream == 1 && (frames.back().flags & h2::kEndStream));
    QElapsedTimer quiet;
    quiet.start();
    QVERIFY(peer.closed_within(kPatienceS));
    QVERIFY(quiet.elapsed() >= 500);  // not before its time (counted from the server's end of the reply)
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
  }

  // A peer that grants no flow-control window (SETTINGS_INITIAL_WINDOW_SIZE 0) and never
  // opens it: the reply's body cannot move, and after the send timeout the connection closes.
  void http2StreamStalledAgainstAZeroWindowIsClosed() {
    EndpointFixture f;
    f.config().idle_timeout_s = 0;  // only the stall may close it
    f.config().send_timeout_s = 1;
    f.start();
    H2RawPeer peer(port_of(f.endpoint().url("https")));
    QVERIFY(peer.connected() && peer.start({{0x4, 0}}));
    QVERIFY(peer.send(h2::request_headers(1, "GET", "/nowhere", true)));
    QVERIFY(peer.closed_within(kPatienceS));
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
  }

  // A request body trickled a byte at a time over HTTP/2 runs out of the body timeout, as
  // over HTTP/1.1 (each byte buys 1 ms at 1 KiB/s).
  void http2BodyTrickleIsClosed() {
    EndpointFixture f;
    f.config().idle_timeout_s = 0;  // only the body timeout may close it
    f.config().body_timeout_s = 1;
    f.start();
    H2RawPeer peer(port_of(f.endpoint().url("https")));
    QVERIFY(peer.connected() && peer.start());
    QVERIFY(peer.send(h2::request_headers(1, "POST", "/v1/messages", false,
                                          {{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}})));
    bool closed = false;
    for (int i = 0; i < kPatienceS / 0.25 && !closed; ++i) {
      peer.send(h2::frame(h2::kData, 0, 1, "{"), 0.25);
      closed = peer.closed_within(0.25);
    }
    QVERIFY(closed);
    QTRY_COMPARE(f.endpoint().counters().timeouts, std::uint64_t{1});
  }

  // Beyond max_connections: anthro-v1 hears ERROR 503 on stream 0, HTTP a 503, each with the
  // reason; once the held connections go, the next one is served.
  void connectionsBeyondTheCapAreToldWhy() {
    EndpointFixture f;
    f.config().max_connections = 2;
    f.start();
    {
      auto held = std::make_unique<TcpPeer>(port_of(f.endpoint().url("anthro+lab")));
      auto held2 = std::make_unique<TcpPeer>(port_of(f.endpoint().url("anthro+lab")));
      QVERIFY(held->negotiate() && held2->negotiate());
      for (std::string target : {"anthro", "anthro+lab", "http"}) {
        SessionResult r = EndpointFixture::run(f.session(target, target == "http" ? "/v1/messages" : ""));
        QVERIFY2(!r.requests.empty(), (target + ": " + r.error.value_or("")).c_str());
        const RequestResult& q = r.requests.at(0);
        QCOMPARE(q.error_code.value_or(0), 503);
        QVERIFY2(q.error.value_or("").find("at most 2 connections") != std::string::npos, q.error.value_or("").c_str());
        QCOMPARE(q.retry_after_ms.value_or(0), std::uint32_t{1000});
      }
      QCOMPARE(f.endpoint().counters().refused_connections, std::uint64_t{3});
    }
    for (int i = 0; i < 100 && f.endpoint().counters().open_connections > 0; ++i) QTest::qWait(10);
    SessionResult r = EndpointFixture::run(f.session("anthro"));
    QVERIFY(!r.error && !r.requests.at(0).error);
  }
};

QTEST_GUILESS_MAIN(TestEndpointTimeouts)
#include "test_endpoint_timeouts.moc"
