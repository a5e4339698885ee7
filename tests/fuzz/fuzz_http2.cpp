// The HTTP/2 capture dissector (frames, HPACK through nghttp2's inflater, streams read as HTTP
// exchanges) on hostile bytes. Input: a selector byte, a 2-byte split point, then bytes: the
// client sends HTTP/2's preface and the bytes before the split, the server the rest. Selector
// bits 0-1: the piece size of the second, chunked read (1, 3, 7, or 64 bytes). Nothing may crash
// or grow without bound, and chunking never changes the frames read or the error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "capture/http2_dissector.h"

using namespace anthro;

namespace {

struct Seen {
  std::uint64_t frames = 0, exchanges = 0;
  std::string error;
};

Seen dissect(std::string_view client, std::string_view server, std::size_t piece) {
  Seen seen;
  Http2Dissector::Events ev;
  ev.on_exchange = [&](RequestResult&) { ++seen.exchanges; };
  Http2Dissector d(std::move(ev));
  for (auto [dir, bytes] : {std::pair{Direction::ClientToServer, client}, std::pair{Direction::ServerToClient, server}})
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      d.feed(dir, as_bytes(bytes.substr(at, piece)), static_cast<double>(at), at);
  d.finish();
  seen.frames = d.frames();
  seen.error = d.error();
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::size_t pieces[] = {1, 3, 7, 64};
  std::size_t piece = pieces[data[0] & 3];
  std::string_view in = as_text({data + 3, size - 3});
  std::size_t split = std::min<std::size_t>(data[1] << 8 | data[2], in.size());
  std::string client = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + std::string(in.substr(0, split));
  std::string_view server = in.substr(split);
  Seen whole = dissect(client, server, SIZE_MAX);
  Seen chunked = dissect(client, server, piece);
  if (whole.frames != chunked.frames || whole.error != chunked.error || whole.exchanges != chunked.exchanges)
    __builtin_trap();
  return 0;
}
