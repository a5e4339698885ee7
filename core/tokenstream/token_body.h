// The body of a token-stream response (../shared/spec/profiles/token-stream.md): token
// ids as u32 little-endian, the length a multiple of 4, id 0 as padding only in a run at the
// very end, id 0xFFFFFFFE marking where the degraded path begins. Alignment belongs to the
// whole body, never to one HTTP/2 DATA frame or chunk, so the decoder takes the body in pieces
// cut anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tokenstream/reject.h"
#include "util/bytes.h"

namespace anthro {

inline constexpr std::uint32_t kTokenStreamPadding = 0;
inline constexpr std::uint32_t kTokenStreamDegraded = 0xFFFFFFFE;
inline constexpr std::size_t kTokenStreamAlignment = 4;

struct TokenStreamBody {
  std::vector<std::uint32_t> tokens;       // every id but the trailing padding, the marker included
  std::size_t padding = 0;                 // the trailing run of id 0
  std::optional<std::size_t> degraded_at;  // index in `tokens` of the first degraded marker
  bool operator==(const TokenStreamBody&) const = default;
};

// Takes a body in pieces. When a body has more than one fault, the first in the body wins
// (a partial last token comes after every whole one), so a reader may stop at the first
// refusal and still agree with one that read everything.
class TokenStreamBodyDecoder {
 public:
  // The next bytes of the body; false once the body is refused (what follows is ignored).
  bool feed(ByteView bytes);
  // The whole body fed so far: what it decodes to, or why it is refused.
  TokenStreamResult<TokenStreamBody> finish() const;

  // Decoded so far, for a reader that shows tokens as they come.
  const TokenStreamBody& body() const { return body_; }
  std::size_t bytes_fed() const { return fed_; }
  const std::optional<TokenStreamRejection>& rejection() const { return rejection_; }

 private:
  void take(std::uint32_t id);

  std::array<std::uint8_t, kTokenStreamAlignment> partial_{};
  std::size_t partial_size_ = 0;
  std::size_t fed_ = 0;
  TokenStreamBody body_;
  std::optional<TokenStreamRejection> rejection_;
};

TokenStreamResult<TokenStreamBody> decode_token_stream_body(ByteView body);

// One id as its four little-endian bytes, for an endpoint that sends tokens as they come.
void append_token_stream_id(Bytes& out, std::uint32_t id);
// `tokens` then `padding` ids 0. An id 0 among `tokens` makes a body the decoder refuses (or,
// at the end, reads as padding): the caller's tokens are real ones.
Bytes encode_token_stream_body(std::span<const std::uint32_t> tokens, std::size_t padding = 0);

}  // namespace anthro
