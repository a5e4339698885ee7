// The benchmarks' TLS 1.3 capture of anthro-v1 token streams, generated (capture_bench reads it
// with analyze, the index pass and the AEAD floor; gui_bench opens a bigger one in the inspector).
// 20 interleaved connections, each a real in-memory TLS 1.3 handshake (OpenSSL, memory BIOs)
// followed by the in-band preface and many REQUEST / STREAM_TOKEN / RESPONSE frames sealed with
// the real frame keys, cut into ~700-byte TLS records and MSS-sized TCP segments with correct
// sequence numbers and checksums, written as pcapng with its NSS key log beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "crypto/key_schedule.h"
#include "util/bytes.h"
#include "util/vocabulary.h"

namespace anthro::bench {

inline constexpr unsigned kCaptureConnections = 20;
inline constexpr std::uint16_t kCaptureServerPort = 7443;

// What a reader needs to open one generated connection without parsing its handshake (the
// floor's key set-up): the TLS client_random naming its key log lines, the TLS suite, and the
// anthro-v1 frame keys and suite.
struct GeneratedConnection {
  std::uint16_t client_port = 0;
  Bytes client_random;
  std::uint16_t tls_suite = 0;  // IANA id
  Suite frame_suite = Suite::Aes256Gcm;
  FrameKeys frame_keys;
};

struct GeneratedCapture {
  std::uint64_t file_bytes = 0, packets = 0;
  std::uint64_t streams = 0, tokens = 0;
  std::uint64_t frames = 0;  // anthro-v1 frames, both directions
  std::string keylog_text;   // what was written to the key log file
  std::vector<GeneratedConnection> connections;
};

// Writes `pcap` (at least `target_bytes`, whole rounds of one stream per connection) and its
// key log `keylog`. Exits the process with a message on any failure: benchmarks only.
GeneratedCapture generate_capture(const std::string& pcap, const std::string& keylog, std::uint64_t target_bytes);

}  // namespace anthro::bench
