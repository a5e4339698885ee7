// Packets and pcapng blocks built by hand, byte by byte, for the capture reader's tests: link
// layers (Ethernet with VLAN tags, Linux cooked v1 and v2, BSD loopback), IPv4 and IPv6 with
// options and extension headers, TCP with its checksum, and pcapng blocks in either byte order.
#pragma once

#include <QFloat16>
#include <QTest>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "capture/capture_file.h"
#include "capture/packet.h"
#include "util/bytes.h"

namespace anthro::test {

using Ip4 = std::array<std::uint8_t, 4>;
using Ip6 = std::array<std::uint8_t, 16>;
const Ip4 kClient4{10, 0, 0, 1}, kServer4{10, 0, 0, 2};
const Ip6 kClient6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const Ip6 kServer6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
constexpr std::int64_t kT0 = 1700000000123456789;

inline void put(Bytes& out, ByteView b) { out.insert(out.end(), b.begin(), b.end()); }
inline Bytes cat(std::initializer_list<ByteView> parts) {
  Bytes out;
  for (auto p : parts) put(out, p);
  return out;
}
inline Bytes text_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

// Written independently of packet.cpp: a plain 16-bit ones' complement sum.
inline std::uint16_t inet_checksum(const Bytes& data) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < data.size(); i += 2)
    sum += static_cast<std::uint32_t>(data[i] << 8 | (i + 1 < data.size() ? data[i + 1] : 0));
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

inline Bytes tcp(std::uint16_t sport, std::uint16_t dport, std::uint8_t flags, const Bytes& payload, const Bytes& options = {},
          std::uint32_t seq = 1000) {
  Bytes t(20, 0);
  store_u16(&t[0], sport);
  store_u16(&t[2], dport);
  store_u32(&t[4], seq);
  store_u32(&t[8], 77);
  t[12] = static_cast<std::uint8_t>((20 + options.size()) / 4 << 4);
  t[13] = flags;
  store_u16(&t[14], 65535);
  put(t, options);
  put(t, payload);
  return t;
}

inline void fill_checksum(Bytes& seg, ByteView src, ByteView dst) {
  Bytes pseudo = cat({src, dst});
  if (src.size() == 4) {
    pseudo.push_back(0);
    pseudo.push_back(6);
    append_u16(pseudo, static_cast<std::uint16_t>(seg.size()));
  } else {
    append_u32(pseudo, static_cast<std::uint32_t>(seg.size()));
    append_u32(pseudo, 6);
  }
  store_u16(&seg[16], 0);
  store_u16(&seg[16], inet_checksum(cat({pseudo, seg})));
}

inline Bytes ipv4(Ip4 src, Ip4 dst, Bytes l4, std::uint8_t proto = 6, const Bytes& options = {}, std::uint16_t frag = 0x4000) {
  if (proto == 6 && (frag & 0x1FFF) == 0 && (frag & 0x2000) == 0) fill_checksum(l4, src, dst);
  Bytes ip(20, 0);
  ip[0] = static_cast<std::uint8_t>(0x40 | (20 + options.size()) / 4);
  store_u16(&ip[2], static_cast<std::uint16_t>(20 + options.size() + l4.size()));
  store_u16(&ip[6], frag);
  ip[8] = 64;
  ip[9] = proto;
  std::copy(src.begin(), src.end(), ip.begin() + 12);
  std::copy(dst.begin(), dst.end(), ip.begin() + 16);
  put(ip, options);
  put(ip, l4);
  return ip;
}

// `ext` is a chain of extension headers whose first type is `first` and whose last names TCP (6).
inline Bytes ipv6(Ip6 src, Ip6 dst, Bytes l4, std::uint8_t first = 6, const Bytes& ext = {}, bool checksum = true) {
  if (checksum) fill_checksum(l4, src, dst);
  Bytes ip(8, 0);
  ip[0] = 0x60;
  store_u16(&ip[4], static_cast<std::uint16_t>(ext.size() + l4.size()));
  ip[6] = first;
  ip[7] = 64;
  return cat({ip, src, dst, ext, l4});
}

