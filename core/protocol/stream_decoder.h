// Incremental decoding of one direction of an anthro-v1 connection: an optional in-band
// preface (`ANTHRO01` + blob), then frames. Input may arrive in any chunking; memory stays
// bounded by one frame, since a refused frame's payload is skipped without being buffered.
#pragma once

#include <functional>
#include <optional>

#include "crypto/keyring.h"
#include "protocol/body.h"

namespace anthro {

inline constexpr std::string_view kPrefaceMagic = "ANTHRO01";
inline constexpr std::size_t kPrefaceSize = 8 + kBlobSize;

struct BlobEvent {
  Direction dir;
  std::uint64_t offset;  // of the preface magic
  double ts;
  Bytes blob;
};

struct FrameEvent {
  Direction dir = Direction::ClientToServer;
  std::uint64_t offset = 0;  // of the frame's first header byte
  double ts = 0.0;             // when the frame became complete
  FrameHeader header;
  bool decrypted = false;
  std::optional<FrameReason> refusal;  // the first failing check, if any
  bool no_key = false;                 // nothing to try: not decrypted, but not refused either
  std::string detail;
  std::optional<Suite> suite;
  Bytes plaintext;
  std::optional<Body> body;
  // The frame's bytes as they arrived (only the header when it was refused there). Valid
  // only during the on_frame callback.
  ByteView wire;
};

struct DesyncEvent {
  Direction dir;
  std::uint64_t offset;
  std::string reason;  // a frame reason (`length`, `incomplete`) or `preface`
  std::string detail;
};

struct DecoderEvents {
  std::function<void(const BlobEvent&)> on_blob;
  // The event is the receiver's to move from: a live reader keeps it past the call, and a
  // copy per token would cost its plaintext and body twice. The decoder reuses it for the next
  // frame, resetting every member.
  std::function<void(FrameEvent&)> on_frame;
  std::function<void(const DesyncEvent&)> on_desync;
};

enum class PrefaceMode {
  Detect,  // a stream that starts with the magic has a preface (how captures are read)
  Expect,  // a server without the TLS extension: anything else is a `preface` desync
  None,    // negotiated in the TLS extension: frames from the first byte
};

class DirectionDecoder {
 public:
  using KeyLookup = std::function<std::vector<KeyCandidate>(std::uint64_t token)>;

  DirectionDecoder(Direction dir, PrefaceMode mode, DecoderEvents events, KeyLookup keys);

  // `ts` is when `data` arrived; a unit (preface or frame) is stamped with the latest arrival
  // among the pieces that carried its bytes.
  void feed(ByteView data, double ts = 0.0);
  // End of the direction's bytes: a partial unit is reported as `incomplete`.
  void finish();

  void set_header_context(const HeaderContext& ctx) { ctx_ = ctx; }
  void set_key(const KeyCandidate& key);  // a live peer knows its key
  std::uint64_t offset() const { return offset_; }
  bool desynced() const { return desynced_; }
  std::size_t buffered() const { return buf_.size(); }
  std::uint64_t frames() const { return frames_; }
  std::uint64_t auth_drops() const { return auth_drops_; }
  // Authentication failures since the last good frame (a live peer closes at 16).
  unsigned consecutive_auth_drops() const { return consecutive_drops_; }

 private:
  struct Step {
    std::size_t used;  // bytes consumed; 0 means more are needed
    std::size_t need;  // total bytes of the current unit, when used == 0
  };
  Step step(ByteView avail, double ts);
  Step step_preface(ByteView avail, double ts);
  Step step_frame(ByteView avail, double ts);
  FrameEvent& start_event(double ts, const FrameHeader& header);
  void open_frame_event(ByteView frame, FrameEvent& ev);
  void desync(std::string reason, std::string detail);

  Direction dir_;
  PrefaceMode mode_;
  DecoderEvents events_;
  KeyLookup keys_;
  HeaderContext ctx_;
  std::optional<Aead> aead_;
  Bytes buf_;
  // Every frame's event: built once, not a frame, and its plaintext buffer opens the next frame.
  FrameEvent event_;
  std::size_t need_ = 0;
  double unit_ts_ = 0;  // the latest arrival among the buffered unit's pieces
  std::uint64_t offset_ = 0;  // stream offset of the next unconsumed byte (buf_ start, if any)
  std::uint64_t skip_ = 0;    // payload bytes of a refused frame still to pass over
  bool desynced_ = false;
  std::uint64_t frames_ = 0, auth_drops_ = 0;
  unsigned consecutive_drops_ = 0;
};

// Both directions of one connection as a passive observer sees them: the blobs set the
// header checks and the keys of both directions.
class ConnectionDecoder {
 public:
  struct Events {
    std::function<void(Direction, const Blob&, std::optional<BlobRefusal>)> on_negotiation;
    // Handed to both directions as it is: no call of its own between them and the receiver.
    std::function<void(FrameEvent&)> on_frame;
    std::function<void(const DesyncEvent&)> on_desync;
  };
  ConnectionDecoder(const KeyRing& keys, Events events, PrefaceMode mode = PrefaceMode::Detect);

  // For the TLS extension, where the blobs travel in the handshake.
  void set_blobs(ByteView offer, ByteView answer);
  void feed(Direction dir, ByteView data, double ts = 0.0);
  void finish();
  const std::optional<Blob>& offer() const { return offer_; }
  const std::optional<Blob>& answer() const { return answer_; }
  DirectionDecoder& direction(Direction dir) { return dir == Direction::ClientToServer ? c2s_ : s2c_; }

 private:
  void on_blob(Direction dir, ByteView blob);
  void update_context();
  std::vector<KeyCandidate> lookup(Direction dir, std::uint64_t token) const;
  std::optional<Suite> answered_suite() const;

  const KeyRing& keys_;
  Events events_;
  std::optional<Blob> offer_, answer_;
  bool answer_valid_ = false;
  DirectionDecoder c2s_, s2c_;
};

}  // namespace anthro
