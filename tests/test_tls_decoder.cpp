// Passive TLS decryption: real TLS 1.3 and 1.2 connections made in memory with OpenSSL (two SSL
// objects joined by memory BIOs, NSS key log from the keylog callback), recorded per direction
// and fed to TlsDecoder whole, a byte at a time and in random pieces; and TLS 1.2 sessions of
// openssl's s_server and s_client captured by tcpdump on lo, decrypted as tshark decrypts them.
#include <QByteArray>
#include <QDeadlineTimer>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QRegularExpressionMatch>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "capture/analysis.h"
#include "capture/tls_decoder.h"
#include "capture_generator.h"
#include "tcpdump_capture.h"
#include "tls_plaintext.h"
#include "tls_test_identity.h"
#include "crypto/keylog.h"
#include "util/files.h"

#include <nlohmann/json.hpp>

using namespace anthro;
using namespace anthro::test;

namespace {

constexpr Direction C2S = Direction::ClientToServer;
constexpr Direction S2C = Direction::ServerToClient;
constexpr unsigned kAnthroExt = 0xFFA1;
constexpr unsigned kExtContext =
    SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS;

struct Piece {
  Direction dir;
  Bytes bytes;
};

std::array<std::uint8_t, 128> ext_bytes(std::uint8_t start) {
  std::array<std::uint8_t, 128> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(start + 3 * i);
  return a;
}
const std::array<std::uint8_t, 128> kOffer = ext_bytes(1);
const std::array<std::uint8_t, 128> kAnswer = ext_bytes(200);

Bytes text(std::string_view s) {
  auto v = as_bytes(s);
  return Bytes(v.begin(), v.end());
}

Bytes random_payload(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

// One self-signed P-256 certificate for every connection: ECDSA suites need an EC key.
const TlsTestIdentity& identity() {
  static TlsTestIdentity id;
  return id;
}

int ext_add(SSL* ssl, unsigned, unsigned, const unsigned char** out, size_t* outlen, X509*,
            size_t, int*, void*) {
  const auto& bytes = SSL_is_server(ssl) ? kAnswer : kOffer;
  *out = bytes.data();
  *outlen = bytes.size();
  return 1;
}
int ext_parse(SSL*, unsigned, unsigned, const unsigned char*, size_t, X509*, size_t, int*, void*) {
  return 1;
}

struct Options {
  int max_version = TLS1_3_VERSION;
  const char* ciphersuites = nullptr;  // TLS 1.3
  const char* cipher_list = nullptr;   // TLS 1.2
  const char* client_groups = nullptr;
  const char* server_groups = nullptr;
  bool anthro_extension = true;  // both ends send 0xFFA1 (fixed bytes, not valid blobs)
};

// A client and a server joined by memory BIOs; every byte each writes is kept as a Piece.
class Lab {
 public:
  explicit Lab(const Options& o) {
    cctx_ = make_ctx(TLS_client_method(), o);
    sctx_ = make_ctx(TLS_server_method(), o);
    SSL_CTX_use_certificate(sctx_, identity().cert);
    SSL_CTX_use_PrivateKey(sctx_, identity().key);
    SSL_CTX_set_alpn_select_cb(sctx_, select_anthro_alpn, nullptr);
    static const unsigned char protos[] = "\x09" "anthro-v1" "\x08" "http/1.1";
    SSL_CTX_set_alpn_protos(cctx_, protos, sizeof protos - 1);
    SSL_CTX_set_keylog_callback(cctx_, [](const SSL* ssl, const char* line) {
      static_cast<Lab*>(SSL_get_app_data(ssl))->keylog += std::string(line) + "\n";
    });
    if (o.client_groups) SSL_CTX_set1_groups_list(cctx_, o.client_groups);
    if (o.server_groups) SSL_CTX_set1_groups_list(sctx_, o.server_groups);
    client_ = make_ssl(cctx_, cin_, cout_);
    server_ = make_ssl(sctx_, sin_, sout_);
    SSL_set_app_data(client_, this);
    SSL_set_connect_state(client_);
    SSL_set_accept_state(server_);
  }
  ~Lab() {
    SSL_free(client_);
    SSL_free(server_);
    SSL_CTX_free(cctx_);
    SSL_CTX_free(sctx_);
  }

  bool handshake() {
    for (int i = 0; i < 20 && !(SSL_is_init_finished(client_) && SSL_is_init_finished(server_));
         ++i) {
      SSL_do_handshake(client_);
      move(cout_, sin_, C2S);
      SSL_do_handshake(server_);
      move(sout_, cin_, S2C);
    }
    pump();
    return SSL_is_init_finished(client_) && SSL_is_init_finished(server_);
  }
  void send(Direction d, const Bytes& data) {
    SSL* ssl = d == C2S ? client_ : server_;
    if (SSL_write(ssl, data.data(), static_cast<int>(data.size())) != static_cast<int>(data.size()))
      qFatal("SSL_write failed");
    append(d == C2S ? sent_c2s : sent_s2c, data);
    pump();
  }
  void key_update(Direction d) { SSL_key_update(d == C2S ? client_ : server_, SSL_KEY_UPDATE_REQUESTED); }

  std::vector<Piece> pieces;
  std::string keylog;
  Bytes sent_c2s, sent_s2c, got_c2s, got_s2c;

 private:
  static SSL_CTX* make_ctx(const SSL_METHOD* m, const Options& o) {
    SSL_CTX* ctx = SSL_CTX_new(m);
    SSL_CTX_set_max_proto_version(ctx, o.max_version);
    if (o.ciphersuites) SSL_CTX_set_ciphersuites(ctx, o.ciphersuites);
    if (o.cipher_list) SSL_CTX_set_cipher_list(ctx, o.cipher_list);
    if (o.anthro_extension)
      SSL_CTX_add_custom_ext(ctx, kAnthroExt, kExtContext, ext_add, nullptr, nullptr, ext_parse, nullptr);
    return ctx;
  }
  static SSL* make_ssl(SSL_CTX* ctx, BIO*& in, BIO*& out) {
    SSL* ssl = SSL_new(ctx);
    in = BIO_new(BIO_s_mem());
    out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);
    return ssl;
  }
  bool move(BIO* from, BIO* to, Direction d) {
    std::vector<std::uint8_t> buf(1 << 17);
    bool any = false;
    for (int n; (n = BIO_read(from, buf.data(), static_cast<int>(buf.size()))) > 0; any = true) {
      pieces.push_back({d, Bytes(buf.begin(), buf.begin() + n)});
      BIO_write(to, buf.data(), n);
    }
    return any;
  }
  static bool read_all(SSL* ssl, Bytes& got) {
    std::vector<std::uint8_t> buf(1 << 16);
    bool any = false;
    for (int n; (n = SSL_read(ssl, buf.data(), static_cast<int>(buf.size()))) > 0; any = true)
      got.insert(got.end(), buf.begin(), buf.begin() + n);
    return any;
  }
  // Moves bytes both ways and reads what arrived until nothing changes (tickets, KeyUpdates).
  void pump() {
    for (bool moved = true; moved;) {
      moved = move(cout_, sin_, C2S);
      moved |= move(sout_, cin_, S2C);
      moved |= read_all(server_, got_c2s);
      moved |= read_all(client_, got_s2c);
    }
  }

  SSL_CTX *cctx_, *sctx_;
  SSL *client_, *server_;
  BIO *cin_, *cout_, *sin_, *sout_;
};

TlsSecretLookup lookup_from(const std::string& keylog_text) {
  auto log = parse_keylog(keylog_text, "test");
  return [lines = log.tls](std::string_view label, ByteView cr) -> std::optional<Bytes> {
    for (const auto& l : lines)
      if (l.label == label && std::equal(cr.begin(), cr.end(), l.client_random.begin(), l.client_random.end()))
        return l.secret;
    return std::nullopt;
  };
}

// Flips one bit of the secret under `label`, so its records fail authentication.
std::string corrupt(std::string keylog, const std::string& label) {
  auto at = keylog.find(label + " ");
  if (at == std::string::npos) qFatal("label missing");
  auto end = keylog.find('\n', at);
  char& c = keylog[end - 1];
  c = c == '0' ? '1' : '0';
  return keylog;
}

enum class Chunking { Whole, Bytewise, Random };

struct Decoded {
  Bytes c2s, s2c;
  std::string status;
  TlsHandshakeInfo info;
  int handshakes = 0;
  bool ts_ok = true;
};

// ts rises with every feed; each event must carry the ts of the feed that completed its record.
Decoded decode(const std::vector<Piece>& pieces, TlsSecretLookup lookup, Chunking mode,
               std::uint32_t seed = 1) {
  Decoded d;
  double now = 0;
  TlsDecoder::Events ev;
  ev.on_handshake = [&](const TlsHandshakeInfo&) { ++d.handshakes; };
  ev.on_application_data = [&](Direction dir, ByteView p, double ts) {
    append(dir == C2S ? d.c2s : d.s2c, p);
    if (ts != now) d.ts_ok = false;
  };
  TlsDecoder dec(std::move(lookup), ev);
  std::mt19937 rng(seed);
  for (const auto& piece : pieces) {
    ByteView rest(piece.bytes);
    while (!rest.empty()) {
      std::size_t n = mode == Chunking::Whole      ? rest.size()
                      : mode == Chunking::Bytewise ? 1
                                                   : 1 + rng() % 3000;
      n = std::min(n, rest.size());
      now += 1;
      dec.feed(piece.dir, rest.first(n), now);
      rest = rest.subspan(n);
    }
  }
  dec.finish();
  d.status = dec.status();
  d.info = dec.handshake();
  return d;
}

// Small and large (> 16 KiB, so several records) messages both ways.
void converse(Lab& lab) {
  lab.send(C2S, text("hello server"));
  lab.send(S2C, text("hello client"));
  lab.send(C2S, random_payload(40000, 1));
  lab.send(S2C, random_payload(50000, 2));
  lab.send(S2C, text("bye"));
}


void check_session(const Lab& lab, const Decoded& d, const char* version, const char* suite) {
  QCOMPARE(d.status, std::string("ok"));
  QCOMPARE(lab.got_c2s, lab.sent_c2s);
  QCOMPARE(lab.got_s2c, lab.sent_s2c);
  QVERIFY(d.c2s == lab.sent_c2s);
  QVERIFY(d.s2c == lab.sent_s2c);
  QVERIFY(d.ts_ok);
  QCOMPARE(d.handshakes, 1);
  QCOMPARE(d.info.version, std::string(version));
  QCOMPARE(d.info.cipher_suite, std::string(suite));
  QCOMPARE(d.info.client_random.size(), std::size_t{32});
  QCOMPARE(d.info.alpn_offered, (std::vector<std::string>{"anthro-v1", "http/1.1"}));
  QCOMPARE(d.info.alpn_selected, std::string("anthro-v1"));
  QVERIFY(d.info.extension_offer == Bytes(kOffer.begin(), kOffer.end()));
  QVERIFY(d.info.extension_answer == Bytes(kAnswer.begin(), kAnswer.end()));
}

void add_chunking_rows(const char* name, const char* suite) {
  for (auto [mode, label] : {std::pair{Chunking::Whole, "whole"}, {Chunking::Bytewise, "bytewise"},
                             {Chunking::Random, "random"}})
    QTest::newRow((std::string(name) + "/" + label).c_str()) << QString(suite) << int(mode);
}

Options tls12(const char* ciphers) {
  Options o;
  o.max_version = TLS1_2_VERSION;
  o.cipher_list = ciphers;
  return o;
}

}  // namespace

