// TCP reassembly through real capture files: the vector conversation rewritten by a small
// generator with reordering, retransmissions, a lost segment, bad checksums and a zero
// window, then analysed as a user would.
#include <QFloat16>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "capture/analysis.h"
#include "capture_generator.h"
#include "util/spill.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

CaptureAnalysis analyse(const std::vector<Segment>& segments) {
  QTemporaryDir dir;
  std::string path = dir.filePath("tcp.pcap").toStdString();
  write_capture(path, segments);
  auto a = analyze_capture(path, {{vectors_path("lab-conversation.keylog")}, {}});
  if (!a) qFatal("%s", a.error().detail.c_str());
  return *a;
}

std::string text_of(const CaptureAnalysis& a) { return a.connections.at(0).streams.at(0).text; }

// While alive, this process may write no file past `bytes` (EFBIG, as a full disk refuses).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    handler_ = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit limit{bytes, saved_.rlim_max};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) qFatal("setrlimit(RLIMIT_FSIZE) failed");
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, handler_);
  }

 private:
  rlimit saved_{};
  void (*handler_)(int) = SIG_DFL;
};

// Pieces of every size class add() handles: small ones batched, one past a batch on its own.
std::vector<std::string> spill_pieces() {
  std::vector<std::string> pieces;
  std::mt19937 random(7);
  for (int i = 0; i < 400; ++i) {
    std::size_t size = i == 150 ? SpillFile::kBatch + 1000 : 1 + random() % 3000;
    std::string piece(size, '\0');
    for (char& c : piece) c = static_cast<char>('a' + random() % 26);
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

}  // namespace

class TestCaptureTcp : public QObject {
  Q_OBJECT
 private slots:
  void inOrder() {
    CaptureAnalysis a = analyse(conversation(100));
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.tcp.retransmissions, std::uint64_t{0});
  }

  void reorderedSegmentsGiveTheSameText() {
    std::mt19937 rng(5);
    for (int round = 0; round < 20; ++round) {
      auto segments = conversation(37);
      std::shuffle(segments.begin() + kHandshake, segments.end(), rng);
      CaptureAnalysis a = analyse(segments);
      QCOMPARE(text_of(a), std::string("Hello, world!"));
      QVERIFY(a.connections[0].info.tcp.out_of_order > 0);
    }
  }

  void retransmissionsAreCountedAndDeliveredOnce() {
    auto segments = conversation(60);
    auto copy = segments;
    for (std::size_t i = 0; i < copy.size(); i += 3) segments.push_back(copy[i]);  // late duplicates
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.frames, std::uint64_t{6});
    QVERIFY(a.connections[0].info.tcp.retransmissions >= copy.size() / 3);
  }

  void badChecksumsAreFlaggedNotDropped() {
    auto segments = conversation(80);
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < segments.size(); i += 4, ++bad) segments[i].bad_checksum = true;
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.tcp.bad_checksums, bad);
    for (const auto& w : a.warnings) QVERIFY2(w.find("checksum") == std::string::npos, w.c_str());
  }

  // Loopback and checksum offload: every checksum of a sender wrong is one warning, not a flag
  // on each packet.
  void checksumOffloadIsOneWarning() {
    auto segments = conversation(80);
    for (auto& s : segments) s.bad_checksum = true;
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.tcp.bad_checksums, std::uint64_t{0});
    std::vector<std::string> notes;
    for (const auto& w : a.warnings)
      if (w.find("checksum") != std::string::npos) notes.push_back(w);
    QCOMPARE(notes.size(), std::size_t{1});
    QVERIFY2(notes[0].rfind("checksums not verified for packets from 127.0.0.1: " + std::to_string(segments.size()) + " of " +
                                std::to_string(segments.size()), 0) == 0,
             notes[0].c_str());
    QVERIFY(notes[0].find("offload") != std::string::npos);
  }

  void aLostSegmentIsAGap() {
    auto segments = conversation(50);
    std::size_t lost = segments.size() - 3;  // inside the server's frames
    std::size_t lost_bytes = segments[lost].payload.size();
    segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(lost));
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(a.connections[0].info.tcp.gaps, std::uint64_t{1});
    QCOMPARE(a.connections[0].info.tcp.gap_bytes, std::uint64_t{lost_bytes});
    QVERIFY(a.connections[0].info.frames_opened < 6);  // the frame with the hole cannot be opened
  }

  void zeroWindowHasADuration() {
    auto segments = conversation(100);
    Segment stall{true, 0, {}, 0x10, 0};  // the client's ACK: window 0
    stall.seq = static_cast<std::uint32_t>(hex(vectors()["conversation"]["client_to_server"]).size());
    Segment open = stall;
    open.window = 65535;
    segments.insert(segments.end() - 2, stall);
    segments.insert(segments.end() - 1, open);
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(a.connections[0].info.tcp.zero_window_events, std::uint64_t{1});
    QVERIFY(a.connections[0].info.tcp.zero_window_ms > 0);
  }

  void sequenceNumbersWrapAround() {
    auto segments = conversation(40);
    for (auto& segment : segments) {
      segment.client_isn = 0xFFFFFF80;  // the client's bytes cross 2^32 after 127
      segment.server_isn = 0xFFFFFFF0;  // the server's after 15
    }
    std::shuffle(segments.begin() + kHandshake, segments.end(), std::mt19937(3));
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.tcp.gaps, std::uint64_t{0});
  }

  void aCaptureThatStartsMidStream() {
    auto segments = conversation(100);
    segments.erase(segments.begin(), segments.begin() + kHandshake);  // no handshake
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));

    // It starts after both prefaces: the frames are found and opened with the key log alone.
    std::vector<Segment> late;
    const auto& conv = vectors()["conversation"];
    for (bool client : {true, false}) {
      Bytes bytes = hex(conv[client ? "client_to_server" : "server_to_client"]);
      late.push_back({client, static_cast<std::uint32_t>(kPrefaceSize),
                      Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(kPrefaceSize), bytes.end())});
    }
    CaptureAnalysis b = analyse(late);
    QCOMPARE(b.connections[0].info.frames_opened, std::uint64_t{6});
    QCOMPARE(text_of(b), std::string("Hello, world!"));
    QVERIFY(!b.connections[0].info.offer);
  }

  void keepAlivesAreCountedNotDelivered() {
    auto segments = conversation(100);
    std::size_t c2s = hex(vectors()["conversation"]["client_to_server"]).size();
    Segment probe{true, static_cast<std::uint32_t>(c2s - 1), {0x00}, 0x10};  // one old byte
    Segment empty{true, static_cast<std::uint32_t>(c2s - 1), {}, 0x10};
    segments.insert(segments.end() - 1, probe);
    segments.insert(segments.end() - 1, empty);
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(a.connections[0].info.tcp.keepalives, std::uint64_t{2});
    QCOMPARE(a.connections[0].info.tcp.retransmissions, std::uint64_t{0});
    QCOMPARE(text_of(a), std::string("Hello, world!"));
  }

  void duplicateAcksAreCounted() {
    auto segments = conversation(100);
    std::size_t c2s = hex(vectors()["conversation"]["client_to_server"]).size();
    Segment ack{true, static_cast<std::uint32_t>(c2s), {}, 0x10};  // acknowledges none of the server's bytes
    // After the server's first data segment, the client repeats the same ACK three times.
    auto first_server_data = std::find_if(segments.begin() + kHandshake, segments.end(),
                                          [](const Segment& s) { return !s.from_client; });
    segments.insert(first_server_data + 1, {ack, ack, ack});
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(a.connections[0].info.tcp.duplicate_acks, std::uint64_t{3});
    QCOMPARE(text_of(a), std::string("Hello, world!"));
  }

  void aFullWindowIsCounted() {
    auto segments = conversation(100);
    for (auto& s : segments)
      if (s.from_client) s.window = 100;  // the client can take 100 unacknowledged bytes
    CaptureAnalysis a = analyse(segments);
    // The server's first 100-byte segment fills it; nothing is acknowledged, so every later one does too.
    std::uint64_t server_segments = 0;
    for (std::size_t i = kHandshake; i < segments.size(); ++i) server_segments += !segments[i].from_client;
    QCOMPARE(a.connections[0].info.tcp.window_full_events, server_segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
  }

  void snaplenCutsAreGapsWithTheirSize() {
    auto segments = conversation(100);
    Segment& cut = segments.back();  // the end of the server's RESPONSE frame
    const std::size_t lost = cut.payload.size() - 10;
    cut.captured = 10;
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(a.connections[0].info.tcp.gaps, std::uint64_t{1});
    QCOMPARE(a.connections[0].info.tcp.gap_bytes, std::uint64_t{lost});
    QCOMPARE(a.connections[0].info.frames_opened, std::uint64_t{5});  // all but the cut RESPONSE
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QVERIFY(!a.connections[0].streams[0].stop_reason);
  }

  void finAndRstAreSeen() {
    auto segments = conversation(100);
    std::size_t c2s = hex(vectors()["conversation"]["client_to_server"]).size();
    std::size_t s2c = hex(vectors()["conversation"]["server_to_client"]).size();
    segments.push_back({false, static_cast<std::uint32_t>(s2c), {}, 0x11});  // FIN+ACK
    segments.push_back({true, static_cast<std::uint32_t>(c2s), {}, 0x14});   // RST+ACK
    CaptureAnalysis a = analyse(segments);
    const TcpHealth& t = a.connections[0].info.tcp;
    QVERIFY(t.fin_server);
    QVERIFY(!t.fin_client);
    QVERIFY(t.rst);
    QCOMPARE(text_of(a), std::string("Hello, world!"));

    // The same four-tuple used again after the close is a second connection.
    auto again = conversation(100);
    segments.insert(segments.end(), again.begin(), again.end());
    CaptureAnalysis b = analyse(segments);
    QCOMPARE(b.connections.size(), std::size_t{2});
    QCOMPARE(b.connections[1].streams.at(0).text, std::string("Hello, world!"));
  }

  // Connections split among decoding threads, and texts moved out of memory, give exactly
  // the analysis of one thread keeping everything; texts survive JSON escaping.
  void threadsAndSpilledTextsGiveTheSameAnalysis() {
    constexpr unsigned kConns = 9, kStreams = 5, kTokens = 40;
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(kConns, kStreams, kTokens));
    CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    AnalyzeOptions one;
    one.threads = 1;
    auto reference = analyze_capture(path, keys, {}, one);
    QVERIFY2(reference, reference ? "" : reference.error().detail.c_str());
    QCOMPARE(reference->connections.size(), std::size_t{kConns});
    for (unsigned c = 0; c < kConns; ++c) {
      const auto& conn = reference->connections[c];
      QCOMPARE(conn.info.name, "127.0.0.1:" + std::to_string(41000 + c) + "-127.0.0.1:7080");
      QCOMPARE(conn.streams.size(), std::size_t{kStreams});
      for (unsigned k = 0; k < kStreams; ++k) {
        QCOMPARE(conn.streams[k].figures.tokens, std::uint64_t{kTokens});
        QCOMPARE(CaptureAnalysis::text(conn, k), expected_text(c, k, kTokens));
      }
    }
    QVERIFY(!reference->connections[0].spill);  // all within the default budget

    std::string expected = analysis_json(*reference);
    auto doc = nlohmann::json::parse(expected);
    QCOMPARE(doc["connections"][4]["streams"][3]["text"].get<std::string>(), expected_text(4, 3, kTokens));

    for (unsigned threads : {2u, 3u, 8u}) {
      for (std::size_t budget : {std::size_t{0}, std::size_t{3000}, CaptureAnalysis::kResidentTextBudget}) {
        AnalyzeOptions options;
        options.threads = threads;
        options.text_budget = budget;
        auto a = analyze_capture(path, keys, {}, options);
        QVERIFY(a);
        QCOMPARE(analysis_json(*a), expected);
        bool spilled = false;
        for (const auto& c : a->connections) spilled = spilled || c.spill;
        QCOMPARE(spilled, budget < CaptureAnalysis::kResidentTextBudget);
      }
    }
  }

  // A capture of several of the reader's 2 MiB buffers: the lanes read each segment where the
  // reader read it (no copy) while it reads on, and the document is the same at 1, 2 and 8
  // threads; the text budget split among lanes spills as one lane's does.
  // add()'s pieces read back whole from the batch, the file or (past what the file takes) memory,
  // one at a time and as one span across all of them.
  void spilledPiecesReadBackWhereverTheyAre_data() {
    QTest::addColumn<qint64>("limit");
    QTest::newRow("the file takes all") << qint64(-1);
    QTest::newRow("the file takes 300 KiB") << qint64(300 << 10);
    QTest::newRow("the file takes nothing") << qint64(0);
  }
  void spilledPiecesReadBackWhereverTheyAre() {
    QFETCH(qint64, limit);
    std::optional<FileSizeLimit> full;
    if (limit >= 0) full.emplace(static_cast<rlim_t>(limit));
    auto spill = SpillFile::create();
    QVERIFY(spill);
    std::vector<std::string> pieces = spill_pieces();
    std::vector<SpillExtent> at;
    std::string all;
    for (const std::string& p : pieces) {
      at.push_back(spill->add(p));
      all += p;
    }
    full.reset();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      auto back = spill->read(at[i]);
      QVERIFY2(back && *back == pieces[i], qPrintable(QString("piece %1").arg(i)));
    }
    auto whole = spill->read(SpillExtent{0, all.size()});
    QVERIFY(whole && *whole == all);
    QCOMPARE(spill->size(), std::uint64_t{all.size()});
  }

  // A disk that refuses the spill loses no text: the document is the one with no spill at all.
  void aFullDiskLosesNoText() {
    QTemporaryDir dir;
    std::string path = dir.filePath("big.pcap").toStdString();
    write_capture(path, many_connections(9, 100, 150));  // texts of several batches
    CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    auto expected = analyze_capture(path, keys);
    QVERIFY(expected);
    AnalyzeOptions options;
    options.text_budget = 0;
    options.threads = 1;
    FileSizeLimit full(0);
    auto a = analyze_capture(path, keys, {}, options);
    QVERIFY2(a, a ? "" : a.error().detail.c_str());
    QVERIFY(a->connections[0].spill);
    QVERIFY(analysis_json(*a) == analysis_json(*expected));  // (QCOMPARE would print megabytes)
  }

  void manyReadBuffersGiveTheSameAnalysis() {
    QTemporaryDir dir;
    std::string path = dir.filePath("big.pcap").toStdString();
    write_capture(path, many_connections(9, 60, 150));
    QVERIFY(std::filesystem::file_size(path) > (6u << 20));
    CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    std::string expected;
    for (unsigned threads : {1u, 2u, 8u}) {
      AnalyzeOptions options;
      options.threads = threads;
      options.text_budget = 100000;
      auto a = analyze_capture(path, keys, {}, options);
      QVERIFY2(a, a ? "" : a.error().detail.c_str());
      QCOMPARE(a->threads, threads);
      if (threads == 1) {
        QCOMPARE(a->connections.size(), std::size_t{9});
        for (const auto& c : a->connections) {
          QCOMPARE(c.streams.size(), std::size_t{60});
          QCOMPARE(CaptureAnalysis::text(c, 59), expected_text(static_cast<unsigned>(&c - &a->connections[0]), 59, 150));
        }
        expected = analysis_json(*a);
      } else {
        QVERIFY(analysis_json(*a) == expected);  // (QCOMPARE would print megabytes)
      }
    }
  }

  void progressReachesTheEndAndCancelStops() {
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(8, 60, 60));
    auto size = std::filesystem::file_size(path);
    QVERIFY(size > 2u << 20);
    CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    std::vector<std::uint64_t> seen;
    AnalyzeOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      seen.push_back(done);
      return total == size;
    };
    QVERIFY(analyze_capture(path, keys, {}, options));
    QVERIFY(seen.size() >= 3);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), std::uint64_t{size});

    for (unsigned threads : {1u, 2u}) {
      options.threads = threads;
      options.progress = [](std::uint64_t done, std::uint64_t) { return done < (1u << 20); };
      auto cancelled = analyze_capture(path, keys, {}, options);
      QVERIFY(!cancelled);
      QCOMPARE(cancelled.error().reason, std::string("cancelled"));
      QVERIFY(cancelled.error().detail.find(path) != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestCaptureTcp)
#include "test_capture_tcp.moc"
