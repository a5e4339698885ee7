// Server-sent events and the two stream readers of the HTTP baseline. Input: selector byte,
// then the stream. Selector: bits 0-1 chunk pattern (whole, single bytes, 3 bytes, sizes
// from a PRNG), bit 2 a 64-byte line limit, bit 3 read as OpenAI chunks (else Anthropic).
// Chunking never changes what is parsed; every event re-written with format_sse parses back
// to itself; each reader turns every event into at least one update.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "http/messages_api.h"

using namespace anthro;

namespace {

struct Parsed {
  std::vector<SseEvent> events;
  std::optional<std::string> error;
  bool discarded = false;
};

bool same(const SseEvent& a, const SseEvent& b) {
  return a.event == b.event && a.data == b.data && a.id == b.id && a.retry == b.retry;
}

std::size_t chunk_size(std::uint8_t sel, std::uint32_t& state) {
  switch (sel & 3) {
    case 0: return SIZE_MAX;
    case 1: return 1;
    case 2: return 3;
    default: state = state * 1103515245u + 12345u; return 1 + (state >> 16) % 64;
  }
}

Parsed parse(std::string_view in, std::uint8_t sel, bool whole) {
  Parsed p;
  std::size_t max_line = (sel & 4) ? 64 : SseParser::kDefaultMaxLine;
  SseParser parser([&](const SseEvent& e) { p.events.push_back(e); },
                   [&](const Error& e) { p.error = e.detail; }, max_line);
  std::uint32_t state = sel;
  while (!in.empty()) {
    std::size_t n = std::min(whole ? SIZE_MAX : chunk_size(sel, state), in.size());
    parser.feed(in.substr(0, n));
    in.remove_prefix(n);
  }
  p.discarded = parser.finish();
  return p;
}

void check_round_trip(const SseEvent& e) {
  std::vector<SseEvent> back;
  SseParser parser([&](const SseEvent& b) { back.push_back(b); });
  parser.feed(format_sse(e.event, e.data));
  if (back.size() != 1 || back[0].event != e.event || back[0].data != e.data || parser.finish())
    __builtin_trap();
}

template <class Reader>
void read_all(const std::vector<SseEvent>& events) {
  Reader reader;
  for (const auto& e : events)
    if (reader.on_event(e).empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::uint8_t sel = data[0];
  std::string_view in = as_text({data + 1, size - 1});
  Parsed whole = parse(in, sel, true);
  if ((sel & 3) != 0) {
    Parsed chunked = parse(in, sel, false);
    if (chunked.events.size() != whole.events.size() || chunked.error != whole.error ||
        chunked.discarded != whole.discarded)
      __builtin_trap();
    for (std::size_t i = 0; i < whole.events.size(); ++i)
      if (!same(chunked.events[i], whole.events[i])) __builtin_trap();
  }
  for (const auto& e : whole.events) check_round_trip(e);
  if (sel & 8) read_all<OpenAiStreamReader>(whole.events);
  else read_all<AnthropicStreamReader>(whole.events);
  return 0;
}
