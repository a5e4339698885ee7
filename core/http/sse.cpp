#include "http/sse.h"

#include <limits>

namespace anthro {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// WHATWG: `retry` takes effect only when the value is ASCII digits; an overflowing value
// is ignored too rather than wrapped.
std::optional<std::uint64_t> parse_retry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  std::uint64_t n = 0;
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (max - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

}  // namespace

SseParser::SseParser(EventHandler on_event, ErrorHandler on_error, std::size_t max_line)
    : on_event_(std::move(on_event)), on_error_(std::move(on_error)), max_line_(max_line) {}

void SseParser::feed(std::string_view bytes) {
  if (failed_) return;
  feed_lines(skip_bom(bytes));
}

// The BOM may arrive split over chunks, so matched bytes are held until it is decided.
std::string_view SseParser::skip_bom(std::string_view in) {
  while (checking_bom_ && !in.empty()) {
    if (in.front() != kBom[bom_matched_]) {
      checking_bom_ = false;
      feed_lines(kBom.substr(0, bom_matched_));
      break;
    }
    ++bom_matched_;
    in.remove_prefix(1);
    if (bom_matched_ == kBom.size()) {
      checking_bom_ = false;
      offset_ += kBom.size();
    }
  }
  return in;
}

void SseParser::feed_lines(std::string_view in) {
  while (!in.empty() && !failed_) {
    if (pending_cr_) {
      pending_cr_ = false;
      if (in.front() == '\n') {
        ++offset_;
        in.remove_prefix(1);
        continue;
      }
    }
    auto end = in.find_first_of("\r\n");
    if (!append_to_line(in.substr(0, end))) return;
    if (end == std::string_view::npos) return;
    // A line is processed at its CR at once, so a final blank line ending in CR dispatches
    // without waiting for a byte that may never come.
    pending_cr_ = in[end] == '\r';
    ++offset_;  // the line break; append_to_line counted the line
    in.remove_prefix(end + 1);
    process_line(line_);
    line_.clear();
  }
}

bool SseParser::append_to_line(std::string_view part) {
  if (line_.size() + part.size() > max_line_) {
    fail("SSE line longer than " + std::to_string(max_line_) + " bytes at byte " +
         std::to_string(offset_ + max_line_ - line_.size()));
    return false;
  }
  line_.append(part);
  offset_ += part.size();
  return true;
}

void SseParser::process_line(std::string_view line) {
  if (line.empty()) return dispatch();
  if (line.front() == ':') return;  // comment
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return process_field(line, {});
  auto value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  process_field(line.substr(0, colon), value);
}

void SseParser::process_field(std::string_view field, std::string_view value) {
  if (field == "event") {
    event_type_.assign(value);
  } else if (field == "data") {
    if (data_.size() + value.size() + 1 > max_line_)
      return fail("SSE event data longer than " + std::to_string(max_line_) +
                  " bytes before byte " + std::to_string(offset_));
    data_.append(value);
    data_.push_back('\n');
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (auto n = parse_retry(value)) retry_ = n;
  }
}

void SseParser::dispatch() {
  if (data_.empty()) {
    event_type_.clear();
    return;
  }
  data_.pop_back();  // the "\n" after the last data line
  SseEvent ev;
  ev.event = event_type_.empty() ? "message" : std::move(event_type_);
  ev.data = std::move(data_);
  ev.id = last_id_;
  ev.retry = retry_;
  data_.clear();
  event_type_.clear();
  if (on_event_) on_event_(ev);
}

bool SseParser::finish() {
  bool discarded = !line_.empty() || !data_.empty() || !event_type_.empty() ||
                   (checking_bom_ && bom_matched_ > 0);
  line_.clear();
  data_.clear();
  event_type_.clear();
  pending_cr_ = false;
  return discarded;
}

void SseParser::fail(std::string detail) {
  failed_ = true;
  line_.clear();
  data_.clear();
  if (on_error_) on_error_(make_error("sse", std::move(detail)));
}

std::string format_sse(std::string_view event, std::string_view data) {
  std::string out;
  event = event.substr(0, event.find_first_of("\r\n"));
  if (!event.empty()) out.append("event: ").append(event).append("\n");
  while (true) {
    auto end = data.find_first_of("\r\n");
    out.append("data: ").append(data.substr(0, end)).append("\n");
    if (end == std::string_view::npos) break;
    bool crlf = data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n';
    data.remove_prefix(end + (crlf ? 2 : 1));
  }
  out.append("\n");
  return out;
}

}  // namespace anthro