class TestTlsDecoder : public QObject {
  Q_OBJECT
 private slots:
  void tls13Suites_data() {
    QTest::addColumn<QString>("suite");
    QTest::addColumn<int>("mode");
    add_chunking_rows("aes128", "TLS_AES_128_GCM_SHA256");
    add_chunking_rows("aes256", "TLS_AES_256_GCM_SHA384");
    add_chunking_rows("chacha", "TLS_CHACHA20_POLY1305_SHA256");
  }
  void tls13Suites() {
    QFETCH(QString, suite);
    QFETCH(int, mode);
    const std::string name = suite.toStdString();
    Options o;
    o.ciphersuites = name.c_str();
    Lab lab(o);
    QVERIFY(lab.handshake());
    converse(lab);
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking(mode), 7);
    check_session(lab, d, "TLSv1.3", name.c_str());
  }

  void tls13KeyUpdate_data() {
    QTest::addColumn<QString>("suite");
    QTest::addColumn<int>("mode");
    add_chunking_rows("aes256", "TLS_AES_256_GCM_SHA384");
    add_chunking_rows("chacha", "TLS_CHACHA20_POLY1305_SHA256");
  }
  void tls13KeyUpdate() {
    QFETCH(QString, suite);
    QFETCH(int, mode);
    const std::string name = suite.toStdString();
    Options o;
    o.ciphersuites = name.c_str();
    Lab lab(o);
    QVERIFY(lab.handshake());
    lab.send(C2S, text("before"));
    lab.key_update(C2S);  // the server answers with its own KeyUpdate before its next write
    lab.send(C2S, random_payload(20000, 3));
    lab.send(S2C, random_payload(30000, 4));
    lab.key_update(S2C);
    lab.send(S2C, text("after server update"));
    lab.send(C2S, text("after both"));
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking(mode), 11);
    check_session(lab, d, "TLSv1.3", name.c_str());
  }

  void tls12Suites_data() {
    QTest::addColumn<QString>("suite");
    QTest::addColumn<int>("mode");
    add_chunking_rows("aes256", "ECDHE-ECDSA-AES256-GCM-SHA384");
    add_chunking_rows("aes128", "ECDHE-ECDSA-AES128-GCM-SHA256");
    add_chunking_rows("chacha", "ECDHE-ECDSA-CHACHA20-POLY1305");
  }
  void tls12Suites() {
    QFETCH(QString, suite);
    QFETCH(int, mode);
    const std::string name = suite.toStdString();
    Lab lab(tls12(name.c_str()));
    QVERIFY(lab.handshake());
    converse(lab);
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking(mode), 13);
    const char* iana = name == "ECDHE-ECDSA-AES256-GCM-SHA384"
                           ? "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
                       : name == "ECDHE-ECDSA-AES128-GCM-SHA256"
                           ? "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
                           : "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";
    check_session(lab, d, "TLSv1.2", iana);
  }

  // A real TLS 1.2 session (openssl s_server and s_client over lo, AEAD suites, the client's key
  // log) captured by tcpdump: our decoder and tshark read the same application bytes out of it,
  // and they are the bytes the two programs exchanged.
  void tls12CaptureDecryptsAsTsharkDoes_data() {
    QTest::addColumn<QString>("cipher");
    QTest::addColumn<QString>("suite");
    QTest::newRow("aes-128-gcm") << "ECDHE-ECDSA-AES128-GCM-SHA256" << "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    QTest::newRow("aes-256-gcm") << "ECDHE-ECDSA-AES256-GCM-SHA384" << "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
    QTest::newRow("chacha20") << "ECDHE-ECDSA-CHACHA20-POLY1305" << "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";
  }
  void tls12CaptureDecryptsAsTsharkDoes() {
    QFETCH(QString, cipher);
    QFETCH(QString, suite);
    QTemporaryDir dir;
    const QString key = dir.filePath("key.pem"), cert = dir.filePath("cert.pem"), keylog = dir.filePath("client.keylog");
    QProcess req;
    req.start("openssl", {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                          key, "-out", cert, "-subj", "/CN=localhost", "-days", "2"});
    QVERIFY2(req.waitForFinished(30000) && req.exitCode() == 0, req.readAllStandardError().constData());
    // Not -quiet: the server says "ACCEPT 127.0.0.1:PORT" once it listens. Its stdin is read as
    // commands only when a read starts with a letter, so both sides send digits and spaces only.
    QProcess server, client;
    server.start("openssl", {"s_server", "-accept", "127.0.0.1:0", "-cert", cert, "-key", key, "-tls1_2", "-cipher",
                             cipher, "-naccept", "1"});
    const auto listening = wait_for_output(server, QRegularExpression("ACCEPT 127\\.0\\.0\\.1:(\\d+)\n"));
    QVERIFY2(listening.hasMatch(), "openssl s_server did not listen");
    const QString port = listening.captured(1);
    const std::string pcap = dir.filePath("tls12.pcap").toStdString();
    QProcess tcpdump;
    if (QString why = start_tcpdump(tcpdump, pcap, port); !why.isEmpty()) QFAIL(qPrintable(why));
    client.start("openssl", {"s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-cipher", cipher, "-keylogfile",
                             keylog, "-quiet"});
    const QByteArray to_server = digits(7, 40000), to_client = digits(11, 60000);
    QVERIFY(send(client, to_server));
    QVERIFY2(wait_for_output(server, ends_with(to_server)).hasMatch(), "the server did not receive the client's bytes");
    QVERIFY(send(server, to_client));
    QVERIFY2(wait_for_output(client, ends_with(to_client)).hasMatch(), "the client did not receive the server's bytes");
    client.kill();
    server.kill();
    client.waitForFinished(5000);
    server.waitForFinished(5000);
    QVERIFY(stop_tcpdump(tcpdump, pcap));

    std::vector<CaptureConnection> conns;
    auto ours = decoded_plaintext(pcap, keylog.toStdString(), &conns);
    QCOMPARE(conns.size(), std::size_t{1});
    QCOMPARE(conns[0].transport, CaptureTransport::Tls);
    QCOMPARE(conns[0].tls_suite, suite.toStdString());
    QVERIFY2(ours[Direction::ClientToServer] == to_server.toStdString(), "client bytes are not what the client sent");
    QVERIFY2(ours[Direction::ServerToClient] == to_client.toStdString(), "server bytes are not what the server sent");

    auto theirs = tshark_plaintext(pcap, keylog.toStdString());
    QCOMPARE(theirs.size(), std::size_t{2});
    const std::string differs = tshark_differs(theirs, ours, port.toStdString());
    QVERIFY2(differs.empty(), differs.c_str());
  }

  // The client's key share is for a group the server refuses: HelloRetryRequest, then a second
  // ClientHello with the same random.
  void helloRetryRequest() {
    Options o;
    o.client_groups = "P-256:X25519";
    o.server_groups = "X25519";
    Lab lab(o);
    QVERIFY(lab.handshake());
    converse(lab);
    int hellos = 0;  // plaintext handshake records starting with a ClientHello
    for (const auto& p : lab.pieces)
      for (std::size_t at = 0; p.dir == C2S && at + 5 < p.bytes.size();
           at += 5 + load_u16(p.bytes.data() + at + 3))
        hellos += p.bytes[at] == 22 && p.bytes[at + 5] == 1;
    QCOMPARE(hellos, 2);
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking::Random, 5);
    check_session(lab, d, "TLSv1.3", "TLS_AES_256_GCM_SHA384");
  }

  void wrongSecret() {
    Lab lab({});
    QVERIFY(lab.handshake());
    converse(lab);
    auto d = decode(lab.pieces, lookup_from(corrupt(lab.keylog, "SERVER_TRAFFIC_SECRET_0")),
                    Chunking::Random);
    QVERIFY2(d.status.rfind("tag mismatch (server_to_client record ", 0) == 0, d.status.c_str());
    QVERIFY(d.c2s == lab.sent_c2s);  // the other direction is unaffected
    QVERIFY(d.s2c.empty());

    Lab lab12(tls12("ECDHE-ECDSA-AES256-GCM-SHA384"));
    QVERIFY(lab12.handshake());
    converse(lab12);
    d = decode(lab12.pieces, lookup_from(corrupt(lab12.keylog, "CLIENT_RANDOM")), Chunking::Whole);
    QVERIFY2(d.status.rfind("tag mismatch (", 0) == 0, d.status.c_str());
    QVERIFY(d.c2s.empty() && d.s2c.empty());
  }

  void missingSecret() {
    auto none = [](std::string_view, ByteView) -> std::optional<Bytes> { return std::nullopt; };
    for (const Options& o : {Options{}, tls12("ECDHE-ECDSA-CHACHA20-POLY1305")}) {
      Lab lab(o);
      QVERIFY(lab.handshake());
      converse(lab);
      auto d = decode(lab.pieces, none, Chunking::Whole);
      QCOMPARE(d.status, std::string("no secret for this client_random"));
      QVERIFY(d.c2s.empty() && d.s2c.empty());
      QCOMPARE(d.info.alpn_offered.size(), std::size_t{2});
    }
  }

  void captureAfterClientHello() {
    Lab lab({});
    QVERIFY(lab.handshake());
    converse(lab);
    QCOMPARE(lab.pieces.front().dir, C2S);
    std::vector<Piece> later(lab.pieces.begin() + 1, lab.pieces.end());
    auto d = decode(later, lookup_from(lab.keylog), Chunking::Random);
    QCOMPARE(d.status, std::string("no ClientHello seen"));
    QVERIFY(d.c2s.empty() && d.s2c.empty());
  }

  void notTls() {
    std::vector<Piece> http{{C2S, text("GET / HTTP/1.1\r\nHost: example\r\n\r\n")},
                            {S2C, text("HTTP/1.1 200 OK\r\n\r\n")}};
    auto d = decode(http, {}, Chunking::Bytewise);
    QCOMPARE(d.status, std::string("not TLS"));
    // A handshake header announcing more than a record may hold: refused, not buffered.
    const Bytes oversized{22, 3, 3, 0x48, 0x01, 1, 0, 0, 0};
    QCOMPARE(decode({{C2S, oversized}}, {}, Chunking::Whole).status, std::string("not TLS"));
  }

  void unsupportedSuite() {
    Lab lab(tls12("ECDHE-ECDSA-AES128-SHA256"));
    QVERIFY(lab.handshake());
    converse(lab);
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking::Whole);
    QCOMPARE(d.status, std::string("unsupported suite TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"));
    QCOMPARE(d.info.version, std::string("TLSv1.2"));
  }

  // Spec §6 handshake ends at "TLS Finished": the handshake's last, at the time of its record.
  // TLS 1.3: the client's (its second flight); TLS 1.2: the server's (after the client's).
  void finishedIsTheHandshakesLast() {
    auto none = [](std::string_view, ByteView) -> std::optional<Bytes> { return std::nullopt; };
    for (const Options& o : {Options{}, tls12("ECDHE-ECDSA-AES256-GCM-SHA384")}) {
      Lab lab(o);
      QVERIFY(lab.handshake());
      converse(lab);
      Direction last = o.max_version == TLS1_3_VERSION ? C2S : S2C;
      std::size_t nth = 0, at = 0;
      for (std::size_t i = 0; i < lab.pieces.size() && nth < 2; ++i)
        if (lab.pieces[i].dir == last && ++nth == 2) at = i;
      QCOMPARE(nth, std::size_t{2});
      auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking::Whole);  // piece i arrives at i + 1
      QVERIFY(d.info.finished_ts);
      QCOMPARE(*d.info.finished_ts, double(at + 1));
      QVERIFY(!decode(lab.pieces, none, Chunking::Whole).info.finished_ts);  // encrypted: not seen without secrets
    }
  }

  // `analyze`'s handshake_ms of a generated TLS capture, one segment a piece, 1 ms apart: from
  // the ClientHello to the later of the client's Finished and, when the negotiation is in-band,
  // the preface answer. Not from the SYN, not to EncryptedExtensions.
  void handshakeOfAGeneratedCapture_data() {
    QTest::addColumn<bool>("extension");
    QTest::newRow("negotiation in the extension: ends at Finished") << true;
    QTest::newRow("in-band preface: ends at its answer") << false;
  }
  void handshakeOfAGeneratedCapture() {
    QFETCH(bool, extension);
    Options o;
    o.anthro_extension = extension;
    Lab lab(o);
    QVERIFY(lab.handshake());
    const auto& conv = vectors()["conversation"];
    Bytes offer = hex(conv["client_to_server"]), answer = hex(conv["server_to_client"]);
    if (!extension) {
      lab.send(C2S, Bytes(offer.begin(), offer.begin() + kPrefaceSize));
      lab.send(S2C, Bytes(answer.begin(), answer.begin() + kPrefaceSize));
    }
    std::vector<std::pair<bool, std::string>> pieces;
    std::size_t client_pieces = 0, client_finished = 0;
    for (const auto& p : lab.pieces) {
      if (p.dir == C2S && ++client_pieces == 2) client_finished = pieces.size();  // CCS + Finished
      pieces.emplace_back(p.dir == C2S, std::string(as_text(p.bytes)));
    }
    QTemporaryDir dir;
    std::string pcap = dir.filePath("tls.pcap").toStdString(), keylog = dir.filePath("tls.keylog").toStdString();
    write_capture(pcap, exchange(pieces));  // segment k (0-based) at k + 1 ms: SYN, SYN/ACK, ACK, then the pieces
    QVERIFY(write_file_atomic(keylog, lab.keylog).ok());
    auto a = analyze_capture(pcap, {{keylog}, {}});
    QVERIFY(a.ok() && a->connections.size() == 1);
    const CaptureConnection& c = a->connections[0].info;
    QCOMPARE(c.alpn, std::string("anthro-v1"));
    double client_hello_ms = 4, end_ms = double(extension ? client_finished + 4 : pieces.size() + 3);
    QVERIFY(handshake_ms(c));
    // Packet times are doubles of seconds since 1970: good to a microsecond.
    QVERIFY2(std::abs(*handshake_ms(c) - (end_ms - client_hello_ms)) < 1e-3, std::to_string(*handshake_ms(c)).c_str());
    double in_json = nlohmann::json::parse(analysis_json(*a))["connections"][0]["handshake_ms"].get<double>();
    QVERIFY(std::abs(in_json - (end_ms - client_hello_ms)) < 1e-3);
    QVERIFY(!handshake_ms(analyze_capture(pcap, {})->connections.at(0).info));  // no secrets: no Finished seen
  }

  void nothingYet() {
    Lab lab({});
    QVERIFY(lab.handshake());
    auto d = decode(lab.pieces, lookup_from(lab.keylog), Chunking::Whole);
    QCOMPARE(d.status, std::string("no application data"));
    QCOMPARE(d.handshakes, 1);
    QCOMPARE(decode({}, {}, Chunking::Whole).status, std::string("no ClientHello seen"));
  }

 private:
  // `n` bytes of lines of decimal digits, from `seed`: text no openssl command starts with.
  static QByteArray digits(unsigned seed, int n) {
    std::mt19937 rng(seed);
    QByteArray out;
    while (out.size() < n) out += QByteArray::number(rng()) + (out.size() % 7 ? " " : "\n");
    out.truncate(n - 1);
    return out + "\n";
  }

  // Writes `bytes` to `p`'s stdin, all of them (no event loop runs to flush it otherwise).
  static bool send(QProcess& p, const QByteArray& bytes) {
    if (!p.waitForStarted(10000)) return false;
    p.write(bytes);
    while (p.bytesToWrite() > 0)
      if (!p.waitForBytesWritten(10000)) return false;
    return true;
  }

  static QRegularExpression ends_with(const QByteArray& bytes) {
    return QRegularExpression(QRegularExpression::escape(QString::fromLatin1(bytes.right(64))));
  }

  // Reads `p`'s stdout until `what` matches it (no match after 20 s).
  static QRegularExpressionMatch wait_for_output(QProcess& p, const QRegularExpression& what) {
    QString seen;
    QDeadlineTimer deadline(20000);
    for (;;) {
      seen += QString::fromLatin1(p.readAllStandardOutput());
      QRegularExpressionMatch m = what.match(seen);
      if (m.hasMatch() || deadline.hasExpired()) {
        if (!m.hasMatch()) qWarning("waited for %s; got %s", qPrintable(what.pattern()), qPrintable(seen.right(200)));
        return m;
      }
      p.waitForReadyRead(200);
    }
  }
};

QTEST_GUILESS_MAIN(TestTlsDecoder)
#include "test_tls_decoder.moc"
