// NSS key log files (SSLKEYLOGFILE) with the ANTHRO_V1 lines of spec §7.
#pragma once

#include <string>
#include <vector>

#include "crypto/key_schedule.h"

namespace anthro {

struct AnthroKeyLine {
  std::uint64_t token = 0;
  FrameKeys keys;
};

// A TLS secret (CLIENT_RANDOM, *_TRAFFIC_SECRET_*, EXPORTER_SECRET), kept for TLS decryption.
struct TlsSecretLine {
  std::string label;
  Bytes client_random;
  Bytes secret;
};

struct KeyLog {
  std::vector<AnthroKeyLine> anthro;
  std::vector<TlsSecretLine> tls;
  // Malformed lines of known labels, each naming its origin and line; they are skipped.
  std::vector<std::string> problems;
};

// `#` comments, blank lines and unknown labels are ignored; hex is case-insensitive.
KeyLog parse_keylog(std::string_view text, const std::string& origin);
std::string format_anthro_line(std::uint64_t token, const FrameKeys& keys);
std::string format_tls_line(const TlsSecretLine& line);

// Appends one line to a key log, creating it with mode 0600. Errors name the path.
Result<bool> append_keylog_line(const std::string& path, std::string_view line);

}  // namespace anthro
