// Server-sent events (WHATWG HTML "server-sent events" parsing), for the HTTP baseline (spec §9).
// Socket-free: bytes go in through feed() in any chunking, events come out through a callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anthro {

struct SseEvent {
  std::string event = "message";       // "message" when the event had no `event:` field
  std::string data;                    // `data:` lines joined with "\n"; "" for a bare `data` line
  std::string id;                      // the stream's last event id; it persists across events
  std::optional<std::uint64_t> retry;  // the stream's last `retry:` value, if any
};

// Bytes are kept as they arrive (no UTF-8 replacement): readers parse the data as JSON,
// which refuses invalid UTF-8 itself, and a diagnosis tool should see what was sent.
class SseParser {
 public:
  using EventHandler = std::function<void(const SseEvent&)>;
  using ErrorHandler = std::function<void(const Error&)>;
  // A stream that never sends a line break must not grow the buffer without bound.
  static constexpr std::size_t kDefaultMaxLine = std::size_t{8} << 20;

  explicit SseParser(EventHandler on_event, ErrorHandler on_error = {},
                     std::size_t max_line = kDefaultMaxLine);

  // After an error (reason "sse") the parser is failed and ignores further input.
  void feed(std::string_view bytes);
  // End of stream: an event without its closing blank line is discarded (WHATWG).
  // Returns true when something was discarded, so a caller can report a truncated stream.
  bool finish();
  bool failed() const { return failed_; }
  std::uint64_t bytes_fed() const { return offset_; }

 private:
  std::string_view skip_bom(std::string_view in);
  void feed_lines(std::string_view in);
  bool append_to_line(std::string_view part);
  void process_line(std::string_view line);
  void process_field(std::string_view field, std::string_view value);
  void dispatch();
  void fail(std::string detail);

  EventHandler on_event_;
  ErrorHandler on_error_;
  std::size_t max_line_;
  std::string line_;
  std::string data_;
  std::string event_type_;
  std::string last_id_;
  std::optional<std::uint64_t> retry_;
  std::uint64_t offset_ = 0;
  std::size_t bom_matched_ = 0;
  bool checking_bom_ = true;
  bool pending_cr_ = false;  // a CR ended the last chunk; an LF starting the next belongs to it
  bool failed_ = false;
};

// One event as a server writes it: `event:` (left out when empty) and one `data:` line per
// line of `data`, then the blank line. Line breaks in `event` are cut off, since they would
// start new fields.
std::string format_sse(std::string_view event, std::string_view data);

}  // namespace anthro
