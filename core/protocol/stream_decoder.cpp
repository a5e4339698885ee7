#include "protocol/stream_decoder.h"

#include <algorithm>
#include <cstring>

namespace anthro {

DirectionDecoder::DirectionDecoder(Direction dir, PrefaceMode mode, DecoderEvents events,
                                   KeyLookup keys)
    : dir_(dir), mode_(mode), events_(std::move(events)), keys_(std::move(keys)) {}

void DirectionDecoder::set_key(const KeyCandidate& key) { aead_.emplace(key.suite, key.key); }

void DirectionDecoder::feed(ByteView data, double ts) {
  while (!data.empty()) {
    if (desynced_) {
      offset_ += data.size();
      return;
    }
    if (skip_ > 0) {
      std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, data.size()));
      skip_ -= n;
      offset_ += n;
      data = data.subspan(n);
      continue;
    }
    if (buf_.empty()) {
      Step s = step(data, ts);
      if (s.used > 0) {
        offset_ += s.used;
        data = data.subspan(s.used);
        continue;
      }
      need_ = s.need;
      buf_.assign(data.begin(), data.end());  // less than one unit, so bounded by a frame
      unit_ts_ = ts;
      return;
    }
    std::size_t n = std::min(need_ - buf_.size(), data.size());
    buf_.insert(buf_.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
    // A unit is complete when its last missing byte arrives, which for bytes delivered out of
    // their arrival order (TCP reassembly) is the latest arrival among its pieces.
    unit_ts_ = std::max(unit_ts_, ts);
    if (buf_.size() < need_) return;
    Step s = step(buf_, unit_ts_);
    if (s.used == 0) {
      need_ = s.need;
      continue;
    }
    offset_ += s.used;
    buf_.clear();
    if (buf_.capacity() > 1 << 20) buf_.shrink_to_fit();  // don't hold a 16 MiB frame's buffer
  }
}

void DirectionDecoder::finish() {
  if (desynced_ || buf_.empty()) return;
  std::string detail = "the stream ends " + std::to_string(buf_.size()) + " bytes into a unit of " +
                       std::to_string(need_) + " bytes";
  if (mode_ != PrefaceMode::None) {
    desync("preface", "incomplete preface: " + detail);
  } else if (buf_.size() >= kHeaderSize) {
    FrameEvent& ev = start_event(0.0, parse_header(buf_.data()));
    ev.plaintext.clear();
    ev.body.reset();
    ev.refusal = FrameReason::Incomplete;
    ev.detail = detail;
    if (events_.on_frame) events_.on_frame(ev);
  } else {
    desync(to_string(FrameReason::Incomplete), detail);
  }
  buf_.clear();
}

void DirectionDecoder::desync(std::string reason, std::string detail) {
  desynced_ = true;
  if (events_.on_desync) events_.on_desync(DesyncEvent{dir_, offset_, std::move(reason), std::move(detail)});
}

DirectionDecoder::Step DirectionDecoder::step(ByteView avail, double ts) {
  if (mode_ != PrefaceMode::None) return step_preface(avail, ts);
  return step_frame(avail, ts);
}

DirectionDecoder::Step DirectionDecoder::step_preface(ByteView avail, double ts) {
  std::size_t n = std::min(avail.size(), kPrefaceMagic.size());
  if (std::memcmp(avail.data(), kPrefaceMagic.data(), n) != 0) {
    if (mode_ == PrefaceMode::Expect) {
      desync("preface", "stream does not start with ANTHRO01 (first bytes " +
                            to_hex(avail.first(std::min<std::size_t>(avail.size(), 8))) + ")");
      return {avail.size(), 0};
    }
    mode_ = PrefaceMode::None;  // no preface: extension mode or a capture that starts later
    return step_frame(avail, ts);
  }
  // Until the whole magic is in, look again at every byte so a mismatch is seen at once.
  if (avail.size() < kPrefaceSize) return {0, n < kPrefaceMagic.size() ? n + 1 : kPrefaceSize};
  mode_ = PrefaceMode::None;
  if (events_.on_blob) {
    ByteView blob = avail.subspan(kPrefaceMagic.size(), kBlobSize);
    events_.on_blob(BlobEvent{dir_, offset_, ts, Bytes(blob.begin(), blob.end())});
  }
  return {kPrefaceSize, 0};
}

DirectionDecoder::Step DirectionDecoder::step_frame(ByteView avail, double ts) {
  if (avail.size() < kHeaderSize) return {0, kHeaderSize};
  FrameHeader header = parse_header(avail.data());
  if (auto refusal = check_header(header, ctx_)) {
    FrameEvent& ev = start_event(ts, header);
    ev.plaintext.clear();
    ev.body.reset();
    ev.refusal = refusal->reason;
    ev.detail = refusal->detail;
    ev.wire = avail.first(kHeaderSize);
    if (events_.on_frame) events_.on_frame(ev);
    if (!length_is_valid(header)) {
      desync(to_string(refusal->reason), "cannot find the next frame after a frame with " +
                                             refusal->detail);
      return {avail.size(), 0};
    }
    skip_ = header.payload_length;
    return {kHeaderSize, 0};
  }
  if (avail.size() < header.frame_size()) return {0, header.frame_size()};
  FrameEvent& ev = start_event(ts, header);  // its plaintext buffer is the last frame's: no allocation
  ev.wire = avail.first(header.frame_size());
  open_frame_event(ev.wire, ev);
  if (events_.on_frame) events_.on_frame(ev);
  return {header.frame_size(), 0};
}

