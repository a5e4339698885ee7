// WriteQueue over a real TLS connection on loopback: writes the socket takes at once go out in
// the sender's turn (send_now), the rest are finished by the queue's writer, and the peer reads
// every byte in order either way — also when half a record is held when the socket filled (by
// OpenSSL, or by the stream's BIO, which seals TLS 1.3 records itself through OpenSSL's kTLS hook),
// and across KeyUpdates (the BIO then moves to the next keys itself).
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include <openssl/bio.h>
#include <openssl/err.h>

#include <cstring>
#include <thread>

#include "net/asio.h"
#include "net/byte_stream.h"
#include "tls_test_identity.h"

using namespace anthro;
using namespace anthro::net;

namespace {

const test::TlsTestIdentity& identity() {
  static test::TlsTestIdentity id;
  return id;
}

// Frame `i`: its number, then bytes that depend on it, so a lost, repeated or reordered piece shows.
Bytes frame(std::uint32_t i, std::size_t size) {
  Bytes b(size);
  std::memcpy(b.data(), &i, sizeof i);
  for (std::size_t k = sizeof i; k < size; ++k) b[k] = static_cast<std::uint8_t>(i * 31 + k * 7);
  return b;
}

// co_spawn's completion: what a coroutine threw fails the test instead of vanishing.
auto fail_on_throw(QString& failure) {
  return report_failure([&failure](const std::string& what) { failure = QString::fromStdString(what); });
}

// The stream's end of a test against plain OpenSSL: the test identity and one TLS 1.3 suite.
void serve_with(asio::ssl::context& ctx, const QString& suite) {
  SSL_CTX_use_certificate(ctx.native_handle(), identity().cert);
  SSL_CTX_use_PrivateKey(ctx.native_handle(), identity().key);
  SSL_CTX_set_ciphersuites(ctx.native_handle(), suite.toStdString().c_str());
}

// The other end: OpenSSL on a blocking socket to 127.0.0.1:`port`, with its own BIO and record
// layer; `talk(ssl)` connects and talks.
template <class Talk>
void openssl_peer(std::uint16_t port, const QString& suite, Talk talk) {
  asio::io_context peer_io;
  tcp::socket c(peer_io, tcp::v4());
  c.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_ciphersuites(ctx, suite.toStdString().c_str());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, static_cast<int>(c.native_handle()));
  talk(ssl);
  SSL_free(ssl);
  SSL_CTX_free(ctx);
}

struct Pair {
  QString failure;
  asio::io_context io;
  asio::ssl::context server_ctx{asio::ssl::context::tls_server}, client_ctx{asio::ssl::context::tls_client};
  std::unique_ptr<ByteStream> server, client;

  // A connected, handshaken pair with small socket buffers, so a few frames fill them.
  bool open() {
    SSL_CTX_use_certificate(server_ctx.native_handle(), identity().cert);
    SSL_CTX_use_PrivateKey(server_ctx.native_handle(), identity().key);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    tcp::socket c(io, tcp::v4());
    c.set_option(asio::socket_base::receive_buffer_size(4096));
    c.connect(acceptor.local_endpoint());
    tcp::socket s = acceptor.accept();
    s.set_option(asio::socket_base::send_buffer_size(4096));
    server = make_tls_stream(std::move(s), server_ctx);
    client = make_tls_stream(std::move(c), client_ctx);
    bool ok_s = false, ok_c = false;
    co_spawn(io, [&]() -> awaitable<void> { ok_s = co_await tls_handshake(*server, true); }, fail_on_throw(failure));
    co_spawn(io, [&]() -> awaitable<void> { ok_c = co_await tls_handshake(*client, false); }, fail_on_throw(failure));
    io.run();
    io.restart();
    return ok_s && ok_c;
  }
};

}  // namespace

