// What a wire format registers to be read from captures (its Profile's `dissect`, `describe`,
// `frame_types` and `columns`), as Wireshark's dissectors register with their field tables:
// one ConnectionDissector per connection cuts its application bytes into frames; the capture
// index keeps each frame's bytes (secrets masked) and asks `describe` again for its fields,
// summary and column values when a view shows it.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <optional>
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
  std::string refusal;  // not empty: the direction is not read past here; the status shown
  // What the format computed from the bytes before their secrets were masked (a checksum, a
  // token's fingerprint), kept with the frame and handed back to describe; at most kMaxFacts.
  std::string facts;
  static constexpr std::size_t kMaxFacts = 255;
  // The format's own `decode` line (JSON text) for the frame, when it has one; valid during the
  // call only. Without it decode writes the generic line.
  std::function<std::string(std::string_view conn)> decode_line;
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
  // The connection ended (closed at `closed_ts`, when known): what is left over (a cut frame)
  // may be reported.
  virtual void finish(std::optional<double> closed_ts, const DissectedSink& emit) = 0;
  // What the format keeps of the connection beyond its frames (a trace its profile joins with
  // the other connections', Profile::join_records), taken once after finish; empty for nothing.
  virtual std::any take_record() { return {}; }
};

// A frame as the index kept it, when a view asks how it reads.
struct KeptFrame {
  ByteView bytes;  // secrets masked
  std::uint8_t type = 0;
  Direction dir = Direction::ClientToServer;
  std::string_view facts;
  bool refused = false;
};

// A kept frame as a view shows it: fields with their byte ranges, one summary line, and one
// value for each of the format's columns.
struct KeptFrameView {
  std::vector<FrameField> fields;
  std::string summary;
  std::vector<std::string> columns;
  std::string pretty_json;  // a JSON payload, indented; empty for none
  std::vector<std::pair<std::size_t, std::size_t>> masked;  // [begin, end) of bytes that were secrets
};

}  // namespace anthro
