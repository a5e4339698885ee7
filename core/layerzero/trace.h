// What a Layer Zero conversation looked like on the wire, in one shape whether a capture's
// dissector or the live client saw it: every frame of each connection with its fields and
// arrival time, each direction's refusal (the spec's order: incomplete, checksum, type, length,
// and the zero sequence id of SESSION_INIT/ACK), and the connections linked into sessions by
// their tokens: a resuming SESSION_INIT presents a token an earlier SESSION_ACK issued.
//
// Sequence ids beyond INIT/ACK's zero are judged per session, not per connection: what a resume
// lost or repeated is a matter of the frames the receiver said it had (the INIT's last server
// id, the ACK's last client id) against those resent, by original sequence id. A frame the
// live client counts as a repeat is one here too, rather than a connection's `sequence` refusal.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "layerzero/payload.h"
#include "layerzero/splitter.h"

namespace anthro::lz {

// One frame a connection carried.
struct TracedFrame {
  double ts = 0;  // seconds: the packet's time in a capture, the client's steady clock live
  Direction dir = Direction::ClientToServer;
  std::uint32_t sequence_id = 0;
  PayloadType type = PayloadType::UserInput;
  std::uint32_t payload_length = 0;
  // By type: a client HEARTBEAT's buffer usage, a TOOL_RESULT's call id, a TERMINATE's code;
  // 0 otherwise (and for a payload its type cannot hold).
  std::uint32_t value = 0;
  std::string name;  // TOOL_CALL: the tool's name
};

// The first frame a direction's receiver would refuse; nothing after it is read.
struct TracedRefusal {
  Direction dir = Direction::ClientToServer;
  double ts = 0;
  FrameRefusal refusal;
};

struct ConnectionTrace {
  std::string name;  // capture: client-server address pair; live: "lz#N"
  std::optional<double> opened, closed;
  std::optional<double> init_ts, ack_ts;
  std::optional<SessionInit> init;  // the client's SESSION_INIT, decoded
  std::optional<SessionAck> ack;    // the server's SESSION_ACK, decoded
  std::vector<TracedFrame> frames;  // both directions, in the order they arrived
  std::vector<TracedRefusal> refusals;

  bool resuming() const { return init && init->resume.has_value(); }
};

// One frame as a direction's stream is cut, accepted or refused, as an inspector lists it.
// `bytes` are valid only during the callback.
struct WireFrame {
  Direction dir = Direction::ClientToServer;
  double ts = 0;             // the arrival time of the bytes that completed it (a refusal: its judging)
  std::uint64_t offset = 0;  // of its first byte in its direction's stream
  ByteView bytes;            // the whole frame, CRC included; a refused one as far as it arrived
  const FrameRefusal* refusal = nullptr;  // set for the frame the direction's reading stopped at
};

// Cuts one connection's two byte streams into frames (FrameSplitter, frame.h's checks) and
// records them. Hostile bytes end that direction's reading with its refusal.
class ConnectionTracer {
 public:
  // `on_wire` hears of every frame and refusal as it is cut, in the order of the bytes fed:
  // the same splitter's cut, so a row list and the trace never disagree.
  using OnWire = std::function<void(const WireFrame&)>;
  explicit ConnectionTracer(std::string name, OnWire on_wire = {});
  void feed(Direction dir, ByteView data, double ts);
  // The connection ended at `ts` (if known): a frame cut off in either direction is `incomplete`.
  void finish(std::optional<double> ts);
  const ConnectionTrace& trace() const { return trace_; }
  ConnectionTrace take() { return std::move(trace_); }

 private:
  void on_frame(Direction dir, const FrameView& frame, double ts);
  void note_refusal(Direction dir, const std::optional<FrameRefusal>& refusal, double ts);
  FrameSplitter::OnRefused refused_bytes(Direction dir, double ts) const;

  ConnectionTrace trace_;
  OnWire on_wire_;
  std::optional<double> last_fed_;  // the arrival time of the last bytes fed
  FrameSplitter from_client_{Direction::ClientToServer}, from_server_{Direction::ServerToClient};
  bool refused_[2] = {false, false};
};

// Sequence ids a resume lost or sent twice, per direction (at most kMaxListed of each kept).
struct SequenceFaults {
  static constexpr std::size_t kMaxListed = 64;
  std::uint64_t lost = 0, repeated = 0;
  std::vector<std::uint32_t> lost_ids, repeated_ids;
};

struct SessionTrace {
  std::vector<std::size_t> connections;  // into Trace::connections, in order
  std::optional<SessionTerms> terms;     // from its first SESSION_INIT
  std::uint32_t resumes = 0;             // resuming SESSION_INITs the server acknowledged
  std::uint32_t resumes_refused = 0;     // resuming SESSION_INITs answered by a TERMINATE
  // The first connection resumed a session whose opening was not seen (the capture began later).
  bool opened_unseen = false;
  SequenceFaults from_server, from_client;  // by the receiver's last id at each resume
};

struct Trace {
  std::vector<ConnectionTrace> connections;
  std::vector<SessionTrace> sessions;
};

// The connections (any order) sorted by when they opened and linked into sessions.
Trace link_sessions(std::vector<ConnectionTrace> connections);
// `more` appended to `into`, its session indexes moved along.
void append_trace(Trace& into, Trace more);

}  // namespace anthro::lz
