// Both directions of a connection through ConnectionDecoder, in chunks the input chooses.
// Input: selector byte, separator byte, then c2s bytes, the separator, s2c bytes.
// Selector: bits 0-1 chunk pattern, 2-3 its parameter, 4-5 preface mode,
// bit 6 interleave the directions, bit 7 also give the ring the server's static key.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/stream_decoder.h"

using namespace anthro;

namespace {

// Test keys from the spec vectors (keys.keylog_line, keys.server_static_private), so that
// frames built from the vectors authenticate and the fuzzer gets past the AEAD.
constexpr char kKeyLogLine[] =
    "ANTHRO_V1 1234567890abcdef 6b7bdd60c277d34fce5ceb9e51a9c8ef37015450b0caf70b3778a9c6b36ad566 "
    "14413ed07c74bc0d751b18a4398da40a6c66a39511a90e16d871dd179293b24e";
constexpr char kServerPrivate[] =
    "bfc8e7d9f642e32ce652251a167ff8b9f9903e96079c464385e68b51a0d3b599";

const KeyRing& ring(bool with_server_key) {
  static const KeyRing keylog = [] {
    KeyRing r;
    r.add(parse_keylog(kKeyLogLine, "fuzz"));
    return r;
  }();
  static const KeyRing server = [] {
    KeyRing r = keylog;
    r.add_server_key(*from_hex_array<32>(kServerPrivate));
    return r;
  }();
  return with_server_key ? server : keylog;
}

// What one event says, for comparing a chunked run with a whole one.
struct Seen {
  int dir;
  std::uint64_t offset;
  std::string what;
  FrameHeader header;
  bool decrypted, no_key, has_body;
  Bytes plaintext;
  bool operator==(const Seen&) const = default;
};

class Chunker {
 public:
  explicit Chunker(std::uint8_t sel) : pattern_(sel & 3), param_((sel >> 2) & 3), state_(sel) {}
  std::size_t next() {
    switch (pattern_) {
      case 0: return SIZE_MAX;
      case 1: return 1;
      case 2: return std::size_t{1} << (param_ * 2 + 1);  // 2, 8, 32, 128: around a header
      default:
        state_ = state_ * 1103515245u + 12345u;
        return 1 + (state_ >> 16) % (std::size_t{17} << (param_ * 2));
    }
  }

 private:
  unsigned pattern_, param_;
  std::uint32_t state_;
};

std::vector<Seen> run(ByteView c2s, ByteView s2c, std::uint8_t sel, bool whole) {
  constexpr PrefaceMode kModes[] = {PrefaceMode::Detect, PrefaceMode::Expect, PrefaceMode::None,
                                    PrefaceMode::Detect};
  std::vector<Seen> seen;
  std::uint64_t fed[2] = {0, 0};
  ConnectionDecoder::Events events;
  events.on_frame = [&](const FrameEvent& e) {
    int d = static_cast<int>(e.dir);
    if (e.offset >= fed[d]) __builtin_trap();
    if (e.decrypted && !e.body && e.refusal != FrameReason::Body) __builtin_trap();
    seen.push_back({d, e.offset, e.refusal ? to_string(*e.refusal) : "ok", e.header, e.decrypted,
                    e.no_key, e.body.has_value(), e.plaintext});
  };
  events.on_desync = [&](const DesyncEvent& e) {
    seen.push_back({static_cast<int>(e.dir), e.offset, "desync " + e.reason, {}, false, false,
                    false, {}});
  };
  ConnectionDecoder dec(ring(sel & 0x80), events, kModes[(sel >> 4) & 3]);

  Chunker chunker(sel);
  ByteView rest[2] = {c2s, s2c};
  auto feed_one = [&](int d) {
    std::size_t n = std::min(whole ? SIZE_MAX : chunker.next(), rest[d].size());
    fed[d] += n;
    dec.feed(static_cast<Direction>(d), rest[d].first(n));
    rest[d] = rest[d].subspan(n);
    if (dec.direction(Direction::ClientToServer).buffered() > kMaxFrame ||
        dec.direction(Direction::ServerToClient).buffered() > kMaxFrame)
      __builtin_trap();
  };
  if ((sel & 0x40) && !whole) {
    while (!rest[0].empty() || !rest[1].empty()) {
      if (!rest[0].empty()) feed_one(0);
      if (!rest[1].empty()) feed_one(1);
    }
  } else {
    for (int d = 0; d < 2; ++d)
      while (!rest[d].empty()) feed_one(d);
  }
  dec.finish();
  // Chunking may move an event past the other direction's, e.g. to finish(); only each
  // direction's own sequence is promised.
  std::stable_sort(seen.begin(), seen.end(),
                   [](const Seen& a, const Seen& b) { return a.dir < b.dir; });
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::uint8_t sel = data[0];
  ByteView rest(data + 2, size - 2);
  auto sep = static_cast<const std::uint8_t*>(std::memchr(rest.data(), data[1], rest.size()));
  std::size_t cut = sep ? static_cast<std::size_t>(sep - rest.data()) : rest.size();
  ByteView c2s = rest.first(cut);
  ByteView s2c = sep ? rest.subspan(cut + 1) : ByteView{};

  auto chunked = run(c2s, s2c, sel, false);
  // The decoder promises the same result for any chunking. Interleaved directions may
  // legitimately differ (the answer blob changes the c2s header checks), so only compare
  // runs that feed c2s before s2c.
  if ((sel & 3) != 0 && !(sel & 0x40) && chunked != run(c2s, s2c, sel, true)) __builtin_trap();
  return 0;
}