class TestWriteQueue : public QObject {
  Q_OBJECT
  // Sends 400 frames of 1,500 bytes through `send_one` while the peer first sleeps (so both
  // sockets' buffers fill), then reads it all; false when the connection or a coroutine failed.
  template <class SendOne>
  bool run(Bytes& expected, Bytes& received, SendOne send_one) {
    constexpr std::uint32_t kFrames = 400;
    constexpr std::size_t kSize = 1500;
    for (std::uint32_t i = 0; i < kFrames; ++i) {
      Bytes f = frame(i, kSize);
      expected.insert(expected.end(), f.begin(), f.end());
    }
    Pair p;
    if (!p.open()) return false;
    WriteQueue queue(*p.server);
    co_spawn(p.io, [&]() -> awaitable<void> {
      for (std::uint32_t i = 0; i < kFrames; ++i) co_await send_one(queue, frame(i, kSize));
      co_await queue.flush();
    }, fail_on_throw(p.failure));
    // A lost byte would leave the reader waiting: 20 s, then both ends close and the test fails.
    asio::steady_timer guard(p.io);
    guard.expires_after(std::chrono::seconds(20));
    guard.async_wait([&](boost::system::error_code ec) {
      if (ec) return;
      p.failure = "no end after 20 s";
      p.client->close();
      p.server->close();
    });
    co_spawn(p.io, [&]() -> awaitable<void> {
      asio::steady_timer t(p.io);
      co_await sleep_for(t, 0.2);
      std::vector<std::uint8_t> buf(2048);
      while (received.size() < expected.size()) {
        std::size_t n = co_await p.client->read_some(buf.data(), buf.size());
        if (n == 0) break;
        received.insert(received.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
      }
      guard.cancel();
    }, fail_on_throw(p.failure));
    p.io.run();
    if (!p.failure.isEmpty()) qWarning() << p.failure;
    if (queue.failed()) qWarning() << p.server->error().message().c_str();
    return p.failure.isEmpty() && !queue.failed();
  }

 private slots:
  // Nothing else writes meanwhile, so every send_now() that declines met a full socket, with
  // OpenSSL holding the record it made: write() must finish that record, not lose or repeat it.
  void aWriteTheSocketCannotTakeIsFinishedByWrite() {
    int at_once = 0, declined = 0;
    Bytes received, expected;
    QVERIFY(run(expected, received, [&](WriteQueue& queue, Bytes f) -> awaitable<void> {
      if (queue.send_now(f)) ++at_once;
      else {
        ++declined;
        co_await queue.write(std::move(f));
      }
    }));
    QVERIFY2(at_once > 0, "no frame went out in the sender's turn");
    QVERIFY2(declined > 0, "the socket never filled: the held-record path was not exercised");
    QCOMPARE(received.size(), expected.size());
    QVERIFY(received == expected);
  }

  // A declined frame handed to send(), and more queued behind it before the writer runs: the
  // writer's one write of them all starts with the record OpenSSL holds.
  void aHeldRecordLeavesFirstWhenMoreIsQueuedBehindIt() {
    int declined = 0;
    Bytes received, expected;
    QVERIFY(run(expected, received, [&](WriteQueue& queue, Bytes f) -> awaitable<void> {
      if (!queue.send_now(f)) {
        ++declined;
        queue.send(std::move(f));
      }
      co_return;
    }));
    QVERIFY(declined > 0);
    QCOMPARE(received.size(), expected.size());
    QVERIFY(received == expected);
  }

  // The records the stream's BIO seals (TlsRecordWriter) are read by OpenSSL's own record layer
  // on a plain socket: small ones (libsodium), a few hundred bytes (EVP) and 16 KiB ones, for
  // each TLS 1.3 suite (AES-128-GCM and TLS 1.2 stay OpenSSL's: nothing taken over).
  void theRecordsTheStreamSealsAreOpenSslsOwn_data() {
    QTest::addColumn<QString>("suite");
    QTest::addColumn<bool>("tls12");
    QTest::addColumn<bool>("sealed_here");
    QTest::newRow("AES-256-GCM") << "TLS_AES_256_GCM_SHA384" << false << true;
    QTest::newRow("ChaCha20-Poly1305") << "TLS_CHACHA20_POLY1305_SHA256" << false << true;
    QTest::newRow("AES-128-GCM") << "TLS_AES_128_GCM_SHA256" << false << false;
    QTest::newRow("TLS 1.2") << "TLS_AES_256_GCM_SHA384" << true << false;
  }
  void theRecordsTheStreamSealsAreOpenSslsOwn() {
    QFETCH(QString, suite);
    QFETCH(bool, tls12);
    QFETCH(bool, sealed_here);
    Bytes expected;
    for (std::uint32_t i = 0; i < 60; ++i) {
      Bytes f = frame(i, i % 3 == 0 ? 40 : i % 3 == 1 ? 700 : 40000);
      expected.insert(expected.end(), f.begin(), f.end());
    }
    asio::io_context io;
    asio::ssl::context server_ctx{asio::ssl::context::tls_server};
    serve_with(server_ctx, suite);
    if (tls12) SSL_CTX_set_max_proto_version(server_ctx.native_handle(), TLS1_2_VERSION);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    Bytes received;
    std::thread peer([&, port = acceptor.local_endpoint().port()] {
      openssl_peer(port, suite, [&](SSL* ssl) {
        std::vector<std::uint8_t> buf(65536);
        std::size_t n = 0;
        if (SSL_connect(ssl) == 1)
          while (received.size() < expected.size() && SSL_read_ex(ssl, buf.data(), buf.size(), &n) == 1)
            received.insert(received.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
      });
    });
    auto server = make_tls_stream(acceptor.accept(), server_ctx);
    bool handshaken = false, written = false, took_over = false;
    QString failure;
    co_spawn(io, [&]() -> awaitable<void> {
      handshaken = co_await tls_handshake(*server, true);
      took_over = BIO_get_ktls_send(SSL_get_wbio(server->ssl()));
      written = handshaken && co_await server->write_all(expected);
    }, fail_on_throw(failure));
    io.run();
    peer.join();
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY(handshaken);
    QVERIFY2(written, server->error().message().c_str());
    QCOMPARE(took_over, sealed_here);
    QCOMPARE(received.size(), expected.size());
    QVERIFY(received == expected);
  }

  // A KeyUpdate: OpenSSL 3.0 moves to the next keys without handing them to the BIO, so the
  // stream's writer makes them itself (RFC 8446 §7.2). The peer, plain OpenSSL, asks for one
  // before each of its writes three times in a row, then the stream starts one of its own; after
  // each the stream writes a long reply (OpenSSL's write, the KeyUpdate first) and a short one
  // (sealed by the stream alone). The peer reads every reply byte for byte under the new keys
  // (a record under a stale key is a bad_record_mac) and sees each KeyUpdate come.
  void theStreamKeepsWritingAcrossKeyUpdates_data() {
    QTest::addColumn<QString>("suite");
    QTest::newRow("AES-256-GCM") << "TLS_AES_256_GCM_SHA384";
    QTest::newRow("ChaCha20-Poly1305") << "TLS_CHACHA20_POLY1305_SHA256";
  }
  void theStreamKeepsWritingAcrossKeyUpdates() {
    QFETCH(QString, suite);
    constexpr int kRounds = 4, kRequested = 3;  // the last round's KeyUpdate is the stream's own
    const std::size_t long_size[kRounds] = {40000, 700, 40000, 16384};
    Bytes expected;
    for (int r = 0; r < kRounds; ++r)
      for (Bytes f : {frame(2 * r, long_size[r]), frame(2 * r + 1, 40)}) expected.insert(expected.end(), f.begin(), f.end());
    asio::io_context io;
    asio::ssl::context server_ctx{asio::ssl::context::tls_server};
    serve_with(server_ctx, suite);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    Bytes received;
    int key_updates_seen = 0;
    unsigned long peer_error = 0;
    std::thread peer([&, port = acceptor.local_endpoint().port()] {
      openssl_peer(port, suite, [&](SSL* ssl) {
        SSL_set_msg_callback_arg(ssl, &key_updates_seen);
        SSL_set_msg_callback(ssl, [](int write_p, int, int content_type, const void* buf, std::size_t len, SSL*, void* arg) {
          if (!write_p && content_type == SSL3_RT_HANDSHAKE && len > 0 && static_cast<const std::uint8_t*>(buf)[0] == SSL3_MT_KEY_UPDATE)
            ++*static_cast<int*>(arg);
        });
        std::vector<std::uint8_t> buf(65536);
        std::size_t n = 0, want = 0;
        bool ok = SSL_connect(ssl) == 1;
        for (int r = 0; ok && r < kRounds; ++r) {
          if (r < kRequested) ok = SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1;
          ok = ok && SSL_write(ssl, "?", 1) == 1;
          want += long_size[r] + 40;
          while (ok && received.size() < want && (ok = SSL_read_ex(ssl, buf.data(), buf.size(), &n) == 1))
            received.insert(received.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
        }
        peer_error = ERR_peek_last_error();
      });
    });
    auto server = make_tls_stream(acceptor.accept(), server_ctx);
    bool handshaken = false, took_over = false;
    int rounds = 0;
    QString failure;
    co_spawn(io, [&]() -> awaitable<void> {
      handshaken = co_await tls_handshake(*server, true);
      took_over = BIO_get_ktls_send(SSL_get_wbio(server->ssl()));
      for (int r = 0; handshaken && r < kRounds; ++r) {
        std::uint8_t b[16];
        if (co_await server->read_some(b, sizeof b) != 1) break;
        if (r >= kRequested && SSL_key_update(server->ssl(), SSL_KEY_UPDATE_NOT_REQUESTED) != 1) break;
        Bytes long_reply = frame(2 * r, long_size[r]), short_reply = frame(2 * r + 1, 40);
        if (!co_await server->write_all(long_reply) || !co_await server->write_all(short_reply)) break;
        ++rounds;
      }
      server->close();
    }, fail_on_throw(failure));
    io.run();
    peer.join();
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY(handshaken);
    QVERIFY2(took_over, "the stream did not seal the records: nothing here was tested");
    QVERIFY2(rounds == kRounds, server->error().message().c_str());
    QVERIFY2(ERR_GET_REASON(peer_error) != SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, "a record under a stale key");
    QCOMPARE(key_updates_seen, kRounds);
    QCOMPARE(received.size(), expected.size());
    QVERIFY(received == expected);
  }

  void aResetPeerFailsTheQueueInsteadOfWaiting() {
    Pair p;
    QVERIFY(p.open());
    p.client->reset();
    WriteQueue queue(*p.server);
    int tries = 0;
    co_spawn(p.io, [&]() -> awaitable<void> {
      asio::steady_timer t(p.io);
      co_await sleep_for(t, 0.05);  // the RST reaches the server's socket
      while (!queue.failed() && tries < 100) {
        ++tries;
        Bytes f = frame(static_cast<std::uint32_t>(tries), 1000);
        if (!queue.send_now(f)) co_await queue.write(std::move(f));
      }
    }, fail_on_throw(p.failure));
    p.io.run();
    QVERIFY2(p.failure.isEmpty(), qPrintable(p.failure));
    QVERIFY2(queue.failed(), qPrintable(QString("still writing after %1 frames to a reset peer").arg(tries)));
    QVERIFY(p.server->error());
    QVERIFY(tries < 100);
  }
};

QTEST_GUILESS_MAIN(TestWriteQueue)
#include "test_write_queue.moc"
