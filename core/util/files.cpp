#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace anthro {
namespace {

Error io_error(const std::string& path, const std::string& what) {
  return make_error("io", path + ": " + what + ": " + std::strerror(errno));
}

bool make_dirs(const std::string& path, mode_t mode) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), mode) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

Result<bool> write_file_atomic(const std::string& path, std::string_view data, unsigned mode) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return io_error(tmp, "cannot create");
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = io_error(tmp, "cannot write");
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = io_error(tmp, "cannot flush");
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = io_error(path, "cannot rename into place");
    ::unlink(tmp.c_str());
    return e;
  }
  return true;
}

namespace {

// "is a FIFO", what a path that is not a regular file is instead.
std::string not_regular(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO";
  if (S_ISCHR(mode)) return "is a character device";
  if (S_ISBLK(mode)) return "is a block device";
  if (S_ISSOCK(mode)) return "is a socket";
  return "is a special file";
}

std::string size_text(std::uint64_t bytes) {
  if (bytes % file_limit::kMiB == 0) return std::to_string(bytes / file_limit::kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Error too_large(const std::string& path, const FileLimit& limit) {
  return make_error("io", path + ": larger than the " + size_text(limit.bytes) + " " + limit.what + " may be");
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// Up to `most` bytes from `fd`, room made for `expected` at once; a read error names `path`.
Result<std::string> read_up_to(int fd, const std::string& path, std::uint64_t most, std::uint64_t expected = 0) {
  std::string out;
  out.reserve(static_cast<std::size_t>(std::min(most, expected)));
  char block[64 * 1024];
  while (out.size() < most) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof block, most - out.size()));
    ssize_t n = ::read(fd, block, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(path, "cannot read");
    if (n == 0) break;
    out.append(block, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

Result<int> open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one, before any check.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Error e = io_error(path, "cannot stat");
    ::close(fd);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("io", path + ": " + not_regular(st.st_mode) + ", not a regular file");
  }
  if (int flags = ::fcntl(fd, F_GETFL); flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    Error e = io_error(path, "cannot clear O_NONBLOCK");
    ::close(fd);
    return e;
  }
  return fd;
}

Result<std::string> read_file(const std::string& path, const FileLimit& limit) {
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  FdCloser closer{*fd};
  struct stat st {};
  const std::uint64_t size = ::fstat(*fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (size > limit.bytes) return too_large(path, limit);
  // One byte past the limit tells a file that grew since fstat from one that fits exactly.
  auto text = read_up_to(*fd, path, limit.bytes + 1, size);
  if (text && text->size() > limit.bytes) return too_large(path, limit);
  return text;
}

Result<std::string> read_file_start(const std::string& path, std::size_t bytes) {
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  FdCloser closer{*fd};
  return read_up_to(*fd, path, bytes);
}

Result<std::string> data_dir() {
  std::string base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.local/share";
  else return make_error("io", "neither XDG_DATA_HOME nor HOME is set: no data directory");
  std::string dir = base + "/anthro-workbench";
  if (!make_dirs(dir, 0700)) return io_error(dir, "cannot create data directory");
  return dir;
}

}  // namespace anthro
