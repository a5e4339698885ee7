// One captured packet decoded down to its TCP segment: link layer, IPv4/IPv6, TCP.
#pragma once

#include <cstdint>
#include <optional>

#include "capture/capture_file.h"
#include "capture/tcp_segment.h"
#include "util/bytes.h"
#include "util/result.h"

namespace anthro {

// IpEndpoint, TcpSegment and the flag constants kFin, kSyn, kRst, kPsh, kAck live in
// capture/tcp_segment.h, shared with TCP reassembly (IpEndpoint::text() is defined there too).
// parse_tcp() fills TcpSegment so: `payload` points into the RawPacket's data (valid as long as
// it is); `payload_length` comes from the IP header and may exceed payload.size() when the
// snaplen cut the packet; `window_scale` only from a SYN; `checksum_checked` when the whole
// segment was captured and is not an IP fragment or offloaded (zero IP length), and then
// `checksum_ok` is false for a wrong value (offload zeros included): flagged, never dropped.

// The link types parse_tcp() decodes (kLink* in capture_file.h, plus 12 and 14 for raw IP).
bool link_type_supported(std::uint32_t link_type);

// nullopt for packets that are not TCP (ARP, UDP, ICMP, ...), for non-first IP fragments (no
// reassembly: TCP over IP fragments is rare, as stacks set DF and use PMTU discovery) and for
// link types not listed above; an Error (reason "packet") names what is malformed, and where.
Result<std::optional<TcpSegment>> parse_tcp(const RawPacket& packet);

}  // namespace anthro
