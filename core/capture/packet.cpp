// parse_tcp: link layer -> IPv4/IPv6 (options, extension headers, fragments) -> TCP.
#include "capture/packet.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace anthro {

namespace {

using Parsed = Result<std::optional<TcpSegment>>;

Parsed not_tcp() { return std::optional<TcpSegment>(); }

// The caller knows which packet; the detail says what is wrong with it.
Error bad(const std::string& what) {
  return make_error("packet", what);
}

std::string needs(const char* what, std::size_t need, std::size_t have) {
  return std::string(what) + " needs " + std::to_string(need) + " bytes, " + std::to_string(have) + " captured";
}

// Where the network header starts and which IP version it is (0: not IP).
struct Net {
  int version = 0;
  std::size_t offset = 0;
};

int version_of_ethertype(std::uint16_t type) { return type == 0x0800 ? 4 : type == 0x86DD ? 6 : 0; }

// From an EtherType field at `at` (the payload follows it), through any 802.1Q/802.1ad tags.
Result<Net> after_ethertype(const RawPacket& p, std::size_t at, const char* link) {
  const ByteView d = p.data;
  for (;;) {
    if (at + 2 > d.size()) return bad(needs(link, at + 2, d.size()));
    std::uint16_t type = load_u16(&d[at]);
    if (type == 0x8100 || type == 0x88a8 || type == 0x9100) {  // tag: TCI, then the inner EtherType
      at += 4;
      continue;
    }
    return Net{version_of_ethertype(type), at + 2};
  }
}

int version_of_af(std::uint32_t af) {
  if (af == 2) return 4;                             // AF_INET everywhere
  if (af == 24 || af == 28 || af == 30) return 6;    // AF_INET6: OpenBSD/NetBSD, FreeBSD, macOS
  if (af == 10) return 6;                            // AF_INET6 on Linux, seen in some loopback captures
  return 0;
}

Result<Net> link_layer(const RawPacket& p) {
  const ByteView d = p.data;
  switch (p.link_type) {
    case kLinkEthernet:
      return after_ethertype(p, 12, "Ethernet header");
    case kLinkSll:
      if (d.size() < 16) return bad(needs("Linux cooked (SLL) header", 16, d.size()));
      return after_ethertype(p, 14, "Linux cooked (SLL) header");
    case kLinkSll2: {
      if (d.size() < 20) return bad(needs("Linux cooked (SLL2) header", 20, d.size()));
      std::uint16_t type = load_u16(&d[0]);
      if (type == 0x8100 || type == 0x88a8 || type == 0x9100) return after_ethertype(p, 22, "SLL2 VLAN tag");
      return Net{version_of_ethertype(type), 20};
    }
    case kLinkNull:
    case kLinkLoop: {
      if (d.size() < 4) return bad(needs("loopback header", 4, d.size()));
      std::uint32_t af = load_u32(&d[0]);
      if (p.link_type == kLinkNull && af > 0xFFFF)  // written in the capturing host's byte order
        af = std::uint32_t{d[0]} | std::uint32_t{d[1]} << 8 | std::uint32_t{d[2]} << 16 | std::uint32_t{d[3]} << 24;
      return Net{version_of_af(af), 4};
    }
    case kLinkRaw:
    case 12:
    case 14:
    case kLinkIpv4:
    case kLinkIpv6: {
      if (d.empty()) return bad("empty raw IP packet");
      int v = d[0] >> 4;
      if (p.link_type == kLinkIpv4 && v != 4) return bad("IPv4 link type but IP version " + std::to_string(v));
      if (p.link_type == kLinkIpv6 && v != 6) return bad("IPv6 link type but IP version " + std::to_string(v));
      return Net{v == 4 || v == 6 ? v : 0, 0};
    }
    default:
      return Net{};
  }
}

std::uint16_t fold(std::uint64_t acc) {
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  return static_cast<std::uint16_t>(acc);
}

// RFC 1071's sum of the 16-bit words at `p` (a last odd byte padded with zero), added to `acc`.
// Eight bytes a step in the machine's order: the ones' complement sum of byte-swapped words is
// the byte-swapped sum (RFC 1071 2(B)), so one swap at the end gives the network-order sum.
std::uint64_t sum_words(const std::uint8_t* p, std::size_t n, std::uint64_t acc) {
  std::uint64_t sum = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    sum += w;
    sum += sum < w;  // the end-around carry
  }
  std::uint64_t rest = 0;  // at most 7 bytes, in the machine's order
  std::memcpy(&rest, p + i, n - i);
  sum += rest;
  sum += sum < rest;
  auto folded = fold((sum & 0xFFFFFFFF) + (sum >> 32));
  if constexpr (std::endian::native == std::endian::little) folded = static_cast<std::uint16_t>(folded << 8 | folded >> 8);
  return acc + folded;
}

