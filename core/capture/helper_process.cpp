#include "capture/helper_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "capture/capture_helper.h"
#include "util/private_program.h"

extern char** environ;

namespace anthro {
namespace {

constexpr std::size_t kLongestLine = 4096;  // a longer stderr line is cut into pieces of this size

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<std::string> find_capture_helper() {
  return find_private_program(capture_helper::kProgramName, capture_helper::kPathVariable, "capture helper",
                              "capture-helper");
}

Result<std::unique_ptr<HelperProcess>> HelperProcess::start(const std::string& path, const std::vector<std::string>& args) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return make_error(ErrorClass::Network, "capture", std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return make_error(ErrorClass::Network, "capture", std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return make_error(ErrorClass::Network, "capture", std::string("pipe: ") + std::strerror(errno));
  }
  // A bigger pipe rides out a slow reader for longer before the helper blocks (1 MiB is the
  // unprivileged limit); failing that, the default will do.
  ::fcntl(out[0], F_SETPIPE_SZ, 1 << 20);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // The helper must see SIGPIPE, SIGTERM and SIGINT even if this process ignores or blocks them.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGTERM, SIGINT}) sigaddset(&defaults, s);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (spawned != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return make_error(ErrorClass::Network, "capture-helper", path + ": cannot run: " + std::strerror(spawned));
  }
  std::unique_ptr<HelperProcess> p(new HelperProcess());
  p->pid_ = pid;
  p->stdin_ = in[1];
  p->stdout_ = out[0];
  p->stderr_ = err[0];
  return p;
}

HelperProcess::~HelperProcess() {
  if (reaped_) return;
  stop(true);
  close_fd(stdout_);  // a helper still writing gets SIGPIPE
  close_fd(stderr_);
  for (int i = 0; i < 50 && !reaped_; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) reaped_ = true;
    else std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool HelperProcess::pump(int timeout_ms, const std::function<void(ByteView)>& on_stdout,
                         const std::function<void(std::string_view)>& on_stderr_line) {
  pollfd fds[2] = {{stdout_, POLLIN, 0}, {stderr_, POLLIN, 0}};
  if (stdout_ < 0 && stderr_ < 0) return false;
  int ready = ::poll(fds, 2, timeout_ms);  // negative descriptors are ignored
  if (ready <= 0) return true;
  std::uint8_t buf[65536];
  if (fds[0].revents) {
    ssize_t n = ::read(stdout_, buf, sizeof buf);
    if (n > 0) on_stdout(ByteView(buf, static_cast<std::size_t>(n)));
    else if (n == 0 || errno != EINTR) close_fd(stdout_);
  }
  if (fds[1].revents) {
    ssize_t n = ::read(stderr_, buf, sizeof buf);
    if (n > 0) partial_line_.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) close_fd(stderr_);
    std::size_t at;
    while ((at = partial_line_.find('\n')) != std::string::npos || partial_line_.size() >= kLongestLine) {
      std::size_t len = std::min(at, kLongestLine);
      on_stderr_line(std::string_view(partial_line_).substr(0, len));
      partial_line_.erase(0, len == at ? len + 1 : len);
    }
    if (stderr_ < 0 && !partial_line_.empty()) {
      on_stderr_line(partial_line_);
      partial_line_.clear();
    }
  }
  return stdout_ >= 0 || stderr_ >= 0;
}

void HelperProcess::stop(bool signal) {
  close_fd(stdin_);
  if (signal && !reaped_) ::kill(pid_, SIGTERM);
}

int HelperProcess::wait() {
  if (!reaped_) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  close_fd(stdin_);
  if (WIFSIGNALED(status_)) return -WTERMSIG(status_);
  return WEXITSTATUS(status_);
}

}  // namespace anthro
