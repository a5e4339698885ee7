// One decoded TCP segment of a capture, as the packet decoder hands it to TCP reassembly.
// The packet decoder (capture/packet.h) includes this header rather than defining these again.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>

#include "util/bytes.h"

namespace anthro {

inline constexpr std::uint8_t kFin = 0x01;
inline constexpr std::uint8_t kSyn = 0x02;
inline constexpr std::uint8_t kRst = 0x04;
inline constexpr std::uint8_t kPsh = 0x08;
inline constexpr std::uint8_t kAck = 0x10;

// An IPv4 address occupies address[0..3] (the rest stays zero); an IPv6 address all 16 bytes.
struct IpEndpoint {
  std::array<std::uint8_t, 16> address{};
  bool v6 = false;
  std::uint16_t port = 0;
  // "1.2.3.4:80"; IPv6 in brackets, RFC 5952 text: "[::1]:80". Defined in capture/tcp_reassembly.cpp.
  std::string text() const;
  auto operator<=>(const IpEndpoint&) const = default;
};

struct TcpSegment {
  double ts = 0;
  std::uint64_t packet_index = 0;
  IpEndpoint src, dst;
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = 0;  // kFin 0x01, kSyn 0x02, kRst 0x04, kPsh 0x08, kAck 0x10
  std::uint16_t window = 0;
  std::optional<std::uint8_t> window_scale;
  ByteView payload;  // the captured bytes (may be cut short by the snaplen)
  std::uint32_t payload_length = 0;  // the length on the wire, from the IP header
  bool checksum_ok = true;
  bool checksum_checked = false;
};

}  // namespace anthro
