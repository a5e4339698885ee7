// Captures as anthro-v1 and HTTP traffic: the vector pcap with either kind of key, keys embedded
// in a pcapng, and live sessions captured by tcpdump agreeing with the sessions' own timing and
// with tshark. (TLS 1.2 sessions of openssl against tshark: test_tls_decoder.)
#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <filesystem>
#include <tuple>

#include <unistd.h>
#include <random>

#include <nlohmann/json.hpp>

#include "capture/analysis.h"
#include "capture/capture_file.h"
#include "capture/packet.h"
#include "capture_cut.h"
#include "capture_generator.h"
#include "cli_run.h"
#include "crypto/keylog.h"
#include "diagnosis/diagnosis.h"
#include "endpoint_fixture.h"
#include "lo_capture.h"
#include "scale_suite.h"
#include "tcpdump_capture.h"
#include "test_paths.h"
#include "timing.h"
#include "tls_plaintext.h"
#include "util/files.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

const RequestResult& only_stream(const CaptureAnalysis& a) {
  if (a.connections.size() != 1 || a.connections[0].streams.size() != 1) qFatal("expected one connection, one stream");
  return a.connections[0].streams[0];
}

void check_vector_figures(const CaptureAnalysis& a) {
  const auto& expected = vectors()["conversation"]["expected"];
  QCOMPARE(a.connections.size(), std::size_t{1});
  QCOMPARE(a.connections[0].info.frames, std::uint64_t{6});
  QCOMPARE(a.connections[0].info.frames_opened, std::uint64_t{6});
  QCOMPARE(decryption_text(a.connections[0].info), std::string("ok"));
  QCOMPARE(a.connections[0].info.name, std::string("127.0.0.1:40000-127.0.0.1:7080"));
  const RequestResult& s = only_stream(a);
  QCOMPARE(s.text, expected["text"].get<std::string>());
  QVERIFY(std::abs(*s.figures.ttft_ms - expected["ttft_ms"].get<double>()) < 1e-3);
  QVERIFY(std::abs(*s.figures.e2e_ms - expected["e2e_ms"].get<double>()) < 1e-3);
  QVERIFY(std::abs(*s.figures.mean_itl_ms - expected["mean_itl_ms"].get<double>()) < 1e-3);
  QVERIFY(std::abs(*s.figures.tokens_per_s - 50.0) < 1e-3);
  QCOMPARE(s.figures.tokens, std::uint64_t{4});
  // Spec §6 handshake, lab: first preface byte (tshark: frame 4 at 1.000 ms) to the preface
  // answer (frame 5 at 2.000 ms).
  auto handshake = handshake_ms(a.connections[0].info);
  QVERIFY(handshake && std::abs(*handshake - 1.0) < 1e-3);
}

// A live session's handshake against its own capture's, spec §6 both: the live stamps are taken
// in user space and the packet times by the kernel, so the bound is generous; a handshake timed
// from the SYN or to another message would still be within it on loopback, which the generated
// captures of test_tls_decoder pin down exactly.
bool handshakes_agree(const CaptureConnection& captured, const SessionResult& live) {
  auto from_capture = handshake_ms(captured);
  if (!from_capture || !live.handshake_ms) return false;
  double delta = std::abs(*from_capture - *live.handshake_ms);
  if (delta < timing_bound(5.0, 25.0)) return true;
  qWarning("handshake: capture %.3f ms, live %.3f ms", *from_capture, *live.handshake_ms);
  return false;
}

}  // namespace

// The live capture tests' configured token gap: exact (no jitter), so a TTFT taken from the
// wrong frame is off by at least this much.
constexpr double kItlMs = 8;