// The event reset for a new frame, all but its plaintext (a receiver may have moved from it)
// and its body: a token's is read into the last frame's (parse_body_into), and every other way
// out of a frame sets or resets it.
FrameEvent& DirectionDecoder::start_event(double ts, const FrameHeader& header) {
  FrameEvent& ev = event_;
  ev.dir = dir_;
  ev.offset = offset_;
  ev.ts = ts;
  ev.header = header;
  ev.decrypted = false;
  ev.refusal.reset();
  ev.no_key = false;
  ev.detail.clear();
  ev.suite.reset();
  ev.wire = {};
  return ev;
}

void DirectionDecoder::open_frame_event(ByteView frame, FrameEvent& ev) {
  bool opened = false;
  if (aead_) {
    opened = open_frame(*aead_, frame, ev.plaintext);
  } else {
    auto candidates = keys_ ? keys_(ev.header.token) : std::vector<KeyCandidate>{};
    if (candidates.empty()) {
      ev.body.reset();
      ev.no_key = true;
      ev.detail = "no key for connection token " + token_hex(ev.header.token);
      return;
    }
    for (const auto& c : candidates) {
      Aead aead(c.suite, c.key);
      if (open_frame(aead, frame, ev.plaintext)) {
        aead_.emplace(std::move(aead));
        opened = true;
        break;
      }
    }
  }
  if (!opened) {
    ++auth_drops_;
    ++consecutive_drops_;
    ev.plaintext.clear();
    ev.body.reset();
    ev.refusal = FrameReason::Authentication;
    ev.detail = "the AEAD tag does not verify";
    return;
  }
  consecutive_drops_ = 0;
  ++frames_;
  ev.decrypted = true;
  ev.suite = aead_->suite();
  if (auto parsed = parse_body_into(ev.header.frame_type(), ev.header.flags, ev.plaintext, ev.body); !parsed) {
    ev.refusal = FrameReason::Body;
    ev.detail = parsed.error().detail;
  }
}

ConnectionDecoder::ConnectionDecoder(const KeyRing& keys, Events events, PrefaceMode mode)
    : keys_(keys),
      events_(std::move(events)),
      c2s_(Direction::ClientToServer, mode,
           DecoderEvents{[this](const BlobEvent& e) { on_blob(e.dir, e.blob); }, events_.on_frame,
                         [this](const DesyncEvent& e) { if (events_.on_desync) events_.on_desync(e); }},
           [this](std::uint64_t t) { return lookup(Direction::ClientToServer, t); }),
      s2c_(Direction::ServerToClient, mode,
           DecoderEvents{[this](const BlobEvent& e) { on_blob(e.dir, e.blob); }, events_.on_frame,
                         [this](const DesyncEvent& e) { if (events_.on_desync) events_.on_desync(e); }},
           [this](std::uint64_t t) { return lookup(Direction::ServerToClient, t); }) {}

void ConnectionDecoder::set_blobs(ByteView offer, ByteView answer) {
  on_blob(Direction::ClientToServer, offer);
  on_blob(Direction::ServerToClient, answer);
}

void ConnectionDecoder::feed(Direction dir, ByteView data, double ts) { direction(dir).feed(data, ts); }

void ConnectionDecoder::finish() {
  c2s_.finish();
  s2c_.finish();
}

void ConnectionDecoder::on_blob(Direction dir, ByteView bytes) {
  auto blob = decode_blob(bytes);
  if (!blob) return;  // the preface always carries 128 bytes
  std::optional<BlobRefusal> refusal;
  if (dir == Direction::ClientToServer) {
    refusal = check_offer(bytes);
    offer_ = *blob;
  } else {
    if (offer_) refusal = check_answer(*offer_, bytes);
    answer_ = *blob;
    answer_valid_ = offer_ && !refusal;
  }
  update_context();
  if (events_.on_negotiation) events_.on_negotiation(dir, *blob, refusal);
}

void ConnectionDecoder::update_context() {
  HeaderContext ctx;
  if (offer_) ctx.token = offer_->connection_token;
  if (answer_valid_) ctx.granted_flags = answer_->flags;
  c2s_.set_header_context(ctx);
  s2c_.set_header_context(ctx);
}

std::vector<KeyCandidate> ConnectionDecoder::lookup(Direction dir, std::uint64_t token) const {
  std::optional<OfferShare> share;
  if (offer_) share = OfferShare{offer_->connection_token, offer_->x25519_public, offer_->random};
  return keys_.candidates(token, dir, share ? &*share : nullptr, answered_suite());
}

std::optional<Suite> ConnectionDecoder::answered_suite() const {
  if (!answer_valid_) return std::nullopt;
  if (answer_->aead != kSuiteAes256Gcm && answer_->aead != kSuiteChaCha20Poly1305) return std::nullopt;
  return static_cast<Suite>(answer_->aead);
}

}  // namespace anthro
