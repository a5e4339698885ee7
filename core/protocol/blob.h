// The 128-byte negotiation blob (spec §2): offer, answer, and their rules.
#pragma once

#include <cstdint>
#include <optional>

#include "crypto/key_schedule.h"
#include "util/bytes.h"
#include "util/result.h"
#include "util/vocabulary.h"

namespace anthro {

inline constexpr std::size_t kBlobSize = 128;
inline constexpr std::uint8_t kBlobVersion = 0x01;
inline constexpr std::uint8_t kRoleOffer = 0x01;
inline constexpr std::uint8_t kRoleAnswer = 0x02;
inline constexpr std::uint16_t kDefaultRingKib = 4096;
inline constexpr std::uint16_t kMinRingKib = 64;

// Flag bits shared by the blob and the frame header.
inline constexpr std::uint8_t kFlagStreaming = 0x01;
inline constexpr std::uint8_t kFlagSpeculative = 0x02;
inline constexpr std::uint8_t kFlagContextCaching = 0x04;
inline constexpr std::uint8_t kFlagsReserved = 0xF8;

// The reasons of spec §2, in the order they are checked.
enum class BlobReason {
  Size, Version, Role, Reserved, Token, MaxStreams, DefaultMaxTokens, Flags, Aead, Ring,
  TokenEcho, ZeroShared
};
const char* to_string(BlobReason reason);

struct Blob {
  std::uint8_t blob_version = kBlobVersion;
  std::uint8_t role = kRoleOffer;
  std::uint16_t max_streams = 1;
  std::uint32_t default_max_tokens = 1024;
  std::uint8_t flags = kFlagStreaming;
  std::uint8_t aead = kSuiteAes256Gcm | kSuiteChaCha20Poly1305;
  std::uint16_t ring_buffer_kib = kDefaultRingKib;
  std::uint32_t reserved_12 = 0;
  std::uint64_t connection_token = 0;
  Key32 x25519_public{};
  Key32 random{};
  std::array<std::uint8_t, 40> reserved_88{};

  bool operator==(const Blob&) const = default;
};

Bytes encode_blob(const Blob& blob);
// Fields as they are on the wire, reserved bytes included; only the size is checked.
Result<Blob> decode_blob(ByteView bytes);

struct BlobRefusal {
  BlobReason reason;
  std::string detail;
};

// Offer rules of §2. nullopt when the offer is valid.
std::optional<BlobRefusal> check_offer(ByteView offer);
// Answer rules of §2, judged against a valid offer.
std::optional<BlobRefusal> check_answer(const Blob& offer, ByteView answer);

// What both sides agreed on, for the life of the connection.
struct Negotiated {
  std::uint64_t token = 0;
  std::uint8_t flags = 0;
  Suite suite = Suite::Aes256Gcm;
  std::uint16_t max_streams = 1;
  std::uint32_t default_max_tokens = 1024;
  std::uint16_t ring_buffer_kib = kDefaultRingKib;
};
Negotiated negotiated_from(const Blob& answer);

// The frame keys of §3 from the blobs: the client with its ephemeral private key and the
// server's answer; the server, or an observer holding its static key, from the offer alone.
Result<FrameKeys> client_frame_keys(const Key32& client_private, const Blob& offer, const Blob& answer);
Result<FrameKeys> server_frame_keys(const Key32& server_private, const Blob& offer);

}  // namespace anthro
