// X25519 server keys as PKCS#8 PEM (--server-key): any text is refused with a reason naming
// its origin, or loads a key that writes back to a PEM loading the same key.
#include <cstddef>
#include <cstdint>

#include "crypto/key_schedule.h"

using namespace anthro;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto key = load_x25519_private_pem(as_text({data, size}), "fuzz.pem");
  if (!key) {
    if (key.error().detail.rfind("fuzz.pem: ", 0) != 0) __builtin_trap();
    return 0;
  }
  auto back = load_x25519_private_pem(x25519_private_to_pem(*key), "back");
  if (!back || *back != *key) __builtin_trap();
  return 0;
}
