// The client half of a lab connection, for the test peers that speak anthro-v1 through the
// codec directly instead of the session client: tests/raw_peer.h (blocking sockets) and the
// soak bench's peers (Asio). It makes the offer, takes the answer, seals the frames a test
// builds and opens what the server sends back.
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "crypto/aead.h"
#include "crypto/key_schedule.h"
#include "protocol/blob.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"

namespace anthro::test {

class LabClientKeys {
 public:
  // The client preface: the magic and an offer of two streams.
  Bytes preface(std::uint64_t token, std::uint16_t ring_kib = kDefaultRingKib) {
    key_ = generate_x25519();
    offer_.max_streams = 2;
    offer_.ring_buffer_kib = ring_kib;
    offer_.connection_token = token;
    offer_.x25519_public = key_.public_key;
    Bytes out(kPrefaceMagic.begin(), kPrefaceMagic.end());
    append(out, encode_blob(offer_));
    return out;
  }

  // The server's preface (kPrefaceSize bytes); false when it is not an answer to the offer.
  bool accept(ByteView answer) {
    if (answer.size() != kPrefaceSize) return false;
    auto blob = decode_blob(answer.subspan(8));
    if (!blob) return false;
    auto keys = client_frame_keys(key_.private_key, offer_, *blob);
    if (!keys) return false;
    keys_ = *keys;
    suite_ = static_cast<Suite>(blob->aead);
    c2s_.emplace(suite_, keys_.c2s);
    return true;
  }

  Bytes frame(FrameType type, std::uint8_t flags, const Bytes& plaintext) {
    return seal_frame(*c2s_, type, flags, offer_.connection_token, nonces_.next(), plaintext);
  }

  // A streaming REQUEST for `max_tokens` tokens.
  Bytes request(std::uint32_t stream_id, std::uint32_t max_tokens, const std::string& model = "m") {
    RequestSpec spec;
    spec.model = model;
    spec.messages = {{"user", "hi"}};
    spec.max_tokens = max_tokens;
    return frame(FrameType::Request, kFlagStreaming, encode_request(stream_id, spec));
  }

  // Every whole frame in the server's bytes after its preface, opened.
  std::vector<FrameEvent> server_frames(ByteView s2c) const {
    std::vector<FrameEvent> out;
    DirectionDecoder d(Direction::ServerToClient, PrefaceMode::None,
                       DecoderEvents{nullptr, [&](const FrameEvent& e) { out.push_back(e); }, nullptr}, nullptr);
    d.set_key({suite_, keys_.s2c});
    d.feed(s2c);
    return out;
  }

  const Blob& offer() const { return offer_; }

 private:
  X25519KeyPair key_;
  Blob offer_;
  FrameKeys keys_;
  Suite suite_ = Suite::Aes256Gcm;
  std::optional<Aead> c2s_;
  NonceSequence nonces_;
};

inline const ErrorBody* error_of(const FrameEvent& e) {
  return e.body ? std::get_if<ErrorBody>(&*e.body) : nullptr;
}

}  // namespace anthro::test
