// NSS key logs (SSLKEYLOGFILE with ANTHRO_V1 lines): every line that parses formats back to a
// line that parses to the same keys, and every refused line is named with its origin and line.
#include <cstddef>
#include <cstdint>

#include "crypto/keylog.h"

using namespace anthro;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  KeyLog log = parse_keylog(as_text({data, size}), "fuzz");
  for (const auto& line : log.anthro) {
    KeyLog back = parse_keylog(format_anthro_line(line.token, line.keys), "back");
    if (back.anthro.size() != 1 || back.anthro[0].token != line.token || back.anthro[0].keys != line.keys)
      __builtin_trap();
  }
  for (const auto& line : log.tls) {
    KeyLog back = parse_keylog(format_tls_line(line), "back");
    if (back.tls.size() != 1 || back.tls[0].label != line.label ||
        back.tls[0].client_random != line.client_random || back.tls[0].secret != line.secret)
      __builtin_trap();
  }
  for (const auto& problem : log.problems)
    if (problem.rfind("fuzz:", 0) != 0) __builtin_trap();
  return 0;
}
