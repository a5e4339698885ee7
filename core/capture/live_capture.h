// Live capture into a pcapng file, keys embedded as a Decryption Secrets Block. The interface is
// opened by the `anthro-capture` helper (capture_helper.h), the only program that needs the
// capabilities; this process reads its pcapng from a pipe.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "util/result.h"

namespace anthro {

struct LiveCaptureConfig {
  std::string interface;
  std::string filter;       // BPF
  std::string output;       // .pcapng, written atomically
  double duration_s = 0;    // 0: until stop is set
  std::string keylog_path;  // read at the end and embedded ahead of the packets, when given
  // The keys this process's own clients logged while it ran (OwnKeyLog), embedded too: the
  // workbench's own connections decrypt with no key file.
  bool own_keys = false;
  int snaplen = 262144;
};

struct LiveCaptureStats {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;            // as on the wire (original lengths)
  std::uint64_t kernel_drops = 0;     // pcap_stats ps_drop (the helper's isb_osdrop)
  std::uint64_t interface_drops = 0;  // ps_ifdrop (isb_ifdrop)
  bool secrets_embedded = false;
  std::uint64_t own_key_lines = 0;       // own_keys: the lines embedded
  std::uint64_t own_key_lines_lost = 0;  // own_keys: those OwnKeyLog's bound let go first
};

// Captures until the duration passes or `stop` becomes true. `on_ready` is called once the
// interface is capturing, so callers can start traffic only then. Errors name the interface
// and, for permissions, what is needed.
// `on_progress` gets the counts so far about five times a second while packets come.
Result<LiveCaptureStats> run_live_capture(const LiveCaptureConfig& config, const std::atomic<bool>& stop,
                                          const std::function<void()>& on_ready = {},
                                          const std::function<void(const LiveCaptureStats&)>& on_progress = {});

struct NetworkInterface {
  std::string name;         // what LiveCaptureConfig::interface takes
  std::string description;  // pcap's, may be empty
  bool loopback = false;
  bool up = false;
};
// The interfaces libpcap can capture on (pcap_findalldevs in the helper), loopback first.
Result<std::vector<NetworkInterface>> list_capture_interfaces();

}  // namespace anthro