// The capture's TTFTs against the session's own, request by request (median). On a quiet
// machine packet times and socket-read stamps agree within 1 ms (spec §6; the median is printed),
// but a busy one (ctest -j2 beside a build) delays the client's reads by a few ms: the bound is
// half a token gap, far above that noise and far below the whole gap a wrong frame would cost.
// Under the sanitizers, which run several times slower: one gap.
static bool ttfts_agree(const std::vector<RequestResult>& captured, const std::vector<RequestResult>& live) {
  const double bound = timing_bound(kItlMs / 2, kItlMs);
  std::vector<double> deltas;
  for (std::size_t i = 0; i < captured.size() && i < live.size(); ++i)
    deltas.push_back(std::abs(*captured[i].figures.ttft_ms - *live[i].figures.ttft_ms));
  double median = percentile(deltas, 50);
  qInfo("median TTFT difference capture - live %.3f ms over %zu requests (bound %.1f ms)", median, deltas.size(), bound);
  return median < bound;
}

// One lab connection with the vector's negotiation and keys: per stream a REQUEST, its tokens
// and a RESPONSE, every frame in its own segment 1 ms after the last.
static std::vector<Segment> lab_streams(const std::vector<std::vector<std::string>>& streams) {
  const auto& conv = vectors()["conversation"];
  Bytes up = hex(conv["client_to_server"]), down = hex(conv["server_to_client"]);
  up.resize(kPrefaceSize);
  down.resize(kPrefaceSize);
  KeyLog log = parse_keylog(anthro::test::read_file(vectors_path("lab-conversation.keylog")), "keylog");
  const AnthroKeyLine& line = log.anthro.at(0);
  Aead c2s(Suite::Aes256Gcm, line.keys.c2s), s2c(Suite::Aes256Gcm, line.keys.s2c);
  NonceSequence c2s_nonces, s2c_nonces;
  std::vector<std::pair<bool, std::string>> pieces{{true, std::string(as_text(up))}, {false, std::string(as_text(down))}};
  auto frame = [&](bool client, FrameType type, const Bytes& body) {
    Bytes out;
    seal_frame(client ? c2s : s2c, type, 1, line.token, (client ? c2s_nonces : s2c_nonces).next(), body, out);
    pieces.emplace_back(client, std::string(as_text(out)));
  };
  for (std::size_t k = 0; k < streams.size(); ++k) {
    auto id = static_cast<std::uint32_t>(2 * k + 1);
    RequestSpec request;
    request.model = "m";
    request.messages = {{"user", "hi"}};
    frame(true, FrameType::Request, encode_request(id, request));
    for (std::size_t t = 0; t < streams[k].size(); ++t)
      frame(false, FrameType::StreamToken, encode_token(id, static_cast<std::uint32_t>(t), 1, as_bytes(streams[k][t])));
    ResponseSpec response;
    response.output_tokens = streams[k].size();
    frame(false, FrameType::Response, encode_response(id, response));
  }
  return exchange(pieces);
}

// What analyze finds in a capture: the latency checklist over its own analysis.
static std::vector<std::pair<std::string, Verdict>> findings_of(const CaptureAnalysis& a) {
  std::vector<std::pair<std::string, Verdict>> out;
  for (const auto& item : diagnose_analysis(a, builtin_latency_checklist()).items)
    if (item.verdict == Verdict::Warn || item.verdict == Verdict::Fail) out.emplace_back(item.id, item.verdict);
  return out;
}

