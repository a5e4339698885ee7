// The floor under `analyze` on the generated bench capture: the same cryptographic work — every
// TLS record and every anthro-v1 frame opened once, with the fastest AEAD the project has
// (crypto/aead.h: libsodium's precomputed AES-GCM for short messages, OpenSSL above) — and
// nothing else: no TCP reassembly, no checksums, no body parsing, no timelines. Keys come from
// the generator (set up before the clock starts), so no handshake is parsed either.
#pragma once

#include <cstdint>
#include <string>

#include "bench_capture.h"

namespace anthro::bench {

struct FloorRun {
  double seconds = 0;
  std::uint64_t records = 0, frames = 0;  // opened; every one must open
};

// Connections split among `threads` threads, each walking the file for its own; exits the
// process naming the problem when a record or frame does not open or a count is off.
FloorRun measure_floor(const std::string& pcap, const GeneratedCapture& capture, unsigned threads);

}  // namespace anthro::bench
