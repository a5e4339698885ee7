#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

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

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path, "cannot open");
  // A directory opens, then reads as nothing: it would pass for an empty file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return make_error("io", path + ": is a directory, not a file");
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return io_error(path, "cannot read");
  return out.str();
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