class TestCaptureAnalysis : public QObject {
  Q_OBJECT
 private slots:
  void vectorPcapWithKeylog() {
    std::vector<std::string> lines;
    auto a = analyze_capture(vectors_path("lab-conversation.pcap"), {{vectors_path("lab-conversation.keylog")}, {}},
                             [&](const std::string& line) { lines.push_back(line); });
    QVERIFY2(a.ok(), a.ok() ? "" : a.error().detail.c_str());
    check_vector_figures(*a);
    QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(analysis_json(*a))).object();
    QJsonObject stream = doc["connections"].toArray()[0].toObject()["streams"].toArray()[0].toObject();
    QVERIFY(std::abs(stream["ttft_ms"].toDouble() - 180) < 1e-3);
    QCOMPARE(stream["text"].toString(), QString("Hello, world!"));
    QCOMPARE(doc["summary"].toObject()["requests"].toInt(), 1);
    QCOMPARE(doc["connections"].toArray()[0].toObject()["decryption"].toString(), QString("ok"));
    int frames = 0;
    for (const auto& l : lines) frames += QJsonDocument::fromJson(QByteArray::fromStdString(l)).object()["kind"] == "frame";
    QCOMPARE(frames, 6);
  }

  // analyze's findings: the known fault's item, and nothing on clean traffic. The JSON carries
  // the findings and every checklist item; the text a findings section.
  void analyzeHasFindings() {
    const std::vector<std::string> clean{"Hello", ", ", "world", "!", " More", " tokens", " here", "."};
    std::vector<std::string> bad = clean;
    bad[2] = "\xed\xa0\xbd\xed\xb8\x80";  // a CESU-8 surrogate pair: invalid UTF-8 (utf8-surrogate)
    QTemporaryDir dir;
    std::string clean_pcap = dir.filePath("clean.pcap").toStdString(), bad_pcap = dir.filePath("bad.pcap").toStdString();
    write_capture(clean_pcap, lab_streams({clean, clean, clean}));
    write_capture(bad_pcap, lab_streams({clean, bad, clean}));
    CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};

    // The vector conversation is clean: one whole stream, no finding; what one stream can
    // show passes (server-stall, connection-reset, utf8-mismatch, ...).
    auto vector = analyze_capture(vectors_path("lab-conversation.pcap"), keys);
    QVERIFY(vector.ok());
    QVERIFY(findings_of(*vector).empty());
    QCOMPARE(diagnose_analysis(*vector, builtin_latency_checklist()).item("server-stall")->verdict, Verdict::Pass);

    auto a = analyze_capture(clean_pcap, keys);
    QVERIFY(a.ok() && a->connections.size() == 1 && a->connections[0].streams.size() == 3);
    QVERIFY(findings_of(*a).empty());
    const Checklist& checklist = builtin_latency_checklist();
    std::string text = analyze_text(*a, diagnose_analysis(*a, checklist), checklist);
    QVERIFY2(text.find("findings (latency): none\n") != std::string::npos, text.c_str());

    a = analyze_capture(bad_pcap, keys);
    QVERIFY(a.ok());
    auto found = findings_of(*a);
    QCOMPARE(found.size(), std::size_t{1});
    QCOMPARE(found[0].first, std::string("utf8-mismatch"));
    QCOMPARE(found[0].second, Verdict::Fail);
    Diagnosis d = diagnose_analysis(*a, checklist);
    std::ostringstream out;
    write_analyze_json(*a, checklist, out);
    QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str())).object();
    QJsonArray findings = doc["findings"].toArray();
    QCOMPARE(findings.size(), 1);
    QCOMPARE(findings[0].toObject()["id"].toString(), QString("utf8-mismatch"));
    QCOMPARE(findings[0].toObject()["verdict"].toString(), QString("fail"));
    QCOMPARE(findings[0].toObject()["conn"].toString(), QString::fromStdString(a->connections[0].info.name));
    QVERIFY(!findings[0].toObject()["evidence"].toString().isEmpty());
    QCOMPARE(doc["checklist"].toArray().size(), qsizetype(checklist.items.size()));
    text = analyze_text(*a, d, checklist);
    QVERIFY2(text.find("  fail utf8-mismatch: ") != std::string::npos && text.find("remedy: ") != std::string::npos, text.c_str());
  }

  void vectorPcapWithServerKey() {
    auto a = analyze_capture(vectors_path("lab-conversation.pcap"), {{}, {vectors_path("server-static.pem")}});
    QVERIFY(a.ok());
    check_vector_figures(*a);
  }

  void withoutKeysFramesAreNotOpened() {
    auto a = analyze_capture(vectors_path("lab-conversation.pcap"), {});
    QVERIFY(a.ok());
    QCOMPARE(decryption_text(a->connections.at(0).info), std::string("no key"));
    QCOMPARE(a->connections[0].info.frames, std::uint64_t{6});
    QCOMPARE(a->connections[0].info.frames_opened, std::uint64_t{0});
  }

  void keysEmbeddedInPcapngAreUsed() {
    auto reader = CaptureReader::open(vectors_path("lab-conversation.pcap"));
    QVERIFY(reader.ok());
    QTemporaryDir dir;
    std::string path = dir.filePath("with-keys.pcapng").toStdString();
    auto writer = PcapngWriter::create(path);
    QVERIFY(writer.ok());
    std::uint32_t iface = (*writer)->add_interface(kLinkEthernet, 65535);
    (*writer)->add_secrets(anthro::test::read_file(vectors_path("lab-conversation.keylog")));
    while (auto p = (*reader)->next()) (*writer)->write_packet_ns(iface, p->ts_ns, p->data, p->original_length);
    QVERIFY((*writer)->close().ok());
    auto a = analyze_capture(path, {});
    QVERIFY(a.ok());
    check_vector_figures(*a);
  }

  void brokenCapturesNeverCrash() {
    std::string original = anthro::test::read_file(vectors_path("lab-conversation.pcap"));
    std::string keylog = vectors_path("lab-conversation.keylog");
    QTemporaryDir dir;
    std::string path = dir.filePath("broken.pcap").toStdString();
    std::mt19937 rng(11);
    int refused = 0, decoded = 0;
    for (int i = 0; i < 1500; ++i) {
      std::string bytes = original;
      for (int k = 1 + rng() % 6; k > 0; --k) {
        std::size_t at = rng() % bytes.size();
        switch (rng() % 3) {
          case 0: bytes[at] = static_cast<char>(rng()); break;
          case 1: bytes.resize(at); break;
          default: bytes.insert(at, std::string(1 + rng() % 40, static_cast<char>(rng())));
        }
        if (bytes.empty()) break;
      }
      QVERIFY(write_file_atomic(path, bytes).ok());
      auto a = analyze_capture(path, {{keylog}, {}}, [](const std::string& line) {
        if (line.empty() || line.front() != '{') qFatal("a decode line that is not JSON");
      });
      a.ok() ? ++decoded : ++refused;
      if (!a.ok()) QVERIFY(a.error().detail.find(path) != std::string::npos);  // says which file
    }
    QVERIFY(decoded > 0 && refused > 0);
  }

  void badInputsNameTheFile() {
    auto missing = analyze_capture("/no/such.pcap", {});
    QVERIFY(!missing.ok() && missing.error().detail.find("/no/such.pcap") != std::string::npos);
    auto bad_key = analyze_capture(vectors_path("lab-conversation.pcap"), {{}, {vectors_path("lab-conversation.keylog")}});
    QVERIFY(!bad_key.ok() && bad_key.error().detail.find("lab-conversation.keylog") != std::string::npos);
  }

  // Past the process's thread limit (RLIMIT_NPROC, which binds an unprivileged user), analyze
  // runs on the threads it can start and writes the same document; with none to spare it says
  // so and how to ask for fewer. Run as "nobody" under prlimit (root is not bound by the limit).
  void aThreadLimitGivesFewerThreads() {
    if (::geteuid() != 0) QSKIP("needs root, to run anthro-wb as an unprivileged user under a thread limit");
    QTemporaryDir dir;  // the other user reads the files and writes its spill here
    QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                                  QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther));
    const QString pcap = dir.filePath("many.pcap"), keylog = dir.filePath("keys.log");
    write_capture(pcap.toStdString(), many_connections(6, 20, 40));
    QVERIFY(write_file_atomic(keylog.toStdString(), anthro::test::read_file(vectors_path("lab-conversation.keylog"))).ok());
    for (const QString& f : {pcap, keylog}) QVERIFY(QFile::setPermissions(f, QFileDevice::ReadOwner | QFileDevice::ReadOther));
    const QStringList analyze{ANTHRO_WB, "analyze", pcap, "--keylog", keylog, "--format", "json", "--threads"};
    auto as_nobody = [&](int tasks, const QString& threads) {
      QProcess p;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("TMPDIR", dir.path());
      // The leak check's tracer is a task too: under the limit it could not start (the other
      // suites check leaks).
      const QString asan = env.value("ASAN_OPTIONS");
      env.insert("ASAN_OPTIONS", (asan.isEmpty() ? "" : asan + ":") + "detect_leaks=0");
      p.setProcessEnvironment(env);
      p.start("setpriv", QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "prlimit",
                                     "--nproc=" + QString::number(tasks)} + analyze + QStringList{threads});
      p.waitForFinished(60000);
      return std::make_tuple(p.exitCode(), p.readAllStandardOutput(), QString::fromUtf8(p.readAllStandardError()));
    };
    auto [one_code, one, one_err] = as_nobody(64, "1");
    QVERIFY2(one_code == 0 && one.size() > 1000, qPrintable(one_err));
    for (int tasks : {2, 3}) {  // the process itself and one or two more
      auto [code, out, err] = as_nobody(tasks, "8");
      QVERIFY2(code == 0, qPrintable(err));
      QVERIFY(out == one);
    }
    auto [code, out, err] = as_nobody(1, "8");
    QCOMPARE(code, 2);
    QVERIFY(out.isEmpty());
    QVERIFY2(err.contains(pcap) && err.contains("cannot start a decoding thread") && err.contains("--threads"), qPrintable(err));
  }

  void liveTlsSessionDecryptsFromItsKeyLog() {
    EndpointFixture f({}, 60, kItlMs, 15);
    f.start();
    std::string pcap = f.path("tls.pcap");
    for (bool extension : {true, false}) {
      std::string url = f.endpoint().url("anthro");
      QString port = QString::fromStdString(url.substr(url.rfind(':') + 1));
      QProcess tcpdump;
      if (QString why = start_tcpdump(tcpdump, pcap, port); !why.isEmpty()) QFAIL(qPrintable(why));
      SessionConfig c = f.session("anthro");
      c.repeat = 5;
      c.tls_extension = extension;
      c.keylog_path = f.path(extension ? "ext.keylog" : "preface.keylog");
      SessionResult live = EndpointFixture::run(c);
      QVERIFY(!live.error);
      QVERIFY(stop_tcpdump(tcpdump, pcap));

      auto a = analyze_capture(pcap, {{c.keylog_path}, {}});
      QVERIFY(a.ok());
      QCOMPARE(a->connections.size(), std::size_t{1});
      const auto& conn = a->connections[0];
      QCOMPARE(decryption_text(conn.info), std::string("ok"));
      QCOMPARE(conn.info.alpn, std::string("anthro-v1"));
      QCOMPARE(conn.info.tls_suite, live.tls_suite);
      QCOMPARE(conn.streams.size(), std::size_t{5});
      for (std::size_t i = 0; i < 5; ++i) QCOMPARE(conn.streams[i].text, live.requests[i].text);
      QVERIFY(ttfts_agree(conn.streams, live.requests));
      QVERIFY(handshakes_agree(conn.info, live));
      auto ours = decoded_plaintext(pcap, c.keylog_path);
      auto theirs = tshark_plaintext(pcap, c.keylog_path);
      QVERIFY(ours[Direction::ServerToClient].size() > 1000);
      const std::string differs = tshark_differs(theirs, ours, port.toStdString());
      QVERIFY2(differs.empty(), differs.c_str());
      QVERIFY2(theirs.size() == 2, "tshark saw no client data");
      auto no_key = analyze_capture(pcap, {});
      QVERIFY(no_key.ok());
      QCOMPARE(decryption_text(no_key->connections.at(0).info), std::string("TLS: no secret for this client_random"));
    }
  }

  void captureCommandEmbedsTheSessionKeys() {
    EndpointFixture f({}, 40, 5, 12);
    f.start();
    std::string url = f.endpoint().url("anthro");
    std::string port = url.substr(url.rfind(':') + 1), out = f.path("cap.pcapng"), keylog = f.path("cap.keylog");
    QProcess capture;
    capture.setReadChannel(QProcess::StandardError);
    capture.start(ANTHRO_WB, {"capture", "--interface", "lo", "--filter", QString::fromStdString("tcp port " + port),
                              "--output", QString::fromStdString(out), "--keylog", QString::fromStdString(keylog)});
    QVERIFY(capture.waitForStarted(5000));
    QByteArray err;
    while (!err.contains("capturing on") && capture.waitForReadyRead(5000)) err += capture.readAllStandardError();
    if (!err.contains("capturing on")) {  // the capture helper makes permission no excuse
      capture.waitForFinished(5000);
      err += capture.readAllStandardError();
      QFAIL(err.constData());
    }
    SessionConfig c = f.session("anthro");
    c.keylog_path = keylog;
    SessionResult live = EndpointFixture::run(c);
    QVERIFY(!live.error);
    QTest::qWait(200);
    ::kill(static_cast<pid_t>(capture.processId()), SIGINT);
    QVERIFY(capture.waitForFinished(10000));
    QCOMPARE(capture.exitCode(), 0);
    QVERIFY(capture.readAllStandardOutput().contains("keys embedded"));
    auto a = analyze_capture(out, {});  // no key file: the keys are in the pcapng
    QVERIFY(a.ok());
    QCOMPARE(decryption_text(a->connections.at(0).info), std::string("ok"));
    QCOMPARE(a->connections[0].streams.at(0).text, live.requests.at(0).text);
  }

  // A capture that begins after a TLS connection's handshake (its first bytes application-data
  // records): "TLS, no handshake seen", never read as anthro-v1 cleartext, even with its keys.
  void aTlsConnectionWithoutItsHandshakeIsNotReadAsCleartext() {
    EndpointFixture f({}, 20, 2, 12);
    f.start();
    const std::string url = f.endpoint().url("anthro"), whole = f.path("whole.pcapng"), cut = f.path("cut.pcapng");
    LoCapture capture(url, whole, f.path("whole.keylog"));
    QVERIFY2(capture.start(), capture.error().c_str());
    SessionConfig c = f.session("anthro");
    c.repeat = 3;
    c.keylog_path = capture.config().keylog_path;
    QVERIFY(!EndpointFixture::run(c).error);
    QVERIFY2(capture.stop().ok(), capture.error().c_str());
    QVERIFY(cut_before_application_data(whole, cut));

    const QString data = QString::fromStdString(f.path(""));
    Run analyzed = run({"analyze", QString::fromStdString(cut), "--format", "json"}, data);
    QVERIFY2(analyzed.code == 0, analyzed.err.constData());
    const nlohmann::json doc = nlohmann::json::parse(analyzed.out.toStdString());
    QCOMPARE(doc["connections"].size(), std::size_t{1});
    const nlohmann::json& conn = doc["connections"][0];
    QCOMPARE(conn["transport"].get<std::string>(), std::string("tls"));
    QCOMPARE(conn["decryption"].get<std::string>(), std::string("TLS: no handshake seen"));
    QCOMPARE(conn["frames"].get<int>(), 0);
    QCOMPARE(conn["streams"].size(), std::size_t{0});

    Run decoded = run({"decode", QString::fromStdString(cut), "--format", "jsonl"}, data);
    QVERIFY2(decoded.code == 0, decoded.err.constData());
    QStringList kinds;
    for (const QByteArray& line : decoded.out.split('\n')) {
      if (line.isEmpty()) continue;
      const nlohmann::json j = nlohmann::json::parse(line.toStdString());
      kinds << QString::fromStdString(j["kind"].get<std::string>());
      if (j["kind"] == "tls") QCOMPARE(j["status"].get<std::string>(), std::string("no handshake seen"));
    }
    QCOMPARE(kinds, QStringList{"tls"});  // no frame, no refusal, no desync
  }

  // HTTP/SSE sessions (Messages API and chat completions; cleartext, and TLS opened with the key
  // log) captured on lo: each request a stream, timed like the live client times it.
  void liveHttpSessionsAreTimedFromTheirCapture_data() {
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("path");
    QTest::newRow("http messages") << "http" << "/v1/messages";
    QTest::newRow("http chat completions") << "http" << "/v1/chat/completions";
    QTest::newRow("https messages") << "https" << "/v1/messages";
    QTest::newRow("https chat completions") << "https" << "/v1/chat/completions";
  }
  void liveHttpSessionsAreTimedFromTheirCapture() {
    QFETCH(QString, scheme);
    QFETCH(QString, path);
    EndpointFixture f({}, 60, kItlMs, 15);
    f.start();
    std::string url = f.endpoint().url(scheme.toStdString());
    QString port = QString::fromStdString(url.substr(url.rfind(':') + 1));
    std::string pcap = f.path("http.pcap");
    QProcess tcpdump;
    if (QString why = start_tcpdump(tcpdump, pcap, port); !why.isEmpty()) QFAIL(qPrintable(why));
    SessionConfig c = f.session(scheme.toStdString(), path.toStdString());
    c.repeat = 4;  // one keep-alive connection
    c.keylog_path = f.path("http.keylog");
    c.api_key = "sk-capture-test-secret";
    SessionResult live = EndpointFixture::run(c);
    QVERIFY(!live.error);
    QCOMPARE(live.requests.size(), std::size_t{4});
    QVERIFY(stop_tcpdump(tcpdump, pcap));

    std::vector<std::string> lines;
    CaptureKeySources keys;
    if (scheme == "https") keys.keylog_files = {c.keylog_path};  // cleartext writes no key log
    auto a = analyze_capture(pcap, keys, [&](const std::string& line) { lines.push_back(line); });
    QVERIFY2(a.ok(), a.ok() ? "" : a.error().detail.c_str());
    QCOMPARE(a->connections.size(), std::size_t{1});
    const auto& conn = a->connections[0];
    QCOMPARE(decryption_text(conn.info), std::string("ok"));
    QCOMPARE(conn.info.transport, scheme == "http" ? CaptureTransport::Http : CaptureTransport::Tls);
    QCOMPARE(conn.info.http_requests, std::uint64_t{4});
    QVERIFY(conn.info.http_error.empty());
    QCOMPARE(conn.streams.size(), std::size_t{4});
    for (std::size_t i = 0; i < 4; ++i) {
      const RequestResult& s = conn.streams[i];
      QCOMPARE(s.stream_id, std::uint32_t(i + 1));
      QCOMPARE(s.end, RequestEnd::Response);
      QCOMPARE(s.text, live.requests[i].text);
      QCOMPARE(s.figures.tokens, live.requests[i].figures.tokens);
      QCOMPARE(s.stop_reason, live.requests[i].stop_reason);
      QVERIFY(s.figures.ttft_ms && s.figures.e2e_ms && s.figures.mean_itl_ms);
      QVERIFY(*s.figures.e2e_ms > *s.figures.ttft_ms);
      QVERIFY(s.packets && s.packets->first < s.packets->second);
    }
    QVERIFY(ttfts_agree(conn.streams, live.requests));
    // Every SSE event is a decode line; the API key appears nowhere.
    std::size_t requests = 0, events = 0;
    for (const auto& line : lines) {
      QVERIFY2(line.find("sk-capture-test-secret") == std::string::npos, line.c_str());
      auto j = nlohmann::json::parse(line);
      if (j["kind"] != "http") continue;
      if (j["message"] == "request") ++requests;
      if (j["message"] == "sse_event") ++events;
    }
    QCOMPARE(requests, std::size_t{4});
    QCOMPARE(events, std::size_t(conn.info.sse_events));
    QVERIFY(events >= 4 * 15);  // at least one per token
    std::string json = analysis_json(*a);
    QVERIFY(json.find("\"http_requests\":4") != std::string::npos);
  }

  void liveLabSessionAgreesWithItsCapture() {
    EndpointFixture f({}, 60, kItlMs, 15);
    f.start();
    std::string url = f.endpoint().url("anthro+lab");
    QString port = QString::fromStdString(url.substr(url.rfind(':') + 1));
    std::string pcap = f.path("live.pcap");
    QProcess tcpdump;
    if (QString why = start_tcpdump(tcpdump, pcap, port); !why.isEmpty()) QFAIL(qPrintable(why));

    SessionConfig c = f.session("anthro+lab");
    c.repeat = 3;
    c.keylog_path = f.path("live.keylog");
    SessionResult live = EndpointFixture::run(c);
    QVERIFY(!live.error);
    QVERIFY(stop_tcpdump(tcpdump, pcap));

    auto a = analyze_capture(pcap, {{c.keylog_path}, {}});
    QVERIFY2(a.ok(), a.ok() ? "" : a.error().detail.c_str());
    QCOMPARE(a->connections.size(), std::size_t{1});
    const auto& streams = a->connections[0].streams;
    QCOMPARE(streams.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) {
      QCOMPARE(streams[i].text, live.requests[i].text);
      QCOMPARE(streams[i].figures.tokens, std::uint64_t{15});
    }
    QVERIFY(ttfts_agree(streams, live.requests));
    QVERIFY(handshakes_agree(a->connections[0].info, live));
    QVERIFY(a->connections[0].info.syn_ts.has_value());
  }
};

