#include "layerzero/splitter.h"

#include <algorithm>

namespace anthro::lz {
namespace {

constexpr std::size_t kKeepCapacity = 1 << 20;  // beyond this a big frame's buffer is let go

}  // namespace

FrameSplitter::FrameSplitter(std::optional<Direction> dir, std::optional<std::uint32_t> previous)
    : dir_(dir), previous_(previous) {}

// The size the buffered unit must reach: a header first, then the frame it announces.
std::size_t FrameSplitter::wanted() const {
  return buf_.size() < kHeaderSize ? kHeaderSize : parse_header(buf_.data()).frame_size();
}

ByteView FrameSplitter::top_up(ByteView data) {
  while (!data.empty() && buf_.size() < wanted()) {
    const std::size_t n = std::min(wanted() - buf_.size(), data.size());
    buf_.insert(buf_.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
  }
  return data;
}

bool FrameSplitter::deliver(ByteView frame, const OnFrame& on_frame, const OnRefused& on_refused) {
  if (auto bad = check_frame(frame, dir_, previous_)) {
    bad->offset = offset_;
    refusal_ = std::move(*bad);
    if (on_refused) on_refused(*refusal_, frame);
    return false;
  }
  const FrameView view{offset_, parse_header(frame.data()), frame.subspan(kHeaderSize, frame.size() - kFrameOverhead), frame};
  if (previous_ && !is_session_frame(view.header.type)) previous_ = view.header.sequence_id;
  offset_ += frame.size();
  ++frames_;
  if (on_frame) on_frame(view);
  return true;
}

std::optional<FrameRefusal> FrameSplitter::feed(ByteView data, const OnFrame& on_frame, const OnRefused& on_refused) {
  while (!refusal_ && !data.empty()) {
    if (buf_.empty() && data.size() >= kHeaderSize) {
      const std::size_t size = parse_header(data.data()).frame_size();
      if (data.size() >= size) {  // whole in the input: checked where it lies
        if (deliver(data.first(size), on_frame, on_refused)) data = data.subspan(size);
        continue;
      }
    }
    data = top_up(data);
    if (buf_.size() < wanted()) break;  // `data` is used up
    deliver(buf_, on_frame, on_refused);
    buf_.clear();
    if (buf_.capacity() > kKeepCapacity) buf_.shrink_to_fit();
  }
  return refusal_;
}

std::optional<FrameRefusal> FrameSplitter::finish(const OnRefused& on_refused) {
  if (!refusal_ && !buf_.empty()) {
    std::string detail = "the stream ends " + std::to_string(buf_.size()) + " bytes into a ";
    detail += buf_.size() < kHeaderSize ? "header" : std::to_string(wanted()) + "-byte frame";
    refusal_ = FrameRefusal{TerminateReason::Incomplete, std::move(detail), offset_};
    if (on_refused) on_refused(*refusal_, buf_);
    buf_.clear();
  }
  return refusal_;
}

}  // namespace anthro::lz
