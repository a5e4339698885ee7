#include "util/spill.h"

#include <fcntl.h>
#include <unistd.h>

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
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_.exchange(0)) {}

SpillFile& SpillFile::operator=(SpillFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_.exchange(0);
  }
  return *this;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<SpillExtent> SpillFile::append(std::string_view data) {
  const std::uint64_t at = size_.load(std::memory_order_relaxed);  // one writer appends
  SpillExtent extent{at, data.size()};
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // a short tail is overwritten by the next append
    done += static_cast<std::size_t>(n);
  }
  size_.store(at + data.size(), std::memory_order_release);
  return extent;
}

bool SpillFile::read(const SpillExtent& extent, char* out) const {
  std::size_t done = 0;
  while (done < extent.size) {
    ssize_t n = ::pread(fd_, out + done, extent.size - done, static_cast<off_t>(extent.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> SpillFile::read(const SpillExtent& extent) const {
  std::string out(extent.size, '\0');
  if (!read(extent, out.data())) return std::nullopt;
  return out;
}

}  // namespace anthro
