// Timing promises are Release figures. A sanitizer build runs several times slower, so there a
// test keeps only a bound derived from the delays it configured (a token gap, say): a figure
// taken from the wrong event would still miss it.
#pragma once

#include <cstdint>

namespace anthro::test {

inline constexpr double timing_bound(double release, double sanitized) {
#ifdef ANTHRO_SANITIZED
  (void)release;
  return sanitized;
#else
  (void)sanitized;
  return release;
#endif
}

// Memory bounds likewise: AddressSanitizer keeps freed blocks in its quarantine (256 MB by
// default) before reusing them, so a sanitized process's RSS may grow by that much more.
inline constexpr std::uint64_t sanitizer_quarantine_bytes() {
#ifdef ANTHRO_SANITIZED
  return std::uint64_t{256} << 20;
#else
  return 0;
#endif
}

}  // namespace anthro::test
