#include "util/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace anthro {
namespace {

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

}  // namespace

Result<SpillFile> SpillFile::create() {
  std::string dir = temp_dir();
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {  // file systems without O_TMPFILE: a named file, unlinked at once
    std::string path = dir + "/anthro-spill-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(path.c_str());
  }
  if (fd < 0) return make_error("io", "cannot create a temporary file in " + dir + ": " + std::strerror(errno));
  return SpillFile(fd);
}

SpillFile::SpillFile(SpillFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_(other.size_.exchange(0)),
      batch_(std::move(other.batch_)),
      refused_(std::move(other.refused_)),
      any_held_(other.any_held_.exchange(false)) {}

SpillFile& SpillFile::operator=(SpillFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_.exchange(0);
    batch_ = std::move(other.batch_);
    refused_ = std::move(other.refused_);
    any_held_ = other.any_held_.exchange(false);
  }
  return *this;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool SpillFile::write_at(std::uint64_t at, std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<SpillExtent> SpillFile::append(std::string_view data) {
  flush_batch();
  const std::uint64_t at = size_.load(std::memory_order_relaxed);  // one writer appends
  if (!write_at(at, data)) return std::nullopt;  // a short tail is overwritten by the next append
  size_.store(at + data.size(), std::memory_order_release);
  return SpillExtent{at, data.size()};
}

SpillExtent SpillFile::add(std::string_view data) {
  if (batch_.bytes.size() + data.size() > kBatch) flush_batch();
  const std::uint64_t at = size_.load(std::memory_order_relaxed);
  if (data.size() >= kBatch) {  // a batch of its own, written at once
    if (!write_at(at, data)) {
      std::lock_guard lock(held_mutex_);
      refused_.push_back(Held{at, std::string(data)});
      any_held_.store(true, std::memory_order_release);
    }
  } else {
    std::lock_guard lock(held_mutex_);
    if (batch_.bytes.empty()) {
      batch_.offset = at;
      batch_.bytes.reserve(kBatch);
      any_held_.store(true, std::memory_order_release);
    }
    batch_.bytes.append(data);
  }
  size_.store(at + data.size(), std::memory_order_release);
  return SpillExtent{at, data.size()};
}

// Writes the batch outside the lock (readers take their bytes from the batch meanwhile), then
// lets it go, or keeps it among the refused when the file would not take it.
void SpillFile::flush_batch() {
  if (batch_.bytes.empty()) return;
  const bool written = write_at(batch_.offset, batch_.bytes);
  std::lock_guard lock(held_mutex_);
  if (written) batch_.bytes.clear();
  else refused_.push_back(std::exchange(batch_, Held{}));
  any_held_.store(!refused_.empty(), std::memory_order_release);
}

// Copies from memory what of [at, end) starts in a held batch, moving `at` and `out` past it;
// false when `at` lies in the file.
bool SpillFile::copy_held(std::uint64_t& at, std::uint64_t end, char*& out) const {
  auto copy = [&](const Held& h) {
    if (at < h.offset || at >= h.offset + h.bytes.size()) return false;
    std::size_t n = std::min<std::uint64_t>(end, h.offset + h.bytes.size()) - at;
    std::memcpy(out, h.bytes.data() + (at - h.offset), n);
    at += n;
    out += n;
    return true;
  };
  if (copy(batch_)) return true;
  for (const Held& h : refused_)
    if (copy(h)) return true;
  return false;
}

bool SpillFile::read(const SpillExtent& extent, char* out) const {
  std::uint64_t at = extent.offset;
  const std::uint64_t end = extent.offset + extent.size;
  while (at < end) {
    std::uint64_t stop = end;  // of what lies in the file from `at`
    if (any_held_.load(std::memory_order_acquire)) {
      std::lock_guard lock(held_mutex_);
      if (copy_held(at, end, out)) continue;
      if (!batch_.bytes.empty() && batch_.offset > at) stop = std::min(stop, batch_.offset);
      for (const Held& h : refused_)
        if (h.offset > at) stop = std::min(stop, h.offset);
    }
    // Outside the lock: those bytes are in the file for good, and other readers need not wait.
    ssize_t n = ::pread(fd_, out, stop - at, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::uint64_t>(n);
    out += n;
  }
  return true;
}

std::optional<std::string> SpillFile::read(const SpillExtent& extent) const {
  std::string out(extent.size, '\0');
  if (!read(extent, out.data())) return std::nullopt;
  return out;
}

}  // namespace anthro
