// The shared vectors' conversation as the CLI's decode lines must lay it out: where each frame
// sits and what the negotiation's blobs say, read from the vector bytes by the spec's rules,
// never from the code under test.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "util/bytes.h"
#include "vectors.h"

namespace anthro::test {

// Where a frame sits: its direction, byte offset in that direction's stream, type and flags.
struct FrameAt {
  std::string dir;
  std::uint64_t offset;
  std::string type;
  int flags;
  bool operator==(const FrameAt&) const = default;
};

// The vector conversation's frames, laid out by spec §4 from its two byte streams: after the
// 8-byte preface magic and the 128-byte blob, 16-byte headers (type at 1, flags at 2,
// payload_length at 4) each followed by payload_length bytes. Client frames first.
inline std::vector<FrameAt> vector_layout() {
  static const char* const kTypes[] = {"", "REQUEST", "RESPONSE", "STREAM_TOKEN", "CANCEL", "ERROR"};
  std::vector<FrameAt> out;
  for (const char* dir : {"c2s", "s2c"}) {
    const std::string key = dir == std::string("c2s") ? "client_to_server" : "server_to_client";
    const Bytes b = hex(vectors()["conversation"][key]);
    for (std::size_t at = 8 + 128; at + 16 <= b.size(); at += 16 + load_u32(&b[at + 4]))
      out.push_back({dir, at, kTypes[b[at + 1]], b[at + 2]});
  }
  return out;
}

// The fields of the conversation's offer or answer, read from its bytes 8..136 by spec §2.
inline nlohmann::json blob_fields(bool offer) {
  const Bytes b = hex(vectors()["conversation"][offer ? "client_to_server" : "server_to_client"]);
  const std::uint8_t* blob = &b.at(8);
  return {{"role", blob[1]}, {"max_streams", load_u16(blob + 2)}, {"default_max_tokens", load_u32(blob + 4)},
          {"flags", blob[8]}, {"aead", blob[9]}, {"ring_buffer_kib", load_u16(blob + 10)},
          {"connection_token", to_hex(ByteView(blob + 16, 8))}};
}

inline std::vector<FrameAt> layout_of(const std::vector<nlohmann::json>& frames) {
  std::vector<FrameAt> out;
  for (const char* dir : {"c2s", "s2c"})
    for (const nlohmann::json& f : frames)
      if (f["dir"] == dir) out.push_back({dir, f["offset"], f["type"], f["flags"]});
  return out;
}

}  // namespace anthro::test
