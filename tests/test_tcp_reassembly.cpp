// TCP reassembly: in-order and reordered delivery, retransmissions, wrap-around, gaps, snaplen,
// keep-alives, windows, duplicate ACKs, FIN/RST, the memory bound and 4-tuple reuse.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <algorithm>
#include <deque>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "capture/tcp_reassembly.h"

using namespace anthro;

namespace {

constexpr Direction C2S = Direction::ClientToServer;
constexpr Direction S2C = Direction::ServerToClient;

IpEndpoint v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d, std::uint16_t port) {
  IpEndpoint e;
  e.address[0] = a, e.address[1] = b, e.address[2] = c, e.address[3] = d;
  e.port = port;
  return e;
}

IpEndpoint v6(std::initializer_list<std::uint8_t> bytes, std::uint16_t port) {
  IpEndpoint e;
  std::copy(bytes.begin(), bytes.end(), e.address.begin());
  e.v6 = true;
  e.port = port;
  return e;
}

// Builds segments by hand; payloads live as long as the Wire.
class Wire {
 public:
  IpEndpoint client = v4(10, 0, 0, 1, 40000), server = v4(10, 0, 0, 2, 7443);

  TcpSegment c2s(std::uint32_t seq, std::uint32_t ack, std::string_view data, double ts,
                 std::uint8_t flags = kAck | kPsh, std::uint16_t window = 65535) {
    return make(client, server, seq, ack, data, ts, flags, window);
  }
  TcpSegment s2c(std::uint32_t seq, std::uint32_t ack, std::string_view data, double ts,
                 std::uint8_t flags = kAck | kPsh, std::uint16_t window = 65535) {
    return make(server, client, seq, ack, data, ts, flags, window);
  }

 private:
  TcpSegment make(const IpEndpoint& src, const IpEndpoint& dst, std::uint32_t seq, std::uint32_t ack,
                  std::string_view data, double ts, std::uint8_t flags, std::uint16_t window) {
    store_.emplace_back(data.begin(), data.end());
    TcpSegment s;
    s.ts = ts;
    s.src = src;
    s.dst = dst;
    s.seq = seq;
    s.ack = ack;
    s.flags = flags;
    s.window = window;
    s.payload = store_.back();
    s.payload_length = static_cast<std::uint32_t>(data.size());
    return s;
  }
  std::deque<Bytes> store_;
};

// Records every event.
struct Recorder {
  struct Data { Direction dir; std::uint64_t offset; std::string bytes; double ts; };
  struct Gap { Direction dir; std::uint64_t offset, bytes; double ts; };
  struct Close { Direction dir; double ts; bool rst; };
  struct Zero { Direction dir; double start, end; };
  std::vector<Data> data;
  std::vector<Gap> gaps;
  std::vector<Close> closes;
  std::vector<Zero> zeros;
  std::vector<std::string> order;  // "data", "gap", "close" as they came

  TcpEvents events() {
    TcpEvents e;
    e.on_data = [this](Direction d, std::uint64_t off, ByteView b, double ts) {
      data.push_back({d, off, std::string(as_text(b)), ts});
      order.push_back("data");
    };
    e.on_gap = [this](Direction d, std::uint64_t off, std::uint64_t n, double ts) {
      gaps.push_back({d, off, n, ts});
      order.push_back("gap");
    };
    e.on_close = [this](Direction d, double ts, bool rst) {
      closes.push_back({d, ts, rst});
      order.push_back("close");
    };
    e.on_zero_window = [this](Direction d, double s, double en) { zeros.push_back({d, s, en}); };
    return e;
  }
  std::string text(Direction dir) const {
    std::string out;
    for (const auto& d : data)
      if (d.dir == dir) out += d.bytes;
    return out;
  }
  // Each delivered byte's ts, and a check that data and gaps tile the stream exactly once.
  std::vector<double> byte_ts(Direction dir) const {
    std::vector<double> out;
    std::uint64_t next = 0;
    for (const auto& d : data) {
      if (d.dir != dir) continue;
      if (d.offset != next) return {};
      out.insert(out.end(), d.bytes.size(), d.ts);
      next += d.bytes.size();
    }
    return out;
  }
  bool tiles(Direction dir) const {  // data and gaps, sorted by offset, leave no hole or overlap
    std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
    for (const auto& d : data)
      if (d.dir == dir) r.emplace_back(d.offset, d.bytes.size());
    for (const auto& g : gaps)
      if (g.dir == dir) r.emplace_back(g.offset, g.bytes);
    std::sort(r.begin(), r.end());
    std::uint64_t next = 0;
    for (auto [off, n] : r) {
      if (off != next || n == 0) return false;
      next += n;
    }
    return true;
  }
};