inline Bytes ethernet(const Bytes& ip, std::uint16_t type, const std::vector<std::uint16_t>& tag_types = {}) {
  Bytes f = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6};
  for (std::uint16_t tpid : tag_types) {
    append_u16(f, tpid);
    append_u16(f, 100);  // TCI: VLAN 100
  }
  append_u16(f, type);
  put(f, ip);
  return f;
}
inline Bytes sll(const Bytes& ip, std::uint16_t proto) {
  Bytes h = {0, 0, 0, 1, 0, 6, 0, 1, 2, 3, 4, 5, 0, 0};
  append_u16(h, proto);
  return cat({h, ip});
}
inline Bytes sll2(const Bytes& ip, std::uint16_t proto) {
  Bytes h;
  append_u16(h, proto);
  append_u16(h, 0);
  append_u32(h, 3);  // interface index
  append_u16(h, 1);  // ARPHRD_ETHER
  h.push_back(0);
  h.push_back(6);
  put(h, Bytes{0, 1, 2, 3, 4, 5, 0, 0});
  return cat({h, ip});
}
inline Bytes loopback(const Bytes& ip, std::uint32_t af, bool big) {
  Bytes h(4);
  for (int i = 0; i < 4; ++i) h[big ? 3 - i : i] = static_cast<std::uint8_t>(af >> (8 * i));
  return cat({h, ip});
}

inline RawPacket raw(std::uint32_t link, const Bytes& data) {
  RawPacket p;
  p.link_type = link;
  p.data = data;
  p.original_length = static_cast<std::uint32_t>(data.size());
  return p;
}

inline TcpSegment must_parse(std::uint32_t link, const Bytes& data) {
  auto r = parse_tcp(raw(link, data));
  if (!r) qFatal("parse_tcp failed: %s", r.error().detail.c_str());
  if (!*r) qFatal("parse_tcp: not TCP");
  return **r;
}

// A pcapng block in either byte order, built by hand (body padded to 4).
struct Ng {
  bool big = false;
  Bytes out;
  void u16(Bytes& b, std::uint16_t v) const {
    if (big) append_u16(b, v);
    else b.insert(b.end(), {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8)});
  }
  void u32(Bytes& b, std::uint32_t v) const {
    u16(b, static_cast<std::uint16_t>(big ? v >> 16 : v));
    u16(b, static_cast<std::uint16_t>(big ? v : v >> 16));
  }
  void block(std::uint32_t type, Bytes body) {
    while (body.size() % 4) body.push_back(0);
    auto len = static_cast<std::uint32_t>(body.size() + 12);
    u32(out, type);
    u32(out, len);
    put(out, body);
    u32(out, len);
  }
  void shb() {
    Bytes b;
    u32(b, 0x1A2B3C4D);
    u32(b, big ? 0x00010000 : 0x00000001);  // version 1.0
    put(b, Bytes(8, 0xFF));
    block(0x0A0D0D0A, b);
  }
  void idb(std::uint16_t link, Bytes options = {}) {
    Bytes b;
    u32(b, big ? std::uint32_t{link} << 16 : link);  // link type, reserved
    u32(b, 0);
    put(b, options);
    block(1, b);
  }
  Bytes option(std::uint16_t code, const Bytes& value) const {
    Bytes b;
    u16(b, code);
    u16(b, static_cast<std::uint16_t>(value.size()));
    put(b, value);
    while (b.size() % 4) b.push_back(0);
    return b;
  }
  void epb(std::uint32_t type, std::uint32_t iface, std::uint64_t ticks, const Bytes& data) {
    Bytes b;
    if (type == 6) u32(b, iface);
    else u16(b, static_cast<std::uint16_t>(iface)), u16(b, 0);
    u32(b, static_cast<std::uint32_t>(ticks >> 32));
    u32(b, static_cast<std::uint32_t>(ticks));
    u32(b, static_cast<std::uint32_t>(data.size()));
    u32(b, static_cast<std::uint32_t>(data.size()));
    put(b, data);
    block(type, b);
  }
};

}  // namespace anthro::test
