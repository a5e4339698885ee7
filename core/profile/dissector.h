// What a wire format registers to be read from captures (its Profile's `dissect`, `describe`,
// `frame_types` and `columns`), as Wireshark's dissectors register with their field tables:
// one ConnectionDissector per connection cuts its application bytes into frames; the capture
// index keeps each frame's bytes (secrets masked) and asks `describe` again for its fields,
// summary and column values when a view shows it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/describe.h"
#include "util/bytes.h"

namespace anthro {

// One frame a dissector cut, or where reading a direction stopped.
struct DissectedFrame {
  Direction dir = Direction::ClientToServer;
  double ts = 0;            // capture time of the packet that completed it
  std::uint64_t offset = 0;  // of its first byte in its direction's byte stream
  ByteView bytes;           // as it arrived; valid during the call only
  std::uint8_t type = 0;    // index into the format's frame_types (a refusal's too: its word for "unreadable")
  std::uint32_t stream = 0;  // the Stream column; 0 for none
  // [begin, end) of `bytes` that are secrets: replaced by '*' before the bytes are kept.
  std::vector<std::pair<std::size_t, std::size_t>> secrets;
  std::string refusal;  // not empty: the direction is not read past here, and why
};

using DissectedSink = std::function<void(const DissectedFrame&)>;

// A frame's bytes as they may be kept and shown: its secrets replaced by '*'.
inline Bytes kept_bytes(const DissectedFrame& f) {
  Bytes kept(f.bytes.begin(), f.bytes.end());
  for (auto [begin, end] : f.secrets)
    for (std::size_t i = begin; i < end && i < kept.size(); ++i) kept[i] = '*';
  return kept;
}

class ConnectionDissector {
 public:
  virtual ~ConnectionDissector() = default;
  // The next application bytes of one direction (decrypted for TLS), in order; `emit` each
  // frame they complete. Memory held must stay bounded whatever a peer sends.
  virtual void feed(Direction dir, ByteView data, double ts, const DissectedSink& emit) = 0;
  // The connection ended: what is left over (a cut frame) may be reported.
  virtual void finish(const DissectedSink&) {}
};

// A kept frame as a view shows it: fields with their byte ranges, one summary line, and one
// value for each of the format's columns.
struct FrameView {
  std::vector<FrameField> fields;
  std::string summary;
  std::vector<std::string> columns;
};

}  // namespace anthro