// What the IP layer says about the TCP segment.
struct IpPart {
  std::size_t tcp_offset = 0;   // into the packet data
  std::size_t tcp_length = 0;   // per the IP header
  std::size_t captured = 0;     // TCP bytes present (at most tcp_length)
  bool checkable = true;        // false for first fragments, TSO zero lengths, unknown routing
  const std::uint8_t* src = nullptr;
  const std::uint8_t* dst = nullptr;  // the final destination, for the pseudo-header
  int version = 4;
};

// IPv4: nullopt when not TCP or not the first fragment.
Result<std::optional<IpPart>> ipv4(const RawPacket& p, std::size_t off) {
  const std::uint8_t* ip = p.data.data() + off;
  const std::size_t cap = p.data.size() - off;
  if (cap < 20) return bad(needs("IPv4 header", 20, cap));
  if (ip[0] >> 4 != 4) return bad("IPv4 packet with IP version " + std::to_string(ip[0] >> 4));
  const std::size_t ihl = std::size_t{ip[0] & 0x0Fu} * 4;
  if (ihl < 20) return bad("IPv4 header length " + std::to_string(ihl) + " is below 20");
  if (cap < ihl) return bad(needs("IPv4 header with options", ihl, cap));
  IpPart r;
  std::size_t total = load_u16(ip + 2);
  if (total == 0) {  // segmentation offload: the NIC fills the length in after capture
    total = cap;
    r.checkable = false;
  } else if (total < ihl) {
    return bad("IPv4 total length " + std::to_string(total) + " is shorter than its " + std::to_string(ihl) +
                      "-byte header");
  }
  if (ip[9] != 6) return std::optional<IpPart>();
  const std::uint16_t frag = load_u16(ip + 6);
  if ((frag & 0x1FFF) != 0) return std::optional<IpPart>();  // a later fragment: no TCP header here
  if (frag & 0x2000) r.checkable = false;                      // first fragment: the rest is elsewhere
  r.tcp_offset = off + ihl;
  r.tcp_length = total - ihl;
  r.captured = std::min(cap, total) - ihl;
  r.src = ip + 12;
  r.dst = ip + 16;
  r.version = 4;
  return std::optional<IpPart>(r);
}

// IPv6 with hop-by-hop, routing, destination options, fragment and AH extension headers.
Result<std::optional<IpPart>> ipv6(const RawPacket& p, std::size_t off) {
  const std::uint8_t* ip = p.data.data() + off;
  const std::size_t cap = p.data.size() - off;
  if (cap < 40) return bad(needs("IPv6 header", 40, cap));
  if (ip[0] >> 4 != 6) return bad("IPv6 packet with IP version " + std::to_string(ip[0] >> 4));
  IpPart r;
  r.version = 6;
  r.src = ip + 8;
  r.dst = ip + 24;
  std::size_t plen = load_u16(ip + 4);
  std::size_t end = 40 + plen;
  if (plen == 0) {  // a jumbogram or segmentation offload: trust what was captured
    end = cap;
    r.checkable = false;
  }
  std::uint8_t next = ip[6];
  std::size_t at = 40;
  while (next != 6) {
    if (next != 0 && next != 43 && next != 44 && next != 60 && next != 51) return std::optional<IpPart>();
    if (at + 8 > cap) return bad(needs("IPv6 extension header", at + 8, cap));
    const std::uint8_t* h = ip + at;
    std::size_t len = next == 44 ? 8 : next == 51 ? (std::size_t{h[1]} + 2) * 4 : (std::size_t{h[1]} + 1) * 8;
    if (at + len > cap) return bad(needs("IPv6 extension header", at + len, cap));
    if (next == 44) {
      if ((load_u16(h + 2) >> 3) != 0) return std::optional<IpPart>();  // a later fragment
      if (h[3] & 1) r.checkable = false;
    } else if (next == 43 && h[3] > 0) {  // segments left: the pseudo-header uses the final address
      std::size_t addresses = std::size_t{h[1]} / 2;
      if ((h[2] == 0 || h[2] == 2) && addresses > 0)
        r.dst = h + 8 + (addresses - 1) * 16;
      else
        r.checkable = false;
    }
    next = h[0];
    at += len;
  }
  if (at > end) return bad("IPv6 extension headers end at byte " + std::to_string(at) + ", past the " +
                                  std::to_string(end) + "-byte packet");
  r.tcp_offset = off + at;
  r.tcp_length = end - at;
  r.captured = std::min(cap, end) - at;
  return std::optional<IpPart>(r);
}

