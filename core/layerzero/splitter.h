// One direction of a Layer Zero byte stream cut into frames, the bytes arriving at any
// boundaries (TCP). Each frame is checked in the spec's order as it completes; the first
// refusal ends the stream, since nothing after a bad frame can be trusted. Memory holds at most
// one frame's bytes that have arrived: a length field alone reserves nothing.
#pragma once

#include <functional>

#include "layerzero/frame.h"

namespace anthro::lz {

// A checked frame inside the splitter's input or buffer: valid only during the callback.
struct FrameView {
  std::uint64_t offset = 0;  // of the frame's first byte in the stream
  FrameHeader header;
  ByteView payload;
  ByteView wire;  // the whole frame, CRC included
  DataFrame to_frame() const { return {header.sequence_id, header.type, Bytes(payload.begin(), payload.end())}; }
};

class FrameSplitter {
 public:
  using OnFrame = std::function<void(const FrameView&)>;
  // The refusal and the bytes it judged: the whole frame when its end arrived, else the part
  // of it that did. Valid only during the callback.
  using OnRefused = std::function<void(const FrameRefusal&, ByteView)>;

  // `dir` selects HEARTBEAT's length rule (nullopt: either size). `previous`, when given, is
  // the last data sequence id received in this direction (0 for a fresh session, the last one
  // before the cut on a resume) and turns on the sequence rule; without it only
  // SESSION_INIT/ACK's zero is checked.
  explicit FrameSplitter(std::optional<Direction> dir = std::nullopt,
                         std::optional<std::uint32_t> previous = std::nullopt);

  // Calls `on_frame` for each complete frame that passes, in order, with no copy of a frame
  // that lies whole in `data`. Returns the refusal once there is one; from then on nothing more
  // is read and every call returns it again. `on_refused` hears of the refusal once, as it is made.
  std::optional<FrameRefusal> feed(ByteView data, const OnFrame& on_frame, const OnRefused& on_refused = {});
  // The end of the stream: `incomplete` if it stopped inside a frame.
  std::optional<FrameRefusal> finish(const OnRefused& on_refused = {});

  const std::optional<FrameRefusal>& refusal() const { return refusal_; }
  std::uint64_t offset() const { return offset_; }  // of the next frame
  std::uint64_t frames() const { return frames_; }
  std::size_t buffered() const { return buf_.size(); }
  std::optional<std::uint32_t> previous() const { return previous_; }

 private:
  std::size_t wanted() const;
  ByteView top_up(ByteView data);
  bool deliver(ByteView frame, const OnFrame& on_frame, const OnRefused& on_refused);

  std::optional<Direction> dir_;
  std::optional<std::uint32_t> previous_;
  Bytes buf_;  // the start of a frame whose end has not arrived
  std::optional<FrameRefusal> refusal_;
  std::uint64_t offset_ = 0, frames_ = 0;
};

}  // namespace anthro::lz
