// TCP reassembly through real capture files: the vector conversation rewritten by a small
// generator with reordering, retransmissions, a lost segment, bad checksums and a zero
// window, then analysed as a user would.
#include <QtTest>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "capture/analysis.h"
#include "capture/capture_file.h"
#include "crypto/aead.h"
#include "crypto/keylog.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

struct Segment {
  bool from_client;
  std::uint32_t seq;  // relative to the direction's first data byte
  Bytes payload;
  std::uint8_t flags = 0x18;  // PSH+ACK
  std::uint16_t window = 65535;
  bool bad_checksum = false;
  std::uint16_t client_port = 40000;
};

std::uint16_t checksum(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (n % 2) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// Ethernet + IPv4 + TCP, client 127.0.0.1:<client_port>, server 127.0.0.1:7080.
Bytes packet(const Segment& s) {
  const std::uint32_t client_isn = 1000, server_isn = 5000;
  Bytes tcp(20);
  store_u16(tcp.data(), s.from_client ? s.client_port : 7080);
  store_u16(tcp.data() + 2, s.from_client ? 7080 : s.client_port);
  store_u32(tcp.data() + 4, (s.from_client ? client_isn : server_isn) + 1 + s.seq);
  store_u32(tcp.data() + 8, s.flags & 0x10 ? (s.from_client ? server_isn : client_isn) + 1 : 0);
  tcp[12] = 5 << 4;
  tcp[13] = s.flags;
  store_u16(tcp.data() + 14, s.window);
  append(tcp, s.payload);
  Bytes pseudo = {127, 0, 0, 1, 127, 0, 0, 1, 0, 6};
  append_u16(pseudo, static_cast<std::uint16_t>(tcp.size()));
  append(pseudo, tcp);
  std::uint16_t sum = checksum(pseudo.data(), pseudo.size());
  store_u16(tcp.data() + 16, s.bad_checksum ? static_cast<std::uint16_t>(sum ^ 0x5555) : sum);
  Bytes ip = {0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1};
  store_u16(ip.data() + 2, static_cast<std::uint16_t>(20 + tcp.size()));
  store_u16(ip.data() + 10, checksum(ip.data(), ip.size()));
  Bytes frame(12, 0);
  append_u16(frame, 0x0800);
  append(frame, ip);
  append(frame, tcp);
  return frame;
}

constexpr std::size_t kHandshake = 3;

// The three-way handshake, then the conversation cut into segments of at most `mss` bytes,
// client bytes first.
std::vector<Segment> conversation(std::size_t mss) {
  constexpr std::uint32_t isn = 0xFFFFFFFF;  // relative -1: the SYN's own sequence number
  std::vector<Segment> out = {{true, isn, {}, 0x02}, {false, isn, {}, 0x12}, {true, 0, {}, 0x10}};
  const auto& conv = vectors()["conversation"];
  for (bool client : {true, false}) {
    Bytes bytes = hex(conv[client ? "client_to_server" : "server_to_client"]);
    for (std::size_t at = 0; at < bytes.size(); at += mss)
      out.push_back({client, static_cast<std::uint32_t>(at),
                     Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                           bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), at + mss)))});
  }
  return out;
}

void write_capture(const std::string& path, const std::vector<Segment>& segments) {
  auto writer = PcapWriter::create(path, kLinkEthernet);
  if (!writer) qFatal("cannot write the capture");
  double ts = 1700000000.0;
  for (const Segment& s : segments) {
    Bytes p = packet(s);
    (*writer)->write_packet(ts += 0.001, p, static_cast<std::uint32_t>(p.size()));
  }
  if (!(*writer)->close()) qFatal("cannot close the capture");
}

CaptureAnalysis analyse(const std::vector<Segment>& segments) {
  QTemporaryDir dir;
  std::string path = dir.filePath("tcp.pcap").toStdString();
  write_capture(path, segments);
  auto a = analyze_capture(path, {{vectors_path("lab-conversation.keylog")}, {}});
  if (!a) qFatal("%s", a.error().detail.c_str());
  return *a;
}

