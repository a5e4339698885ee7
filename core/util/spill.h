// A private, unnamed temporary file that holds data a long pass produces but only needs at the
// end (stream texts of a big capture, decrypted bytes for random access), so memory stays flat.
// The file has no name (O_TMPFILE, else unlinked at once), mode 0600, and is gone when closed.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  // For many small pieces: they gather in memory and go to the file kBatch bytes per write (a
  // write per piece cost more than the piece's bytes). A batch the file refuses stays in memory
  // and is read from there, so nothing is lost and this never fails.
  SpillExtent add(std::string_view data);
  // Reads back what append() or add() wrote; false on an I/O error.
  bool read(const SpillExtent& extent, char* out) const;
  std::optional<std::string> read(const SpillExtent& extent) const;
  // Safe to call while another thread appends (reads of written extents are too).
  std::uint64_t size() const { return size_.load(std::memory_order_acquire); }

  static constexpr std::size_t kBatch = 64u << 10;

 private:
  struct Held {  // bytes at `offset` that are not (yet) in the file
    std::uint64_t offset = 0;
    std::string bytes;
  };
  explicit SpillFile(int fd) : fd_(fd) {}
  bool write_at(std::uint64_t at, std::string_view data);
  void flush_batch();
  bool copy_held(std::uint64_t& at, std::uint64_t end, char*& out) const;
  int fd_ = -1;
  std::atomic<std::uint64_t> size_{0};
  mutable std::mutex held_mutex_;  // guards batch_ and refused_ against readers on other threads
  Held batch_;                     // add()'s pieces not yet written
  std::vector<Held> refused_;      // batches the file refused, in offset order
  std::atomic<bool> any_held_{false};
};

}  // namespace anthro
