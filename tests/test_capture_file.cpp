// Capture files (pcap, pcapng) read and written, and packets decoded down to TCP.
#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include "capture/capture_file.h"
#include "capture/packet.h"
#include "packet_builders.h"
#include "vectors.h"

using namespace anthro;

namespace {

using namespace anthro::test;

void write_bytes(const QString& path, const Bytes& b) {
  std::ofstream(path.toStdString(), std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
Bytes read_bytes(const QString& path) { return text_bytes(test::read_file(path.toStdString())); }

std::vector<RawPacket> read_all(CaptureReader& r, std::vector<Bytes>& keep) {
  std::vector<RawPacket> out;
  keep.clear();
  keep.reserve(1024);
  while (auto p = r.next()) {
    keep.emplace_back(p->data.begin(), p->data.end());  // data is only valid until the next call
    p->data = keep.back();
    out.push_back(*p);
  }
  return out;
}

std::unique_ptr<CaptureReader> must_open(const QString& path) {
  auto r = CaptureReader::open(path.toStdString());
  if (!r) qFatal("open failed: %s", r.error().detail.c_str());
  return std::move(*r);
}

}  // namespace

class TestCaptureFile : public QObject {
  Q_OBJECT
 private slots:
  void readsTheVectorCapture() {
    auto r = must_open(QString::fromStdString(test::vectors_path("lab-conversation.pcap")));
    QCOMPARE(r->format(), CaptureReader::Format::pcap);
    QCOMPARE(r->interfaces().at(0).link_type, kLinkEthernet);
    std::vector<Bytes> keep;
    auto packets = read_all(*r, keep);
    QCOMPARE(packets.size(), std::size_t{14});
    QVERIFY(r->warnings().empty() && !r->error());
    QCOMPARE(r->position(), r->file_size());
    QCOMPARE(packets[0].file_offset, std::uint64_t{24});
    QCOMPARE(packets[0].ts_ns, std::int64_t{1700000000000000000});
    QCOMPARE(packets[6].ts_ns, std::int64_t{1700000000190000000});
    QCOMPARE(packets[6].ts, 1700000000.19);

    Bytes c2s, s2c;
    for (const auto& p : packets) {
      auto seg = parse_tcp(p);
      QVERIFY2(seg && *seg, "every packet is TCP");
      const TcpSegment& s = **seg;
      QVERIFY(s.checksum_checked && s.checksum_ok);
      QCOMPARE(s.payload.size(), std::size_t{s.payload_length});
      QVERIFY(s.src.port == 7080 || s.dst.port == 7080);
      put(s.dst.port == 7080 ? c2s : s2c, s.payload);
      if (p.index == 0) {
        QCOMPARE(s.flags, kSyn);
        QCOMPARE(QString::fromStdString(s.src.text()), QString("127.0.0.1:40000"));
        QCOMPARE(QString::fromStdString(s.dst.text()), QString("127.0.0.1:7080"));
      }
    }
    QCOMPARE(to_hex(c2s), to_hex(test::hex(test::vectors()["conversation"]["client_to_server"])));
    QCOMPARE(to_hex(s2c), to_hex(test::hex(test::vectors()["conversation"]["server_to_client"])));

    QVERIFY(r->seek(packets[3].file_offset, 3));  // random access back to packet 4
    auto again = r->next();
    QVERIFY(again && again->index == 3 && again->ts_ns == packets[3].ts_ns);
    QCOMPARE(to_hex(again->data), to_hex(keep[3]));
  }

  void pcapngRoundTrip() {
    QTemporaryDir dir;
    const QString path = dir.filePath("round.pcapng");
    auto w = PcapngWriter::create(path.toStdString());
    QVERIFY(w);
    auto& writer = **w;
    QCOMPARE(writer.add_interface(kLinkEthernet, 65535, "eth0"), 0u);
    QCOMPARE(writer.add_interface(kLinkSll2, 262144, "any"), 1u);
    QCOMPARE(writer.add_interface(kLinkIpv6, 1500), 2u);
    writer.add_secrets("CLIENT_RANDOM 00 11\n");
    std::vector<Bytes> frames = {
        ethernet(ipv4(kClient4, kServer4, tcp(40000, 7080, kSyn, {})), 0x0800),
        sll2(ipv4(kServer4, kClient4, tcp(7080, 40000, kSyn | kAck, {})), 0x0800),
        ipv6(kClient6, kServer6, tcp(40001, 7443, kAck | kPsh, text_bytes("hello"))),
        ethernet(ipv4(kClient4, kServer4, tcp(40000, 7080, kAck, text_bytes("x"))), 0x0800),
    };
    const std::uint32_t ifaces[] = {0, 1, 2, 0};
    for (std::size_t i = 0; i < frames.size(); ++i)
      writer.write_packet_ns(ifaces[i], kT0 + std::int64_t(i) * 1001, frames[i], i == 3 ? 1514 : 0);
    writer.write_packet(1, 1700000000.25, frames[1], 0);
    writer.add_secrets("ANTHRO_V1 aa bb\n");
    QVERIFY(QFile::exists(path + ".tmp") && !QFile::exists(path));  // nothing half-written at PATH
    QVERIFY(writer.close());
    QVERIFY(QFile::exists(path) && !QFile::exists(path + ".tmp"));

    auto r = must_open(path);
    QCOMPARE(r->format(), CaptureReader::Format::pcapng);
    std::vector<Bytes> keep;
    auto packets = read_all(*r, keep);
    QVERIFY(r->warnings().empty());
    QCOMPARE(packets.size(), std::size_t{5});
    QCOMPARE(r->interfaces().size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(r->interfaces()[0].name), QString("eth0"));
    QCOMPARE(QString::fromStdString(r->interfaces()[1].name), QString("any"));
    QCOMPARE(r->interfaces()[1].snaplen, 262144u);
    QCOMPARE(r->secrets(), (std::vector<std::string>{"CLIENT_RANDOM 00 11\n", "ANTHRO_V1 aa bb\n"}));
    const std::uint32_t links[] = {kLinkEthernet, kLinkSll2, kLinkIpv6};
    for (std::size_t i = 0; i < frames.size(); ++i) {
      QCOMPARE(packets[i].interface, ifaces[i]);
      QCOMPARE(packets[i].link_type, links[ifaces[i]]);
      QCOMPARE(packets[i].ts_ns, kT0 + std::int64_t(i) * 1001);  // exact to the nanosecond
      QCOMPARE(to_hex(packets[i].data), to_hex(frames[i]));
      QCOMPARE(packets[i].index, std::uint64_t(i));
    }
    QCOMPARE(packets[3].original_length, 1514u);
    QCOMPARE(packets[4].ts_ns, std::int64_t{1700000000250000000});
    QCOMPARE(QString::fromStdString(must_parse(packets[1].link_type, keep[1]).src.text()), QString("10.0.0.2:7080"));
    auto v6 = must_parse(packets[2].link_type, keep[2]);
    QCOMPARE(QString::fromStdString(v6.src.text()), QString("[2001:db8::1]:40001"));
    QCOMPARE(QString::fromStdString(v6.dst.text()), QString("[2001:db8::2]:7443"));
    QVERIFY(v6.checksum_ok && v6.checksum_checked);

    QVERIFY(r->seek(packets[1].file_offset, 1));
    auto again = read_all(*r, keep);
    QCOMPARE(again.size(), std::size_t{4});
    QCOMPARE(again[0].ts_ns, packets[1].ts_ns);
    QCOMPARE(r->secrets().size(), std::size_t{2});  // not collected twice
    QCOMPARE(r->interfaces().size(), std::size_t{3});
    QVERIFY(!r->seek(r->file_size() + 4, 0));
  }

  void pcapngSectionsResolutionsAndBlockKinds() {
    Ng le;
    le.shb();
    le.idb(kLinkEthernet);  // no if_tsresol: microseconds
    le.epb(6, 0, 1700000000ull * 1000000 + 5, ethernet(Bytes(20, 0), 0x0806));
    le.block(4, Bytes(8, 0));  // name resolution: skipped
    Bytes spb;
    le.u32(spb, 5);
    put(spb, Bytes{1, 2, 3, 4, 5});
    le.block(3, spb);
    le.block(5, Bytes(12, 0));  // interface statistics: skipped
    Ng be{true, {}};
    be.shb();
    be.idb(kLinkRaw, be.option(9, {0x80 | 20}));  // 2^-20 s
    Bytes tsoffset;
    be.u32(tsoffset, 0);
    be.u32(tsoffset, 100);
    be.idb(kLinkSll, cat({be.option(9, {3}), be.option(14, tsoffset), be.option(2, text_bytes("lo"))}));
    be.epb(6, 0, (5ull << 20) + (1ull << 19), ipv4(kClient4, kServer4, tcp(1, 2, kAck, {})));
    be.block(0x0BAD, Bytes(16, 7));  // unknown: skipped by its length
    be.epb(2, 1, 1500, sll(ipv4(kClient4, kServer4, tcp(3, 4, kAck, {})), 0x0800));  // obsolete packet block
    Bytes dsb;
    be.u32(dsb, kSecretsTlsKeyLog);
    be.u32(dsb, 3);
    put(dsb, text_bytes("abc"));
    be.block(10, dsb);
    QTemporaryDir dir;
    write_bytes(dir.filePath("two.pcapng"), cat({le.out, be.out}));

    auto r = must_open(dir.filePath("two.pcapng"));
    std::vector<Bytes> keep;
    auto p = read_all(*r, keep);
    QVERIFY2(r->warnings().empty(), r->warnings().empty() ? "" : r->warnings()[0].c_str());
    QCOMPARE(p.size(), std::size_t{4});
    QCOMPARE(p[0].ts_ns, std::int64_t{1700000000000005000});
    QCOMPARE(to_hex(p[1].data), std::string("0102030405"));  // SPB: padding is not packet data
    QCOMPARE(p[1].interface, 0u);
    QVERIFY(p[2].interface == 1 && p[2].link_type == kLinkRaw);
    QCOMPARE(p[2].ts_ns, std::int64_t{5500000000});
    QVERIFY(p[3].interface == 2 && p[3].link_type == kLinkSll);
    QCOMPARE(p[3].ts_ns, std::int64_t{101500000000});
    QCOMPARE(r->interfaces()[2].section, 1u);
    QCOMPARE(QString::fromStdString(r->interfaces()[2].name), QString("lo"));
    QCOMPARE(r->secrets(), std::vector<std::string>{"abc"});
    QCOMPARE(must_parse(p[3].link_type, keep[3]).dst.port, std::uint16_t{4});
    QVERIFY(r->seek(p[3].file_offset, 3));  // into the big-endian section
    auto again = r->next();
    QVERIFY(again && again->ts_ns == p[3].ts_ns && again->interface == 2);
  }

  void classicPcapBothResolutionsAndByteOrders() {
    QTemporaryDir dir;
    for (bool nano : {false, true})
      for (bool big : {false, true}) {
        const QString path = dir.filePath(QString("c%1%2.pcap").arg(nano).arg(big));
        auto w = PcapWriter::create(path.toStdString(), kLinkSll, nano, big);
        QVERIFY(w);
        Bytes frame = sll(ipv4(kClient4, kServer4, tcp(5, 6, kAck, text_bytes("abc"))), 0x0800);
        for (int i = 0; i < 3; ++i) (*w)->write_packet_ns(kT0 + i, frame, i == 2 ? 9000 : 0);
        QVERIFY((*w)->close());
        const Bytes file = read_bytes(path);
        const std::string magic = to_hex(ByteView(file).first(4));
        const char* expect = nano ? (big ? "a1b23c4d" : "4d3cb2a1") : (big ? "a1b2c3d4" : "d4c3b2a1");
        QCOMPARE(magic, std::string(expect));
        auto r = must_open(path);
        std::vector<Bytes> keep;
        auto p = read_all(*r, keep);
        QCOMPARE(p.size(), std::size_t{3});
        QCOMPARE(r->interfaces()[0].link_type, kLinkSll);
        QCOMPARE(r->interfaces()[0].snaplen, 262144u);
        for (int i = 0; i < 3; ++i) {
          QCOMPARE(p[i].ts_ns, nano ? kT0 + i : kT0 / 1000 * 1000);
          QCOMPARE(to_hex(p[i].data), to_hex(frame));
          QCOMPARE(p[i].link_type, kLinkSll);
        }
        QCOMPARE(p[2].original_length, 9000u);
        QCOMPARE(must_parse(kLinkSll, keep[0]).src.port, std::uint16_t{5});
      }
  }

  void truncatedFilesKeepWhatCameBefore() {
    QTemporaryDir dir;
    const QString path = dir.filePath("t.pcap");
    auto w = PcapWriter::create(path.toStdString(), kLinkEthernet);
    QVERIFY(w);
    for (int i = 0; i < 5; ++i) (*w)->write_packet_ns(kT0, Bytes(100, std::uint8_t(i)), 0);
    QVERIFY((*w)->close());
    const Bytes whole = read_bytes(path);
    QCOMPARE(whole.size(), std::size_t{24 + 5 * 116});
    struct Cut { std::size_t at; const char* warning; } cuts[] = {
        {24 + 3 * 116 + 16 + 40, "truncated at byte 428: packet 4 (at byte 372) needs 100 bytes, 40 present"},
        {24 + 3 * 116 + 5, "truncated at byte 377: packet 4 record header (at byte 372) needs 16 bytes, 5 present"},
    };
    for (const Cut& cut : cuts) {
      write_bytes(path, Bytes(whole.begin(), whole.begin() + std::ptrdiff_t(cut.at)));
      auto r = must_open(path);
      std::vector<Bytes> keep;
      QCOMPARE(read_all(*r, keep).size(), std::size_t{3});
      QCOMPARE(r->warnings().size(), std::size_t{1});
      QVERIFY2(r->warnings()[0].find(cut.warning) != std::string::npos, r->warnings()[0].c_str());
      QVERIFY(!r->error());
      QVERIFY(!r->next());  // stays at the end
    }

    const QString ng = dir.filePath("t.pcapng");
    auto n = PcapngWriter::create(ng.toStdString());
    QVERIFY(n && (*n)->add_interface(kLinkEthernet, 0) == 0);
    for (int i = 0; i < 4; ++i) (*n)->write_packet_ns(0, kT0, Bytes(60, 1), 0);
    QVERIFY((*n)->close());
    const Bytes ngw = read_bytes(ng);
    const std::size_t epb = 92, third = ngw.size() - 2 * epb;  // 32 + 60 bytes each
    write_bytes(ng, Bytes(ngw.begin(), ngw.begin() + std::ptrdiff_t(third + 50)));
    auto r = must_open(ng);
    std::vector<Bytes> keep;
    QCOMPARE(read_all(*r, keep).size(), std::size_t{2});
    const std::string expect = "truncated at byte " + std::to_string(third + 50) + ": packet 3 (enhanced packet block at byte " +
                               std::to_string(third) + ") needs 92 bytes, 50 present";
    QVERIFY2(!r->warnings().empty() && r->warnings()[0].find(expect) != std::string::npos,
             r->warnings().empty() ? "no warning" : r->warnings()[0].c_str());
  }

  void garbageGivesClearErrors() {
    QTemporaryDir dir;
    auto open_error = [&](const QString& name, const Bytes& content) {
      const QString path = dir.filePath(name);
      write_bytes(path, content);
      auto r = CaptureReader::open(path.toStdString());
      return r ? std::string("opened") : r.error().detail;
    };
    auto contains = [](const std::string& s, const std::string& part) {
      if (s.find(part) == std::string::npos) qWarning("%s lacks %s", s.c_str(), part.c_str());
      return s.find(part) != std::string::npos;
    };
    std::string e = open_error("text.pcap", text_bytes("hello, not a capture"));
    QVERIFY(contains(e, "text.pcap: not a pcap or pcapng file (magic 0x68656c6c)"));
    QVERIFY(contains(open_error("empty.pcap", {}), "empty.pcap: not a pcap or pcapng file (0 bytes long)"));
    QVERIFY(contains(open_error("gz.pcap", {0x1f, 0x8b, 8, 0, 1}), "gzip"));
    QVERIFY(contains(open_error("short.pcap", {0xd4, 0xc3, 0xb2, 0xa1, 2, 0}), "24 bytes needed, 6 present"));
    auto missing = CaptureReader::open(dir.filePath("nope.pcap").toStdString());
    QVERIFY(!missing && missing.error().reason == "io" && contains(missing.error().detail, "nope.pcap: cannot open"));
    QVERIFY(contains(CaptureReader::open(dir.path().toStdString()).error().detail, "not a regular file"));

    Ng bom;
    bom.shb();
    bom.out[8] = 0x99;
    QVERIFY(contains(open_error("bom.pcapng", bom.out), "byte-order magic"));

    auto read_error = [&](const QString& name, const Bytes& content) {
      write_bytes(dir.filePath(name), content);
      auto r = must_open(dir.filePath(name));
      std::vector<Bytes> keep;
      std::size_t n = read_all(*r, keep).size();
      return std::make_pair(n, r->error() ? r->error()->detail : std::string("no error"));
    };
    Ng base;
    base.shb();  // 28 bytes
    base.idb(kLinkEthernet);  // 20 bytes
    base.epb(6, 0, 1, Bytes(8, 0));
    Ng odd = base;
    odd.out.resize(48 + 4);
    odd.u32(odd.out, 30);  // a length that is not a multiple of 4
    odd.out.resize(100, 0);
    auto [n1, e1] = read_error("odd.pcapng", odd.out);
    QCOMPARE(n1, std::size_t{0});
    QVERIFY(contains(e1, "enhanced packet block (type 0x00000006) at byte 48 has length 30 (not a multiple of 4)"));
    Ng trail = base;
    trail.out.back() = 0x33;
    QVERIFY(contains(read_error("trail.pcapng", trail.out).second, "at byte 48: trailing length"));
    Ng iface = base;
    iface.epb(6, 5, 1, Bytes(8, 0));
    auto [n3, e3] = read_error("iface.pcapng", iface.out);
    QCOMPARE(n3, std::size_t{1});
    QVERIFY(contains(e3, "names interface 5"));
  }

  // Found by fuzz_capture (corpus/fuzz_capture/regress-timestamp-overflow): a pcapng tick count
  // or if_tsoffset whose nanoseconds overflow 64 bits (signed overflow, UB) is refused by name.
  void timestampsBeyondNanosecondRangeAreRefused() {
    QTemporaryDir dir;
    for (bool by_offset : {false, true}) {
      Ng ng;
      ng.shb();
      Bytes tsoffset;
      ng.u32(tsoffset, 0xFFFFFFFF);  // if_tsoffset: 2^63 - 1 seconds, little-endian
      ng.u32(tsoffset, 0x7FFFFFFF);
      ng.idb(kLinkEthernet, by_offset ? ng.option(14, tsoffset) : ng.option(9, {0}));  // or 1-second ticks
      ng.epb(6, 0, by_offset ? 1 : 1ull << 40, Bytes(8, 0));
      QString path = dir.filePath(by_offset ? "offset.pcapng" : "ticks.pcapng");
      write_bytes(path, ng.out);
      auto r = must_open(path);
      std::vector<Bytes> keep;
      QCOMPARE(read_all(*r, keep).size(), std::size_t{0});
      QVERIFY(r->error().has_value());
      QVERIFY2(r->error()->detail.find("enhanced packet block at byte ") != std::string::npos &&
                   r->error()->detail.find(" (packet 1): timestamp of ") != std::string::npos,
               r->error()->detail.c_str());
      QVERIFY(r->error()->detail.find("out of range") != std::string::npos);
    }
  }

  void linkLayersAndIpVariantsParse() {
    const Bytes seg = tcp(40000, 7080, kAck | kPsh, text_bytes("payload"));
    const Bytes v4 = ipv4(kClient4, kServer4, seg);
    const Bytes v6 = ipv6(kClient6, kServer6, seg);
    struct Case { const char* name; std::uint32_t link; Bytes frame; bool is_v6; } cases[] = {
        {"ethernet", kLinkEthernet, ethernet(v4, 0x0800), false},
        {"stacked vlan", kLinkEthernet, ethernet(v4, 0x0800, {0x88a8, 0x8100}), false},
        {"ethernet v6 vlan", kLinkEthernet, ethernet(v6, 0x86DD, {0x8100}), true},
        {"sll", kLinkSll, sll(v4, 0x0800), false},
        {"sll v6", kLinkSll, sll(v6, 0x86DD), true},
        {"sll2", kLinkSll2, sll2(v4, 0x0800), false},
        {"sll2 v6", kLinkSll2, sll2(v6, 0x86DD), true},
        {"null le", kLinkNull, loopback(v4, 2, false), false},
        {"null be v6", kLinkNull, loopback(v6, 30, true), true},
        {"null le v6 (24)", kLinkNull, loopback(v6, 24, false), true},
        {"loop", kLinkLoop, loopback(v4, 2, true), false},
        {"raw 101", kLinkRaw, v4, false},
        {"raw 12 v6", 12, v6, true},
        {"raw 14", 14, v4, false},
        {"ipv4", kLinkIpv4, v4, false},
        {"ipv6", kLinkIpv6, v6, true},
        {"ipv4 options", kLinkIpv4, ipv4(kClient4, kServer4, seg, 6, {1, 1, 1, 0, 0x94, 4, 0, 0}), false},
        {"ipv6 ext headers", kLinkIpv6,
         ipv6(kClient6, kServer6, seg, 0, {60, 0, 1, 4, 0, 0, 0, 0, /* hop-by-hop → dest opts */ 6, 1, 1, 12, 0,
                                           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
         true},
        {"ipv6 first fragment", kLinkIpv6, ipv6(kClient6, kServer6, seg, 44, {6, 0, 0, 1, 0, 0, 0, 9}), true},
    };
    for (const Case& c : cases) {
      auto r = parse_tcp(raw(c.link, c.frame));
      QVERIFY2(r && *r, c.name);
      const TcpSegment& s = **r;
      QCOMPARE(QString::fromStdString(s.src.text()), QString(c.is_v6 ? "[2001:db8::1]:40000" : "10.0.0.1:40000"));
      QCOMPARE(QString::fromStdString(s.dst.text()), QString(c.is_v6 ? "[2001:db8::2]:7080" : "10.0.0.2:7080"));
      QCOMPARE(as_text(s.payload), std::string_view("payload"));
      QCOMPARE(s.payload_length, 7u);
      QCOMPARE(s.flags, std::uint8_t(kAck | kPsh));
      QVERIFY(s.seq == 1000 && s.ack == 77 && s.window == 65535);
      const bool fragment = std::string(c.name) == "ipv6 first fragment";
      QVERIFY2(s.checksum_checked == !fragment && s.checksum_ok, c.name);
    }

    // SYN options: MSS, NOP, window scale 7; a window scale on a non-SYN is ignored.
    const Bytes opts = {2, 4, 0x05, 0xb4, 1, 3, 3, 7};
    auto syn = must_parse(kLinkIpv4, ipv4(kClient4, kServer4, tcp(1, 2, kSyn, {}, opts)));
    QVERIFY(syn.window_scale && *syn.window_scale == 7);
    QVERIFY(!must_parse(kLinkIpv4, ipv4(kClient4, kServer4, tcp(1, 2, kAck, {}, opts))).window_scale);
    // Ethernet padding after a short IP packet is not payload.
    Bytes padded = ethernet(ipv4(kClient4, kServer4, tcp(1, 2, kAck, {})), 0x0800);
    padded.resize(60, 0);
    auto pad = must_parse(kLinkEthernet, padded);
    QVERIFY(pad.payload.empty() && pad.checksum_ok);

    auto not_tcp = [](std::uint32_t link, const Bytes& frame) {
      auto r = parse_tcp(raw(link, frame));
      return r && !*r;
    };
    QVERIFY(not_tcp(kLinkEthernet, ethernet(Bytes(28, 0), 0x0806)));                         // ARP
    QVERIFY(not_tcp(kLinkIpv4, ipv4(kClient4, kServer4, Bytes(8, 0), 17)));                 // UDP
    QVERIFY(not_tcp(kLinkIpv4, ipv4(kClient4, kServer4, seg, 6, {}, 0x0010)));              // non-first fragment
    QVERIFY(not_tcp(kLinkIpv6, ipv6(kClient6, kServer6, seg, 44, {6, 0, 0, 0x10, 0, 0, 0, 9})));  // same in IPv6
    QVERIFY(not_tcp(147, v4));                                                               // unknown link type
    QVERIFY(!link_type_supported(147) && link_type_supported(kLinkSll2));
    auto first_frag = must_parse(kLinkIpv4, ipv4(kClient4, kServer4, seg, 6, {}, 0x2000));
    QVERIFY(!first_frag.checksum_checked);

    auto malformed = [](std::uint32_t link, const Bytes& frame, const char* what) {
      auto r = parse_tcp(raw(link, frame));
      if (r) return false;
      if (r.error().detail.find(what) == std::string::npos) qWarning("%s", r.error().detail.c_str());
      return r.error().reason == "packet" && r.error().detail.find(what) != std::string::npos;
    };
    Bytes big_offset = v4;
    big_offset[20 + 12] = 0xF0;  // data offset 60 in a 27-byte segment
    QVERIFY(malformed(kLinkIpv4, big_offset, "TCP data offset 60 exceeds the segment's 27 bytes"));
    Bytes small_offset = v4;
    small_offset[20 + 12] = 0x40;
    QVERIFY(malformed(kLinkIpv4, small_offset, "TCP data offset 16 is below 20"));
    QVERIFY(malformed(kLinkEthernet, ethernet(Bytes(v4.begin(), v4.begin() + 12), 0x0800), "IPv4 header needs 20 bytes, 12"));
    Bytes ihl = v4;
    ihl[0] = 0x44;
    QVERIFY(malformed(kLinkIpv4, ihl, "IPv4 header length 16"));
    QVERIFY(malformed(kLinkEthernet, Bytes(10, 0), "Ethernet header needs 14 bytes, 10"));
    QVERIFY(malformed(kLinkSll2, Bytes(12, 0), "SLL2"));
  }

  void badChecksumsAreFlaggedNotDropped() {
    Bytes v4 = ipv4(kClient4, kServer4, tcp(1, 2, kAck, text_bytes("data")));
    QVERIFY(must_parse(kLinkIpv4, v4).checksum_ok);
    Bytes wrong = v4;
    wrong[20 + 16] ^= 0x5A;
    auto w = must_parse(kLinkIpv4, wrong);
    QVERIFY(w.checksum_checked && !w.checksum_ok);
    QCOMPARE(as_text(w.payload), std::string_view("data"));
    Bytes zero = v4;
    zero[20 + 16] = zero[20 + 17] = 0;  // checksum offload: the NIC fills it in after capture
    auto z = must_parse(kLinkIpv4, zero);
    QVERIFY(z.checksum_checked && !z.checksum_ok);
    Bytes v6 = ipv6(kClient6, kServer6, tcp(1, 2, kAck, text_bytes("odd")));
    QVERIFY(must_parse(kLinkIpv6, v6).checksum_ok);
    v6.back() ^= 1;
    QVERIFY(!must_parse(kLinkIpv6, v6).checksum_ok);
    // Cut by the snaplen: what was captured is there, the IP length says more, nothing to verify.
    Bytes cut(v4.begin(), v4.end() - 2);
    auto c = must_parse(kLinkIpv4, cut);
    QCOMPARE(c.payload.size(), std::size_t{2});
    QCOMPARE(c.payload_length, 4u);
    QVERIFY(!c.checksum_checked && c.checksum_ok);
  }

  // The checksum is summed eight bytes a step: every payload length (each tail of 0-7 bytes,
  // odd and even), bytes that carry on every add (0xFF), and one changed byte anywhere seen.
  void checksumsOfEveryLengthAndEveryChangedByte() {
    for (std::size_t n = 0; n <= 40; ++n) {
      Bytes payload(n);
      for (std::size_t i = 0; i < n; ++i) payload[i] = static_cast<std::uint8_t>(n % 3 == 0 ? 0xFF : i * 37 + n);
      for (bool v6 : {false, true}) {
        Bytes ip = v6 ? ipv6(kClient6, kServer6, tcp(40000, 7080, kAck, payload))
                      : ipv4(kClient4, kServer4, tcp(40000, 7080, kAck, payload));
        const std::uint32_t link = v6 ? kLinkIpv6 : kLinkIpv4;
        const std::size_t tcp_at = v6 ? 40 : 20;
        auto good = must_parse(link, ip);
        QVERIFY2(good.checksum_checked && good.checksum_ok, std::to_string(n).c_str());
        for (std::size_t at = tcp_at; at < ip.size(); ++at) {
          Bytes changed = ip;
          changed[at] ^= 0x01;
          QVERIFY2(!must_parse(link, changed).checksum_ok, (std::to_string(n) + " at " + std::to_string(at)).c_str());
        }
      }
    }
  }

  // hold(): a packet's bytes stay as read while the reader goes on through a file of many
  // read buffers, whose buffers come back once let go.
  void heldPacketsOutliveTheReadersNextBuffers() {
    QTemporaryDir dir;
    const QString path = dir.filePath("held.pcapng");
    auto w = PcapngWriter::create(path.toStdString());
    QVERIFY(w);
    (*w)->add_interface(kLinkIpv4, 65535);
    const std::size_t kPackets = 9000;  // of about 1 KB: several 2 MiB buffers
    auto payload_of = [](std::size_t i) { return Bytes(1000 + i % 7, static_cast<std::uint8_t>(i * 13)); };
    for (std::size_t i = 0; i < kPackets; ++i)
      (*w)->write_packet_ns(0, kT0 + std::int64_t(i), ipv4(kClient4, kServer4, tcp(40000, 7080, kAck, payload_of(i))), 0);
    QVERIFY((*w)->close());
    QVERIFY(QFileInfo(path).size() > (6 << 20));

    auto r = must_open(path);
    std::vector<std::pair<std::shared_ptr<const void>, RawPacket>> held;  // every 500th packet, its buffer held
    std::shared_ptr<const void> last;
    std::size_t buffers = 0, n = 0;
    for (; auto p = r->next(); ++n) {
      if (!r->holds(last)) {
        last = r->hold();
        ++buffers;
      }
      QVERIFY(r->holds(last));
      if (n % 500 == 0) held.emplace_back(r->hold(), *p);
      if (held.size() > 6) held.erase(held.begin());  // let some go: their buffers are read into again
    }
    QCOMPARE(n, kPackets);
    QVERIFY2(buffers >= 3, qPrintable(QString::number(buffers)));
    for (const auto& [handle, packet] : held) {
      QVERIFY(handle);
      QCOMPARE(to_hex(packet.data),
               to_hex(ipv4(kClient4, kServer4, tcp(40000, 7080, kAck, payload_of(packet.index)))));
    }
  }

  void tsharkReadsOurPcapng() {
    const QString tshark = QStandardPaths::findExecutable("tshark");
    QVERIFY2(!tshark.isEmpty(), "tshark is not installed: run installer/deps.sh");
    QTemporaryDir dir;
    const QString path = dir.filePath("for-tshark.pcapng");
    auto w = PcapngWriter::create(path.toStdString());
    QVERIFY(w && (*w)->add_interface(kLinkEthernet, 262144, "eth0") == 0);
    (*w)->add_interface(kLinkSll2, 262144, "any");
    (*w)->add_interface(kLinkIpv6, 262144);
    (*w)->add_secrets("CLIENT_RANDOM 0011 2233\n");
    (*w)->write_packet_ns(0, kT0, ethernet(ipv4(kClient4, kServer4, tcp(40000, 7080, kSyn, {})), 0x0800), 0);
    (*w)->write_packet_ns(1, kT0 + 1, sll2(ipv4(kServer4, kClient4, tcp(7080, 40000, kSyn | kAck, {})), 0x0800), 0);
    (*w)->write_packet_ns(2, kT0 + 2, ipv6(kClient6, kServer6, tcp(40001, 7443, kAck, text_bytes("hi"))), 0);
    QVERIFY((*w)->close());

    QProcess p;
    p.start(tshark, {"-r", path, "-T", "fields", "-e", "frame.number", "-e", "tcp.srcport", "-e", "frame.time_epoch",
                     "-e", "tcp.checksum.status", "-o", "tcp.check_checksum:TRUE"});
    QVERIFY(p.waitForFinished(60000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0, err.constData());
    QVERIFY2(!err.contains("damaged") && !err.contains("corrupt"), err.constData());
    const QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).trimmed().split('\n');
    QCOMPARE(lines, (QStringList{"1\t40000\t1700000000.123456789\t1", "2\t7080\t1700000000.123456790\t1",
                                 "3\t40001\t1700000000.123456791\t1"}));
  }
};

QTEST_GUILESS_MAIN(TestCaptureFile)
#include "test_capture_file.moc"