constexpr std::uint32_t kCisn = 1000, kSisn = 5000;

// SYN, SYN/ACK, ACK at ts 0, 0.001, 0.002; client data starts at kCisn + 1, server's at kSisn + 1.
std::unique_ptr<TcpConnection> open_connection(Wire& w, Recorder& rec, std::size_t max = std::size_t{8} << 20,
                                       std::optional<std::uint8_t> cws = {},
                                       std::optional<std::uint8_t> sws = {},
                                       std::uint32_t cisn = kCisn, std::uint32_t sisn = kSisn) {
  auto syn = w.c2s(cisn, 0, "", 0.0, kSyn);
  syn.window_scale = cws;
  auto conn = std::make_unique<TcpConnection>(syn, rec.events(), max);
  conn->feed(syn);
  auto synack = w.s2c(sisn, cisn + 1, "", 0.001, kSyn | kAck);
  synack.window_scale = sws;
  conn->feed(synack);
  conn->feed(w.c2s(cisn + 1, sisn + 1, "", 0.002, kAck));
  return conn;
}

}  // namespace

class TestTcpReassembly : public QObject {
  Q_OBJECT
 private slots:
  void endpointText() {
    QCOMPARE(v4(1, 2, 3, 4, 80).text(), std::string("1.2.3.4:80"));
    auto loop = v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 80);
    QCOMPARE(loop.text(), std::string("[::1]:80"));
    QCOMPARE(v6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 443).text(),
             std::string("[2001:db8::1]:443"));
    Wire w;
    w.client = v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 40000);
    w.server = v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 7443);
    TcpConnection conn(w.c2s(1, 0, "", 0, kSyn), {});
    QCOMPARE(conn.name(), std::string("[::1]:40000-[::1]:7443"));
    Wire w4;
    TcpConnection conn4(w4.s2c(1, 2, "", 0, kSyn | kAck), {});  // a SYN/ACK seen first: its receiver is the client
    QCOMPARE(conn4.name(), std::string("10.0.0.1:40000-10.0.0.2:7443"));
  }

  void inOrder() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.c2s(kCisn + 1, kSisn + 1, "GET /", 0.01));  // the SYN took one number: offset 0
    conn->feed(w.s2c(kSisn + 1, kCisn + 6, "HELLO", 0.02));
    conn->feed(w.s2c(kSisn + 6, kCisn + 6, "WORLD", 0.03));
    QCOMPARE(rec.text(C2S), std::string("GET /"));
    QCOMPARE(rec.text(S2C), std::string("HELLOWORLD"));
    QCOMPARE(rec.data.size(), std::size_t{3});
    QCOMPARE(rec.data[0].offset, 0u);
    QCOMPARE(rec.data[2].offset, 5u);
    QCOMPARE(rec.data[2].ts, 0.03);
    QCOMPARE(*conn->syn_ts, 0.0);
    QCOMPARE(*conn->synack_ts, 0.001);
    QCOMPARE(conn->first_ts(), 0.0);
    QCOMPARE(conn->last_ts(), 0.03);
    QVERIFY(conn->client() == w.client && conn->server() == w.server);
    conn->finish();
    const auto& h = conn->health();
    QCOMPARE(h.retransmissions + h.out_of_order + h.gaps + h.duplicate_acks + h.keepalives, 0u);
    QVERIFY(rec.gaps.empty() && rec.closes.empty());
  }

  void everyPermutationGivesTheSameBytes() {
    const std::vector<std::string> parts = {"abc", "defg", "hijkl", "mnopqrst"};
    std::vector<std::uint32_t> starts = {0, 3, 7, 12};
    std::vector<int> perm = {0, 1, 2, 3};
    int count = 0;
    do {
      Wire w;
      Recorder rec;
      auto conn = open_connection(w, rec);
      std::vector<double> arrival(4);
      std::uint64_t expected_ooo = 0, max_end = 0;
      for (int pos = 0; pos < 4; ++pos) {
        int i = perm[pos];
        arrival[i] = 1.0 + pos;
        if (starts[i] < max_end) ++expected_ooo;
        max_end = std::max<std::uint64_t>(max_end, starts[i] + parts[i].size());
        conn->feed(w.s2c(kSisn + 1 + starts[i], kCisn + 1, parts[i], arrival[i]));
      }
      QCOMPARE(rec.text(S2C), std::string("abcdefghijklmnopqrst"));
      auto ts = rec.byte_ts(S2C);
      QCOMPARE(ts.size(), std::size_t{20});
      for (std::size_t b = 0; b < 20; ++b) {
        int seg = b < 3 ? 0 : b < 7 ? 1 : b < 12 ? 2 : 3;
        QCOMPARE(ts[b], arrival[seg]);
      }
      QCOMPARE(conn->health().out_of_order, expected_ooo);
      QCOMPARE(conn->health().retransmissions, 0u);
      QCOMPARE(conn->buffered_bytes(S2C), std::size_t{0});
      ++count;
    } while (std::next_permutation(perm.begin(), perm.end()));
    QCOMPARE(count, 24);
  }

  void exactRetransmission() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.s2c(kSisn + 1, kCisn + 1, "hello", 1.0));
    conn->feed(w.s2c(kSisn + 1, kCisn + 1, "hello", 2.0));
    QCOMPARE(rec.text(S2C), std::string("hello"));
    QCOMPARE(rec.data.back().ts, 1.0);
    QCOMPARE(conn->health().retransmissions, 1u);
    // A held out-of-order segment retransmitted keeps its first arrival.
    conn->feed(w.s2c(kSisn + 11, kCisn + 1, "ABCDE", 3.0));
    conn->feed(w.s2c(kSisn + 11, kCisn + 1, "ABCDE", 4.0));
    QCOMPARE(conn->health().retransmissions, 2u);
    QCOMPARE(rec.data.size(), std::size_t{1});
    conn->feed(w.s2c(kSisn + 6, kCisn + 1, "world", 5.0));
    QCOMPARE(rec.text(S2C), std::string("helloworldABCDE"));
    QCOMPARE(rec.data[1].ts, 5.0);
    QCOMPARE(rec.data[2].ts, 3.0);
    QCOMPARE(conn->health().out_of_order, 1u);
    QCOMPARE(conn->health().retransmissions, 2u);
  }

  void overlapWithExtraData() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.s2c(kSisn + 1, kCisn + 1, "0123456789", 1.0));
    conn->feed(w.s2c(kSisn + 6, kCisn + 1, "56789abcdefghij", 2.0));  // 5 old bytes, 10 new
    QCOMPARE(rec.data.size(), std::size_t{2});
    QCOMPARE(rec.data[1].offset, 10u);
    QCOMPARE(rec.data[1].bytes, std::string("abcdefghij"));
    QCOMPARE(rec.data[1].ts, 2.0);
    QCOMPARE(conn->health().retransmissions, 1u);
    // A segment spanning a hole, a held piece and new bytes: each byte once, with its own ts.
    conn->feed(w.s2c(kSisn + 26, kCisn + 1, "PQRST", 3.0));
    conn->feed(w.s2c(kSisn + 21, kCisn + 1, "KLMNOPQRSTUVWXYZ", 4.0));
    QCOMPARE(rec.text(S2C), std::string("0123456789abcdefghijKLMNOPQRSTUVWXYZ"));
    auto ts = rec.byte_ts(S2C);
    QCOMPARE(ts.size(), std::size_t{36});
    QCOMPARE(ts[20], 4.0);
    QCOMPARE(ts[25], 3.0);
    QCOMPARE(ts[29], 3.0);
    QCOMPARE(ts[30], 4.0);
    QCOMPARE(conn->health().retransmissions, 2u);
    QCOMPARE(conn->health().out_of_order, 1u);
  }

  void wrapAcross2To32() {
    Wire w;
    Recorder rec;
    const std::uint32_t isn = 0xFFFFFFF0u;
    auto conn = open_connection(w, rec, std::size_t{8} << 20, {}, {}, kCisn, isn);
    std::string all;
    for (int i = 0; i < 10; ++i) all += std::string(10, static_cast<char>('a' + i));
    // 0..3 in order (crossing 2^32 at offset 15), then 5, 4, 7, 6, 9, 8.
    for (int i : {0, 1, 2, 3, 5, 4, 7, 6, 9, 8})
      conn->feed(w.s2c(isn + 1 + 10 * static_cast<std::uint32_t>(i), kCisn + 1,
                       std::string_view(all).substr(10 * static_cast<std::size_t>(i), 10), 1.0 + i));
    QCOMPARE(rec.text(S2C), all);
    QCOMPARE(conn->health().out_of_order, 3u);
    QCOMPARE(conn->health().retransmissions, 0u);
    conn->feed(w.s2c(isn + 11, kCisn + 1, std::string_view(all).substr(10, 10), 20.0));  // across the wrap
    QCOMPARE(conn->health().retransmissions, 1u);
    QCOMPARE(rec.text(S2C), all);

    // A stream longer than 2^32 bytes, mid-stream, in 64 KiB segments.
    Wire big;
    std::uint64_t delivered = 0, last_offset = 0, gaps = 0;
    TcpEvents e;
    e.on_data = [&](Direction, std::uint64_t off, ByteView b, double) {
      if (off != delivered) ++gaps;
      delivered += b.size();
      last_offset = off;
    };
    e.on_gap = [&](Direction, std::uint64_t, std::uint64_t, double) { ++gaps; };
    const std::string chunk(65536, 'x');
    std::uint32_t seq = 0x80000000u;
    TcpConnection stream(big.s2c(seq, 1, chunk, 0), e);
    const std::uint64_t segments = (std::uint64_t{9} << 29) / chunk.size();  // 4.5 GiB
    for (std::uint64_t i = 0; i < segments; ++i, seq += 65536) {
      TcpSegment s = big.s2c(seq, 1, "", static_cast<double>(i));
      s.payload = as_bytes(chunk);
      s.payload_length = 65536;
      stream.feed(s);
    }
    // The next two segments, swapped, past 4 GiB.
    TcpSegment later = big.s2c(seq + 65536, 1, "tail", 1e6), now = big.s2c(seq, 1, "", 1e6 + 1);
    now.payload = as_bytes(chunk);
    now.payload_length = 65536;
    stream.feed(later);
    stream.feed(now);
    stream.finish();
    QCOMPARE(delivered, segments * 65536 + 65536 + 4);
    QCOMPARE(last_offset, segments * 65536 + 65536);
    QVERIFY(last_offset > (std::uint64_t{1} << 32));
    QCOMPARE(gaps, 0u);
    QCOMPARE(stream.health().out_of_order, 1u);
    QCOMPARE(stream.health().retransmissions, 0u);
  }

  void midStreamStart() {
    Wire w;
    Recorder rec;
    // The first segment seen comes from port 7443 to an ephemeral port: its sender is still the client.
    auto first = w.s2c(123456, 777, "abc", 1.0);
    TcpConnection conn(first, rec.events());
    conn.feed(first);
    QVERIFY(conn.client() == w.server);
    QCOMPARE(conn.name(), std::string("10.0.0.2:7443-10.0.0.1:40000"));
    conn.feed(w.s2c(123459, 777, "def", 2.0));
    conn.feed(w.c2s(777, 123462, "xy", 3.0));  // the other direction: its own offset 0
    conn.feed(w.s2c(123450, 777, "012345", 4.0));  // entirely before offset 0
    QCOMPARE(rec.text(C2S), std::string("abcdef"));  // client = the port-7443 side here
    QCOMPARE(rec.text(S2C), std::string("xy"));
    QCOMPARE(rec.data[0].offset, 0u);
    QCOMPARE(rec.data[2].offset, 0u);
    QCOMPARE(rec.data[2].dir, S2C);
    QVERIFY(!conn.syn_ts && !conn.synack_ts);
    QCOMPARE(conn.health().retransmissions, 1u);
    conn.finish();
    QVERIFY(rec.gaps.empty());
  }

  void gapsAreReportedWithOffsetsAndSizes() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.c2s(kCisn + 1, kSisn + 1, "0123456789", 1.0));
    conn->feed(w.c2s(kCisn + 21, kSisn + 1, "KLMNOPQRST", 2.0));
    conn->feed(w.c2s(kCisn + 41, kSisn + 1, "", 3.0, kFin | kAck));  // FIN after a second hole
    QCOMPARE(rec.data.size(), std::size_t{1});
    QVERIFY(rec.closes.empty());  // the FIN waits for the bytes before it
    QVERIFY(conn->health().fin_client);
    conn->finish();
    QCOMPARE(rec.gaps.size(), std::size_t{2});
    QCOMPARE(rec.gaps[0].offset, 10u);
    QCOMPARE(rec.gaps[0].bytes, 10u);
    QCOMPARE(rec.gaps[0].ts, 2.0);
    QCOMPARE(rec.gaps[1].offset, 30u);
    QCOMPARE(rec.gaps[1].bytes, 10u);
    QCOMPARE(rec.gaps[1].ts, 3.0);
    QCOMPARE(rec.data[1].offset, 20u);
    QCOMPARE(rec.data[1].ts, 2.0);
    QCOMPARE(rec.order, (std::vector<std::string>{"data", "gap", "data", "gap", "close"}));
    QCOMPARE(rec.closes[0].ts, 3.0);
    QVERIFY(rec.tiles(C2S));
    QCOMPARE(conn->health().gaps, 2u);
    QCOMPARE(conn->health().gap_bytes, 20u);
  }

  void snaplenCutTail() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    auto cut = w.s2c(kSisn + 1, kCisn + 1, std::string(60, 'a'), 1.0);
    cut.payload_length = 100;
    conn->feed(cut);
    QCOMPARE(rec.order, (std::vector<std::string>{"data", "gap"}));
    QCOMPARE(rec.gaps[0].offset, 60u);
    QCOMPARE(rec.gaps[0].bytes, 40u);
    conn->feed(w.s2c(kSisn + 101, kCisn + 1, std::string(50, 'b'), 2.0));
    QCOMPARE(rec.data.back().offset, 100u);
    // Out of order: the cut segment waits its turn, then its tail is a gap.
    auto late_cut = w.s2c(kSisn + 251, kCisn + 1, std::string(10, 'd'), 3.0);
    late_cut.payload_length = 50;
    conn->feed(late_cut);
    conn->feed(w.s2c(kSisn + 151, kCisn + 1, std::string(100, 'c'), 4.0));
    QCOMPARE(rec.order, (std::vector<std::string>{"data", "gap", "data", "data", "data", "gap"}));
    QCOMPARE(rec.data.back().offset, 250u);
    QCOMPARE(rec.data.back().bytes, std::string(10, 'd'));
    QCOMPARE(rec.data.back().ts, 3.0);
    QCOMPARE(rec.gaps[1].offset, 260u);
    QCOMPARE(rec.gaps[1].bytes, 40u);
    QCOMPARE(conn->health().gaps, 2u);
    QCOMPARE(conn->health().gap_bytes, 80u);
    QVERIFY(rec.tiles(S2C));
  }

  void keepAlivesAreCountedNotDelivered() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.c2s(kCisn + 1, kSisn + 1, std::string(100, 'q'), 1.0));
    conn->feed(w.c2s(kCisn + 100, kSisn + 1, "", 2.0, kAck));   // 0 bytes at seq - 1
    conn->feed(w.c2s(kCisn + 100, kSisn + 1, "z", 3.0, kAck));  // 1 byte at seq - 1
    conn->feed(w.c2s(kCisn + 101, kSisn + 1, "", 4.0, kAck));   // a plain ACK
    QCOMPARE(conn->health().keepalives, 2u);
    QCOMPARE(conn->health().retransmissions, 0u);
    QCOMPARE(rec.data.size(), std::size_t{1});
    QCOMPARE(rec.text(C2S), std::string(100, 'q'));
    conn->feed(w.c2s(kCisn + 101, kSisn + 1, "r", 5.0));
    QCOMPARE(rec.text(C2S), std::string(100, 'q') + "r");
  }

  void zeroWindowDurations() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.s2c(kSisn + 1, kCisn + 1, std::string(100, 't'), 0.5));
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 1.0, kAck, 0));  // the client's buffer is full
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 1.5, kAck, 0));
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 1.7, kRst, 0));  // an RST never counts
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 3.0, kAck, 1000));
    QCOMPARE(rec.zeros.size(), std::size_t{1});
    QCOMPARE(rec.zeros[0].dir, S2C);
    QCOMPARE(rec.zeros[0].start, 1.0);
    QCOMPARE(rec.zeros[0].end, 3.0);
    QCOMPARE(conn->health().zero_window_events, 1u);
    QCOMPARE(conn->health().zero_window_ms, 2000.0);
    QCOMPARE(conn->health().duplicate_acks, 0u);  // zero-window ACKs are not duplicates
    // Open at the end of the capture: it lasts until the last packet.
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 4.0, kAck, 0));
    conn->feed(w.s2c(kSisn + 101, kCisn + 1, "", 5.0, kAck, 1000));
    conn->finish();
    QCOMPARE(rec.zeros.size(), std::size_t{2});
    QCOMPARE(rec.zeros[1].start, 4.0);
    QCOMPARE(rec.zeros[1].end, 5.0);
    QCOMPARE(conn->health().zero_window_events, 2u);
    QCOMPARE(conn->health().zero_window_ms, 3000.0);

    Wire w2;  // the server's window 0 blocks the client's bytes
    Recorder rec2;
    auto conn2 = open_connection(w2, rec2);
    conn2->feed(w2.s2c(kSisn + 1, kCisn + 1, "", 1.0, kAck, 0));
    conn2->feed(w2.s2c(kSisn + 1, kCisn + 1, "", 1.25, kAck, 10));
    QCOMPARE(rec2.zeros.size(), std::size_t{1});
    QCOMPARE(rec2.zeros[0].dir, C2S);
    QCOMPARE(conn2->health().zero_window_ms, 250.0);
  }

  void windowFullUsesTheScale() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec, std::size_t{8} << 20, 2, 7);  // client shift 2, server shift 7
    conn->feed(w.c2s(kCisn + 1, kSisn + 1, "", 0.01, kAck, 100));  // 100 << 2 = 400 bytes
    const std::string hundred(100, 'w');
    for (std::uint32_t i = 0; i < 4; ++i) {
      conn->feed(w.s2c(kSisn + 1 + 100 * i, kCisn + 1, hundred, 1.0 + i));
      QCOMPARE(conn->health().window_full_events, i == 3 ? 1u : 0u);
    }
    conn->feed(w.c2s(kCisn + 1, kSisn + 401, "", 5.0, kAck, 100));
    conn->feed(w.s2c(kSisn + 401, kCisn + 1, hundred, 6.0));
    QCOMPARE(conn->health().window_full_events, 1u);
    QCOMPARE(rec.text(S2C).size(), std::size_t{500});

    // Both SYNs carry no option: windows are not scaled.
    Wire w2;
    Recorder rec2;
    auto conn2 = open_connection(w2, rec2, std::size_t{8} << 20, 2, {});
    conn2->feed(w2.c2s(kCisn + 1, kSisn + 1, "", 0.01, kAck, 100));
    conn2->feed(w2.s2c(kSisn + 1, kCisn + 1, hundred, 1.0));
    QCOMPARE(conn2->health().window_full_events, 1u);

    // Mid-stream the scale is unknown: nothing is counted.
    Wire w3;
    Recorder rec3;
    auto ack = w3.c2s(1, 1, "", 0, kAck, 1);
    TcpConnection conn3(ack, rec3.events());
    conn3.feed(ack);
    conn3.feed(w3.s2c(1, 1, hundred, 1.0));
    QCOMPARE(conn3.health().window_full_events, 0u);
  }

  void duplicateAcks() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    const std::string hundred(100, 'd');
    conn->feed(w.s2c(kSisn + 1, kCisn + 1, hundred, 1.0));
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 1.1, kAck, 1000));
    conn->feed(w.s2c(kSisn + 201, kCisn + 1, hundred, 2.0));  // [100, 200) lost
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 2.1, kAck, 1000));
    conn->feed(w.s2c(kSisn + 301, kCisn + 1, hundred, 3.0));
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 3.1, kAck, 1000));
    QCOMPARE(conn->health().duplicate_acks, 2u);
    conn->feed(w.c2s(kCisn + 1, kSisn + 101, "", 3.2, kAck, 2000));  // a window update
    QCOMPARE(conn->health().duplicate_acks, 2u);
    conn->feed(w.s2c(kSisn + 101, kCisn + 1, hundred, 4.0));
    conn->feed(w.c2s(kCisn + 1, kSisn + 401, "", 4.1, kAck, 2000));
    conn->feed(w.c2s(kCisn + 1, kSisn + 401, "", 4.2, kAck, 2000));  // nothing outstanding
    QCOMPARE(conn->health().duplicate_acks, 2u);
    QCOMPARE(conn->health().out_of_order, 1u);
    QCOMPARE(rec.text(S2C), std::string(400, 'd'));
  }

  void finAndRst() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    conn->feed(w.c2s(kCisn + 1, kSisn + 1, "hi", 1.0));
    conn->feed(w.c2s(kCisn + 3, kSisn + 1, "", 2.0, kFin | kAck));
    QCOMPARE(rec.closes.size(), std::size_t{1});
    QCOMPARE(rec.closes[0].dir, C2S);
    QCOMPARE(rec.closes[0].ts, 2.0);
    QVERIFY(!rec.closes[0].rst);
    QVERIFY(conn->health().fin_client && !conn->health().fin_server);
    conn->feed(w.c2s(kCisn + 3, kSisn + 1, "", 2.5, kFin | kAck));  // retransmitted FIN
    QCOMPARE(rec.closes.size(), std::size_t{1});
    QCOMPARE(conn->health().retransmissions, 1u);
    // The FIN took one sequence number: the client's later ACKs sit at kCisn + 4, and repeat.
    conn->feed(w.s2c(kSisn + 1, kCisn + 4, std::string(100, 's'), 3.0));
    conn->feed(w.c2s(kCisn + 4, kSisn + 101, "", 3.1, kAck));
    conn->feed(w.s2c(kSisn + 201, kCisn + 4, std::string(100, 's'), 3.2));
    conn->feed(w.c2s(kCisn + 4, kSisn + 101, "", 3.3, kAck));
    QCOMPARE(conn->health().duplicate_acks, 1u);
    QCOMPARE(conn->health().keepalives, 0u);
    QCOMPARE(rec.text(C2S), std::string("hi"));
    conn->feed(w.s2c(kSisn + 301, kCisn + 4, "", 4.0, kRst));
    conn->feed(w.s2c(kSisn + 301, kCisn + 4, "", 4.1, kRst));
    QCOMPARE(rec.closes.size(), std::size_t{2});
    QCOMPARE(rec.closes[1].dir, S2C);
    QCOMPARE(rec.closes[1].ts, 4.0);
    QVERIFY(rec.closes[1].rst);
    QVERIFY(conn->health().rst && conn->closed());
    conn->finish();
    QCOMPARE(rec.gaps.size(), std::size_t{1});  // the lost [100, 200) of the server
    QCOMPARE(rec.gaps[0].offset, 100u);
  }

  void badChecksumsAreCountedAndUsed() {
    Wire w;
    Recorder rec;
    auto conn = open_connection(w, rec);
    auto bad = w.s2c(kSisn + 1, kCisn + 1, "offloaded", 1.0);
    bad.checksum_checked = true;
    bad.checksum_ok = false;
    conn->feed(bad);
    auto unchecked = w.s2c(kSisn + 10, kCisn + 1, "!", 2.0);
    unchecked.checksum_ok = false;  // not checked: not counted
    conn->feed(unchecked);
    QCOMPARE(conn->health().bad_checksums, 1u);
    QCOMPARE(rec.text(S2C), std::string("offloaded!"));
  }

  void memoryStaysBounded() {
    Wire w;
    const std::size_t limit = std::size_t{1} << 20;
    std::uint64_t delivered = 0, next = 1448, gap_offset = 99, gap_bytes = 0, gaps = 0, misplaced = 0;
    TcpEvents e;
    e.on_data = [&](Direction, std::uint64_t off, ByteView b, double) {
      if (off != next) ++misplaced;
      next = off + b.size();
      delivered += b.size();
    };
    e.on_gap = [&](Direction, std::uint64_t off, std::uint64_t n, double) {
      ++gaps;
      gap_offset = off;
      gap_bytes = n;
    };
    auto syn = w.c2s(kCisn, 0, "", 0, kSyn);
    TcpConnection conn(syn, e, limit);
    conn.feed(syn);
    conn.feed(w.s2c(kSisn, kCisn + 1, "", 0.001, kSyn | kAck));
    const std::string mss(1448, 'm');
    const std::uint64_t total = std::uint64_t{100} << 20;
    std::size_t peak = 0;
    for (std::uint64_t off = 1448; off < total; off += 1448) {  // the first segment is missing
      TcpSegment s = w.s2c(kSisn + 1 + static_cast<std::uint32_t>(off), kCisn + 1, "", 1.0);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(1448, total - off));
      s.payload = as_bytes(std::string_view(mss).substr(0, n));
      s.payload_length = static_cast<std::uint32_t>(n);
      conn.feed(s);
      peak = std::max(peak, conn.buffered_bytes(S2C));
      if (peak > limit) break;
    }
    QVERIFY(peak <= limit);
    QVERIFY(conn.peak_buffered_bytes(S2C) <= limit);
    QVERIFY(conn.peak_buffered_bytes(S2C) > limit - 2000);  // it did fill up
    QCOMPARE(gaps, 1u);
    QCOMPARE(gap_offset, 0u);
    QCOMPARE(gap_bytes, 1448u);
    QCOMPARE(misplaced, 0u);
    QCOMPARE(delivered, total - 1448);
    QCOMPARE(conn.buffered_bytes(S2C), std::size_t{0});
    conn.feed(w.s2c(kSisn + 1, kCisn + 1, mss, 2.0));  // the lost segment, far too late
    conn.finish();
    QCOMPARE(delivered, total - 1448);
    QCOMPARE(conn.health().retransmissions, 1u);
    QCOMPARE(conn.health().gaps, 1u);
  }

  void newConnectionOnReusedTupleAfterFin() {
    Wire w;
    std::vector<std::unique_ptr<Recorder>> recs;
    TcpTracker tracker([&](TcpConnection&) {
      recs.push_back(std::make_unique<Recorder>());
      return recs.back()->events();
    });
    tracker.feed(w.c2s(kCisn, 0, "", 0, kSyn));
    tracker.feed(w.s2c(kSisn, kCisn + 1, "", 0.1, kSyn | kAck));
    tracker.feed(w.c2s(kCisn + 1, kSisn + 1, "one", 0.2));
    tracker.feed(w.s2c(kSisn + 1, kCisn + 4, "ONE", 0.3, kFin | kAck | kPsh));
    tracker.feed(w.c2s(kCisn + 4, kSisn + 5, "", 0.4, kFin | kAck));
    Wire other;  // another connection, interleaved
    other.client.port = 40001;
    tracker.feed(other.c2s(7, 0, "", 0.45, kSyn));
    QCOMPARE(tracker.connections(), std::size_t{2});
    tracker.feed(w.c2s(90000, 0, "", 1.0, kSyn));
    tracker.feed(w.c2s(90000, 0, "", 1.5, kSyn));  // its retransmission: same connection
    tracker.feed(w.s2c(70000, 90001, "", 1.6, kSyn | kAck));
    tracker.feed(w.c2s(90001, 70001, "two", 2.0));
    tracker.finish();
    QCOMPARE(tracker.connections(), std::size_t{3});
    QCOMPARE(recs.size(), std::size_t{3});
    const TcpConnection& first = tracker.connection(0);
    const TcpConnection& again = tracker.connection(2);
    QVERIFY(first.finished() && first.closed());
    QCOMPARE(recs[0]->text(C2S), std::string("one"));
    QCOMPARE(recs[0]->text(S2C), std::string("ONE"));
    QCOMPARE(recs[0]->closes.size(), std::size_t{2});
    QCOMPARE(recs[2]->text(C2S), std::string("two"));
    QCOMPARE(recs[2]->data[0].offset, 0u);
    QCOMPARE(*again.syn_ts, 1.0);
    QCOMPARE(*again.synack_ts, 1.6);
    QCOMPARE(again.health().retransmissions, 1u);
    QCOMPARE(first.health().retransmissions, 0u);
    QCOMPARE(again.name(), first.name());
    QCOMPARE(tracker.connection(1).client().port, std::uint16_t{40001});
  }

  void newConnectionAfterFinOrRstWithoutAKnownSyn() {
    Wire w;
    int created = 0;
    TcpTracker tracker([&](TcpConnection&) {
      ++created;
      return TcpEvents{};
    });
    tracker.feed(w.c2s(500, 900, "mid-stream", 1.0));  // no handshake seen: no ISN to compare
    tracker.feed(w.c2s(510, 900, "", 2.0, kFin | kAck));
    tracker.feed(w.c2s(600, 0, "", 3.0, kSyn));  // after a FIN: new
    tracker.feed(w.s2c(800, 601, "", 3.1, kSyn | kAck));
    tracker.feed(w.s2c(801, 601, "", 3.2, kRst | kAck));
    tracker.feed(w.c2s(600, 0, "", 4.0, kSyn));  // same ISN, but after an RST: new
    tracker.finish();
    QCOMPARE(created, 3);
    QCOMPARE(tracker.connections(), std::size_t{3});
    QVERIFY(tracker.connection(0).health().fin_client);
    QVERIFY(tracker.connection(1).health().rst);
    QCOMPARE(*tracker.connection(2).syn_ts, 4.0);
  }
};

QTEST_GUILESS_MAIN(TestTcpReassembly)
#include "test_tcp_reassembly.moc"
