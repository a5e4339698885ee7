#include "tokenstream/token_body.h"

#include <string>

namespace anthro {
namespace {

std::uint32_t load_u32_le(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

TokenStreamRejection padding_inside(std::uint32_t id, std::size_t index, std::size_t padding_index) {
  return {TokenStreamReject::PaddingInside, index * kTokenStreamAlignment,
          "token id " + std::to_string(id) + " at index " + std::to_string(index) + " (byte " +
              std::to_string(index * kTokenStreamAlignment) + ") follows padding (id 0) at index " +
              std::to_string(padding_index)};
}

TokenStreamRejection misaligned(std::size_t length, std::size_t partial) {
  std::size_t at = length - partial;
  return {TokenStreamReject::Alignment, at,
          "the body is " + std::to_string(length) + " bytes, not a multiple of 4: " + std::to_string(partial) +
              " byte(s) of a token from byte " + std::to_string(at)};
}

}  // namespace

void TokenStreamBodyDecoder::take(std::uint32_t id) {
  const std::size_t index = body_.tokens.size() + body_.padding;
  if (id == kTokenStreamPadding) {
    ++body_.padding;
    return;
  }
  if (body_.padding) {
    rejection_ = padding_inside(id, index, body_.tokens.size());
    return;
  }
  if (id == kTokenStreamDegraded && !body_.degraded_at) body_.degraded_at = body_.tokens.size();
  body_.tokens.push_back(id);
}

bool TokenStreamBodyDecoder::feed(ByteView bytes) {
  std::size_t i = 0;
  while (!rejection_ && i < bytes.size()) {
    if (partial_size_ == 0 && bytes.size() - i >= kTokenStreamAlignment) {
      take(load_u32_le(bytes.data() + i));  // the common case: a whole token in this piece
      i += kTokenStreamAlignment;
      fed_ += kTokenStreamAlignment;
      continue;
    }
    partial_[partial_size_++] = bytes[i++];
    ++fed_;
    if (partial_size_ == kTokenStreamAlignment) {
      partial_size_ = 0;
      take(load_u32_le(partial_.data()));
    }
  }
  return !rejection_;
}

TokenStreamResult<TokenStreamBody> TokenStreamBodyDecoder::finish() const {
  if (rejection_) return *rejection_;
  if (partial_size_) return misaligned(fed_, partial_size_);
  return body_;
}

TokenStreamResult<TokenStreamBody> decode_token_stream_body(ByteView body) {
  TokenStreamBodyDecoder d;
  d.feed(body);
  return d.finish();
}

void append_token_stream_id(Bytes& out, std::uint32_t id) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(id >> shift));
}

Bytes encode_token_stream_body(std::span<const std::uint32_t> tokens, std::size_t padding) {
  Bytes out;
  // Only a hint: a count that overflows the multiplication reserves nothing.
  const std::size_t ids = tokens.size() + padding;
  if (ids >= tokens.size() && ids <= out.max_size() / kTokenStreamAlignment) out.reserve(ids * kTokenStreamAlignment);
  for (std::uint32_t id : tokens) append_token_stream_id(out, id);
  for (std::size_t i = 0; i < padding; ++i) append_token_stream_id(out, kTokenStreamPadding);
  return out;
}

}  // namespace anthro
