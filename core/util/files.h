// Files the way users need them: whole or not at all, bounded, private when they hold secrets.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace anthro {

// A kind of file the workbench reads whole, and the most of it that it will read: past that the
// read is refused by name ("x.json: larger than the 16 MiB a rollout plan may be").
struct FileLimit {
  const char* what;  // "a rollout plan", as the refusal says it
  std::uint64_t bytes;
};

// Every limit in one place (docs/security.md lists them).
namespace file_limit {
inline constexpr std::uint64_t kMiB = 1024 * 1024;
inline constexpr FileLimit kResult{"a result file", 128 * kMiB};  // report input, rollout --resume
inline constexpr FileLimit kMessages{"a messages file", 64 * kMiB};  // USER_INPUT runs to 16 MiB, JSON-escaped
inline constexpr FileLimit kPlan{"a rollout plan", 16 * kMiB};
inline constexpr FileLimit kChecklist{"a checklist", 16 * kMiB};
inline constexpr FileLimit kSchema{"a tool schema", 16 * kMiB};
inline constexpr FileLimit kKeyLog{"a key log", 64 * kMiB};  // SSLKEYLOGFILE of a long browser session
inline constexpr FileLimit kPemKey{"a PEM key", 1 * kMiB};
inline constexpr FileLimit kCertificates{"a certificate file", 16 * kMiB};  // --cert chains, --cacert bundles
}  // namespace file_limit

// Writes to a temporary file beside `path`, then renames it over `path`.
Result<bool> write_file_atomic(const std::string& path, std::string_view data, unsigned mode = 0644);
// The whole of a regular file of `limit`'s kind; a FIFO, device or directory is refused at once,
// and a file larger than the limit without reading past it.
Result<std::string> read_file(const std::string& path, const FileLimit& limit);
// At most the first `bytes` of a regular file (to tell what kind of file it is).
Result<std::string> read_file_start(const std::string& path, std::size_t bytes);
// A descriptor open for reading on a regular file, for readers that stream (captures). Opened
// without blocking, so a FIFO with no writer is refused rather than waited on; the caller closes it.
Result<int> open_regular_file(const std::string& path);
// $XDG_DATA_HOME/anthro-workbench, else ~/.local/share/anthro-workbench; created with mode 0700.
Result<std::string> data_dir();

}  // namespace anthro
