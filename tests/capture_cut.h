// A capture cut the way a capture started mid-connection sees it, for the tests of TLS
// connections whose handshake was not captured.
#pragma once

#include <string>

#include "capture/capture_file.h"
#include "capture/packet.h"

namespace anthro::test {

// `from` without the packets before the first whose TCP payload starts a TLS application-data
// record (0x17 0x03 0x03): its connection as a capture started after its handshake sees it. The
// keys stay embedded. False when there is no such packet.
inline bool cut_before_application_data(const std::string& from, const std::string& to) {
  auto reader = CaptureReader::open(from);
  auto writer = PcapngWriter::create(to);
  if (!reader || !writer) return false;
  bool kept = false;
  std::uint32_t interface = 0;
  while (auto p = (*reader)->next()) {
    auto seg = parse_tcp(*p);
    if (!kept && seg.ok() && *seg) {
      ByteView payload = (*seg)->payload;
      kept = payload.size() >= 3 && payload[0] == 0x17 && payload[1] == 0x03 && payload[2] == 0x03;
      if (kept) {
        interface = (*writer)->add_interface(p->link_type, 262144, "lo");
        for (const auto& keys : (*reader)->secrets()) (*writer)->add_secrets(keys);
      }
    }
    if (kept) (*writer)->write_packet_ns(interface, p->ts_ns, p->data, p->original_length);
  }
  return kept && (*writer)->close().ok();
}

}  // namespace anthro::test
