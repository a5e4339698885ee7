#include "protocol/blob.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace anthro {

const char* to_string(BlobReason reason) {
  switch (reason) {
    case BlobReason::Size: return "size";
    case BlobReason::Version: return "version";
    case BlobReason::Role: return "role";
    case BlobReason::Reserved: return "reserved";
    case BlobReason::Token: return "token";
    case BlobReason::MaxStreams: return "max-streams";
    case BlobReason::DefaultMaxTokens: return "default-max-tokens";
    case BlobReason::Flags: return "flags";
    case BlobReason::Aead: return "aead";
    case BlobReason::Ring: return "ring";
    case BlobReason::TokenEcho: return "token-echo";
    case BlobReason::ZeroShared: return "zero-shared";
  }
  return "?";
}

Bytes encode_blob(const Blob& b) {
  Bytes out(kBlobSize, 0);
  std::uint8_t* p = out.data();
  p[0] = b.blob_version;
  p[1] = b.role;
  store_u16(p + 2, b.max_streams);
  store_u32(p + 4, b.default_max_tokens);
  p[8] = b.flags;
  p[9] = b.aead;
  store_u16(p + 10, b.ring_buffer_kib);
  store_u32(p + 12, b.reserved_12);
  store_u64(p + 16, b.connection_token);
  std::memcpy(p + 24, b.x25519_public.data(), 32);
  std::memcpy(p + 56, b.random.data(), 32);
  std::memcpy(p + 88, b.reserved_88.data(), 40);
  return out;
}

Result<Blob> decode_blob(ByteView bytes) {
  if (bytes.size() != kBlobSize)
    return make_error("size", "negotiation blob is " + std::to_string(bytes.size()) +
                                  " bytes, expected 128");
  const std::uint8_t* p = bytes.data();
  Blob b;
  b.blob_version = p[0];
  b.role = p[1];
  b.max_streams = load_u16(p + 2);
  b.default_max_tokens = load_u32(p + 4);
  b.flags = p[8];
  b.aead = p[9];
  b.ring_buffer_kib = load_u16(p + 10);
  b.reserved_12 = load_u32(p + 12);
  b.connection_token = load_u64(p + 16);
  std::memcpy(b.x25519_public.data(), p + 24, 32);
  std::memcpy(b.random.data(), p + 56, 32);
  std::memcpy(b.reserved_88.data(), p + 88, 40);
  return b;
}

namespace {

BlobRefusal refuse(BlobReason reason, std::string detail) { return {reason, std::move(detail)}; }

std::string num(unsigned long long v) { return std::to_string(v); }

// The checks an offer and an answer share, up to and including `token`.
std::optional<BlobRefusal> check_common(const Blob& b, std::uint8_t role, const char* what) {
  if (b.blob_version != kBlobVersion)
    return refuse(BlobReason::Version, std::string(what) + " blob_version is " +
                                           num(b.blob_version) + ", expected 1 (offset 0)");
  if (b.role != role)
    return refuse(BlobReason::Role, std::string(what) + " role is " + num(b.role) + ", expected " +
                                        num(role) + " (offset 1)");
  bool tail_zero = std::all_of(b.reserved_88.begin(), b.reserved_88.end(),
                               [](std::uint8_t x) { return x == 0; });
  if (b.reserved_12 != 0 || !tail_zero)
    return refuse(BlobReason::Reserved, std::string(what) + " reserved bytes at offset " +
                                            (b.reserved_12 != 0 ? "12-15" : "88-127") +
                                            " are not zero");
  if (b.connection_token == 0)
    return refuse(BlobReason::Token, std::string(what) + " connection_token is zero (offset 16)");
  return std::nullopt;
}

}  // namespace