// Captures of several read buffers analysed at several thread counts: the optimised pass only, as
// `scale` (under the sanitizers one compare of two such captures takes minutes).
class TestCaptureAnalysisThreads : public QObject {
  Q_OBJECT
 private slots:
  // cli.md: --threads N (1 included) does not change analyze's or diagnose's document, byte for
  // byte, nor compare's verdict on captures. The capture spans several of the reader's 2 MiB
  // buffers, which the threads read without a copy while the reader moves on.
  void threadsGiveTheSameDocuments() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("threads.pcap").toStdString();
    write_capture(path, many_connections(9, 60, 150));
    QVERIFY(std::filesystem::file_size(path) > (6u << 20));
    const QString pcap = QString::fromStdString(path),
                  keylog = QString::fromStdString(vectors_path("lab-conversation.keylog"));
    for (const QStringList& command : {QStringList{"analyze", pcap}, QStringList{"diagnose", "--quiet", pcap},
                                       QStringList{"compare", pcap, pcap}}) {
      const QStringList args = command + QStringList{"--keylog", keylog, "--format", "json"};
      constexpr int kTimeoutMs = 600000;
      Run one = run(args + QStringList{"--threads", "1"}, dir.path(), kTimeoutMs);
      QVERIFY2(one.code >= 0 && one.code != 2 && one.code != 3, one.err.constData());  // a verdict (diagnose, compare) may be 1 or 4
      if (command[0] == "analyze") {  // all of it decoded: 9 connections of 60 streams of 150 tokens
        const nlohmann::json doc = nlohmann::json::parse(one.out.toStdString());
        QCOMPARE(doc["connections"].size(), std::size_t{9});
        for (const auto& c : doc["connections"]) {
          QCOMPARE(c["streams"].size(), std::size_t{60});
          for (const auto& st : c["streams"]) QCOMPARE(st["tokens"].get<int>(), 150);
        }
      }
      for (const char* threads : {"2", "8"}) {
        Run many = run(args + QStringList{"--threads", threads}, dir.path(), kTimeoutMs);
        QVERIFY2(many.code == one.code, many.err.constData());
        QVERIFY2(many.out == one.out, qPrintable(command[0] + " --threads " + threads + " differs from --threads 1"));
      }
    }
  }
};

ANTHRO_TEST_GUILESS_MAIN_WITH_SCALE(TestCaptureAnalysis, TestCaptureAnalysisThreads)
#include "test_capture_analysis.moc"