bool checksum_valid(const IpPart& ip, const std::uint8_t* tcp) {
  std::uint64_t acc = 0;
  const std::size_t addr = ip.version == 4 ? 4 : 16;
  acc = sum_words(ip.src, addr, acc);
  acc = sum_words(ip.dst, addr, acc);
  acc += 6;
  acc += ip.tcp_length;  // 16 bits for IPv4, 32 for IPv6: the same sum either way
  acc = sum_words(tcp, ip.tcp_length, acc);
  return fold(acc) == 0xFFFF;
}

IpEndpoint endpoint(const std::uint8_t* addr, int version, std::uint16_t port) {
  IpEndpoint e;
  e.v6 = version == 6;
  std::memcpy(e.address.data(), addr, e.v6 ? 16 : 4);
  e.port = port;
  return e;
}

}  // namespace

bool link_type_supported(std::uint32_t link_type) {
  switch (link_type) {
    case kLinkNull: case kLinkEthernet: case kLinkRaw: case 12: case 14: case kLinkLoop:
    case kLinkSll: case kLinkIpv4: case kLinkIpv6: case kLinkSll2:
      return true;
    default:
      return false;
  }
}

Result<std::optional<TcpSegment>> parse_tcp(const RawPacket& packet) {
  auto net = link_layer(packet);
  if (!net) return net.error();
  if (net->version == 0) return not_tcp();
  auto part = net->version == 4 ? ipv4(packet, net->offset) : ipv6(packet, net->offset);
  if (!part) return part.error();
  if (!*part) return not_tcp();
  const IpPart& ip = **part;

  if (ip.tcp_length < 20)
    return bad("TCP segment of " + std::to_string(ip.tcp_length) + " bytes is shorter than a TCP header");
  if (ip.captured < 20) return bad(needs("TCP header", 20, ip.captured));
  const std::uint8_t* tcp = packet.data.data() + ip.tcp_offset;
  const std::size_t doff = static_cast<std::size_t>(tcp[12] >> 4) * 4;
  if (doff < 20) return bad("TCP data offset " + std::to_string(doff) + " is below 20");
  if (doff > ip.tcp_length)
    return bad("TCP data offset " + std::to_string(doff) + " exceeds the segment's " +
                           std::to_string(ip.tcp_length) + " bytes");
  if (doff > ip.captured) return bad(needs("TCP header with options", doff, ip.captured));

  TcpSegment s;
  s.ts = packet.ts;
  s.packet_index = packet.index;
  s.src = endpoint(ip.src, ip.version, load_u16(tcp));
  s.dst = endpoint(ip.dst, ip.version, load_u16(tcp + 2));
  s.seq = load_u32(tcp + 4);
  s.ack = load_u32(tcp + 8);
  s.flags = tcp[13];
  s.window = load_u16(tcp + 14);
  for (std::size_t i = 20; i < doff;) {  // malformed options end the walk; they are not fatal
    const std::uint8_t kind = tcp[i];
    if (kind == 0) break;
    if (kind == 1) {
      ++i;
      continue;
    }
    if (i + 1 >= doff) break;
    const std::size_t len = tcp[i + 1];
    if (len < 2 || i + len > doff) break;
    if (kind == 3 && len == 3 && (s.flags & kSyn)) s.window_scale = tcp[i + 2];
    i += len;
  }
  s.payload = ByteView(tcp + doff, ip.captured - doff);
  s.payload_length = static_cast<std::uint32_t>(ip.tcp_length - doff);
  if (ip.checkable && ip.captured == ip.tcp_length) {
    s.checksum_checked = true;
    s.checksum_ok = checksum_valid(ip, tcp);
  }
  return std::optional<TcpSegment>(std::move(s));
}

}  // namespace anthro
