// A private, unnamed temporary file that holds data a long pass produces but only needs at the
// end (stream texts of a big capture, decrypted bytes for random access), so memory stays flat.
// The file has no name (O_TMPFILE, else unlinked at once), mode 0600, and is gone when closed.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anthro {

struct SpillExtent {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

class SpillFile {
 public:
  // In $TMPDIR, else /tmp. Errors (reason "io") name the directory.
  static Result<SpillFile> create();
  SpillFile(SpillFile&& other) noexcept;
  SpillFile& operator=(SpillFile&& other) noexcept;
  ~SpillFile();

  // nullopt when the write fails (disk full): the caller keeps the data itself.
  std::optional<SpillExtent> append(std::string_view data);
  // Reads back what append() wrote; false on an I/O error.
  bool read(const SpillExtent& extent, char* out) const;
  std::optional<std::string> read(const SpillExtent& extent) const;
  // Safe to call while another thread appends (reads of written extents are too).
  std::uint64_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  explicit SpillFile(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::atomic<std::uint64_t> size_{0};
};

}  // namespace anthro
