// The negotiation blob: the offer rules on the input, and the answer rules on its second
// 128 bytes against the first.
#include <cstddef>
#include <cstdint>

#include "protocol/blob.h"

using namespace anthro;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteView in(data, size);
  if (!check_offer(in)) {
    // An accepted offer is exactly 128 bytes and decoding keeps every byte, reserved ones too.
    auto blob = decode_blob(in);
    if (!blob || encode_blob(*blob) != Bytes(in.begin(), in.end())) __builtin_trap();
  }
  if (size >= 2 * kBlobSize) {
    auto offer = decode_blob(in.first(kBlobSize));
    ByteView answer = in.subspan(kBlobSize, kBlobSize);
    if (!check_answer(*offer, answer)) {
      // An accepted answer names exactly one suite, so the cast in negotiated_from is valid.
      Suite suite = negotiated_from(*decode_blob(answer)).suite;
      if (suite != Suite::Aes256Gcm && suite != Suite::ChaCha20Poly1305) __builtin_trap();
    }
  }
  return 0;
}
