// NSS key log files (SSLKEYLOGFILE) with the ANTHRO_V1 lines of spec §7.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
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

// The key log one client run writes (its TLS library's lines and its ANTHRO_V1 lines, from every
// connection, on any thread). A line that cannot be written does not stop the run: the first
// error is kept, to be reported once as a warning that names the file.
class KeyLogSink {
 public:
  explicit KeyLogSink(std::string path) : path_(std::move(path)) {}
  void append(std::string_view line);
  std::optional<std::string> error() const;  // "PATH: cannot ... key log: WHY (N lines not written)"

 private:
  std::string path_;
  mutable std::mutex mutex_;
  std::optional<Error> first_error_;
  std::uint64_t lost_ = 0;
};

// The key-log lines (TLS secrets, ANTHRO_V1 keys) of this process's own client connections,
// kept in memory only while a capture started in this process watches (the workbench's Start
// Capture), so that capture embeds them with no key file. Every client TLS context logs through
// on_keylog (net/tls.cpp), which records here; the CLI never watches, so it keeps nothing.
class OwnKeyLog {
 public:
  // A TLS 1.3 connection logs five lines (and an anthro-v1 one its ANTHRO_V1 line), about 1.2 KB:
  // 16384 lines are ~2,700 connections of a load in ~3.5 MB, far inside a DSB's and a key log's
  // limits. Past it the oldest lines go; a watch says how many of its own it lost.
  static constexpr std::size_t kMaxLines = 16384;

  // Lines recorded from its start on; several may overlap. Recording stops, and what was kept
  // is dropped, when the last one ends.
  class Watch {
   public:
    Watch();
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    std::vector<std::string> lines() const;  // oldest first
    std::uint64_t lost() const;              // its lines the bound pushed out

   private:
    std::uint64_t from_;
  };

  static void record(std::string_view line);  // nothing unless watched
};

}  // namespace anthro