std::string text_of(const CaptureAnalysis& a) { return a.connections.at(0).streams.at(0).text; }

// Text with every character JSON must escape, and some it must not.
std::string token_text(unsigned conn, unsigned stream, unsigned token) {
  static const std::string special[] = {"\"q\"", "back\\slash", "\b\f\n\r\t", std::string("\x01\x1f\x7f", 3),
                                        "caf\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x99\x82", "/"};
  return "c" + std::to_string(conn) + "s" + std::to_string(stream) + special[(conn + stream + token) % 8];
}

// `connections` lab connections to 127.0.0.1:7080 with the vector's negotiation and keys, each
// with `streams` streams of `tokens` tokens (texts from token_text), their segments interleaved.
std::vector<Segment> many_connections(unsigned connections, unsigned streams, unsigned tokens) {
  const auto& conv = vectors()["conversation"];
  Bytes c2s_preface = hex(conv["client_to_server"]), s2c_preface = hex(conv["server_to_client"]);
  c2s_preface.resize(kPrefaceSize);
  s2c_preface.resize(kPrefaceSize);
  KeyLog log = parse_keylog(anthro::test::read_file(vectors_path("lab-conversation.keylog")), "keylog");
  const AnthroKeyLine& line = log.anthro.at(0);
  std::vector<std::vector<Segment>> per_conn(connections);
  for (unsigned c = 0; c < connections; ++c) {
    Aead c2s_key(Suite::Aes256Gcm, line.keys.c2s), s2c_key(Suite::Aes256Gcm, line.keys.s2c);
    NonceSequence c2s_nonces, s2c_nonces;
    Bytes up = c2s_preface, down = s2c_preface;
    for (unsigned k = 0; k < streams; ++k) {
      std::uint32_t id = 2 * k + 1;
      RequestSpec request{"m", {{"user", "hi"}}, 100};
      seal_frame(c2s_key, FrameType::Request, 0, line.token, c2s_nonces.next(), encode_request(id, request), up);
      for (unsigned t = 0; t < tokens; ++t)
        seal_frame(s2c_key, FrameType::StreamToken, 0, line.token, s2c_nonces.next(),
                   encode_token(id, t, 1, as_bytes(token_text(c, k, t))), down);
      ResponseSpec response;
      response.output_tokens = tokens;
      seal_frame(s2c_key, FrameType::Response, 0, line.token, s2c_nonces.next(), encode_response(id, response), down);
    }
    auto port = static_cast<std::uint16_t>(41000 + c);
    constexpr std::uint32_t isn = 0xFFFFFFFF;
    auto& out = per_conn[c];
    out = {{true, isn, {}, 0x02}, {false, isn, {}, 0x12}, {true, 0, {}, 0x10}};
    for (bool client : {true, false}) {
      const Bytes& bytes = client ? up : down;
      for (std::size_t at = 0; at < bytes.size(); at += 300)
        out.push_back({client, static_cast<std::uint32_t>(at),
                       Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                             bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), at + 300)))});
    }
    for (auto& segment : out) segment.client_port = port;
  }
  std::vector<Segment> all;
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (const auto& conn : per_conn)
      if (i < conn.size()) {
        all.push_back(conn[i]);
        any = true;
      }
    if (!any) return all;
  }
}

std::string expected_text(unsigned conn, unsigned stream, unsigned tokens) {
  std::string text;
  for (unsigned t = 0; t < tokens; ++t) text += token_text(conn, stream, t);
  return text;
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
    for (auto& s : segments) s.bad_checksum = true;
    CaptureAnalysis a = analyse(segments);
    QCOMPARE(text_of(a), std::string("Hello, world!"));
    QCOMPARE(a.connections[0].info.tcp.bad_checksums, std::uint64_t{segments.size()});
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

    for (unsigned threads : {2u, 3u}) {
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