std::optional<BlobRefusal> check_offer(ByteView bytes) {
  auto decoded = decode_blob(bytes);
  if (!decoded) return refuse(BlobReason::Size, "offer: " + decoded.error().detail);
  const Blob& b = *decoded;
  if (auto r = check_common(b, kRoleOffer, "offer")) return r;
  if (b.max_streams == 0) return refuse(BlobReason::MaxStreams, "offer max_streams is 0 (offset 2)");
  if (b.default_max_tokens == 0)
    return refuse(BlobReason::DefaultMaxTokens, "offer default_max_tokens is 0 (offset 4)");
  if (b.flags & kFlagsReserved)
    return refuse(BlobReason::Flags, "offer flags 0x" + to_hex({&b.flags, 1}) +
                                         " set reserved bits 3-7 (offset 8)");
  if (b.aead == 0 || (b.aead & ~(kSuiteAes256Gcm | kSuiteChaCha20Poly1305)))
    return refuse(BlobReason::Aead, "offer aead 0x" + to_hex({&b.aead, 1}) +
                                        " is zero or sets bits 2-7 (offset 9)");
  if (b.ring_buffer_kib < kMinRingKib)
    return refuse(BlobReason::Ring, "offer ring_buffer_kib " + num(b.ring_buffer_kib) +
                                        " is below 64 (offset 10)");
  return std::nullopt;
}

std::optional<BlobRefusal> check_answer(const Blob& offer, ByteView bytes) {
  auto decoded = decode_blob(bytes);
  if (!decoded) return refuse(BlobReason::Size, "answer: " + decoded.error().detail);
  const Blob& b = *decoded;
  if (auto r = check_common(b, kRoleAnswer, "answer")) return r;
  if (b.max_streams == 0 || b.max_streams > offer.max_streams)
    return refuse(BlobReason::MaxStreams, "answer max_streams " + num(b.max_streams) +
                                              " is not within 1.." + num(offer.max_streams) +
                                              " offered (offset 2)");
  if (b.default_max_tokens == 0)
    return refuse(BlobReason::DefaultMaxTokens, "answer default_max_tokens is 0 (offset 4)");
  if ((b.flags & kFlagsReserved) || (b.flags & ~offer.flags))
    return refuse(BlobReason::Flags, "answer flags 0x" + to_hex({&b.flags, 1}) +
                                         " are not a subset of the offered 0x" +
                                         to_hex({&offer.flags, 1}) + " (offset 8)");
  if (std::popcount(b.aead) != 1 || !(b.aead & offer.aead) ||
      (b.aead & ~(kSuiteAes256Gcm | kSuiteChaCha20Poly1305)))
    return refuse(BlobReason::Aead, "answer aead 0x" + to_hex({&b.aead, 1}) +
                                        " is not exactly one offered suite bit of 0x" +
                                        to_hex({&offer.aead, 1}) + " (offset 9)");
  if (b.ring_buffer_kib != offer.ring_buffer_kib)
    return refuse(BlobReason::Ring, "answer ring_buffer_kib " + num(b.ring_buffer_kib) +
                                        " does not echo the offered " +
                                        num(offer.ring_buffer_kib) + " (offset 10)");
  if (b.connection_token != offer.connection_token)
    return refuse(BlobReason::TokenEcho, "answer connection_token " +
                                             token_hex(b.connection_token) +
                                             " does not echo the offered " +
                                             token_hex(offer.connection_token) + " (offset 16)");
  return std::nullopt;
}

Negotiated negotiated_from(const Blob& answer) {
  Negotiated n;
  n.token = answer.connection_token;
  n.flags = answer.flags;
  n.suite = static_cast<Suite>(answer.aead);
  n.max_streams = answer.max_streams;
  n.default_max_tokens = answer.default_max_tokens;
  n.ring_buffer_kib = answer.ring_buffer_kib;
  return n;
}

Result<FrameKeys> client_frame_keys(const Key32& client_private, const Blob& offer, const Blob& answer) {
  return frame_keys(client_private, answer.x25519_public, offer.connection_token, offer.random);
}

Result<FrameKeys> server_frame_keys(const Key32& server_private, const Blob& offer) {
  return frame_keys(server_private, offer.x25519_public, offer.connection_token, offer.random);
}

}  // namespace anthro
