// Timing promises are Release figures. A sanitizer build runs several times slower, so there a
// test keeps only a bound derived from the delays it configured (a token gap, say): a figure
// taken from the wrong event would still miss it.
#pragma once

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

}  // namespace anthro::test
