// Finding and running `anthro-capture`: posix_spawn, no shell, its stdin, stdout and stderr on
// pipes of this process.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/bytes.h"
#include "util/result.h"

namespace anthro {

// find_private_program (util/private_program.h) of anthro-capture, $ANTHRO_CAPTURE_HELPER first.
Result<std::string> find_capture_helper();

class HelperProcess {
 public:
  static Result<std::unique_ptr<HelperProcess>> start(const std::string& path, const std::vector<std::string>& args);
  ~HelperProcess();  // stops the helper if it still runs, and reaps it
  HelperProcess(const HelperProcess&) = delete;
  HelperProcess& operator=(const HelperProcess&) = delete;

  // Waits up to `timeout_ms` for output, then hands stdout's bytes and stderr's complete lines
  // (without the newline) to the callbacks. False once both have reached end of file.
  bool pump(int timeout_ms, const std::function<void(ByteView)>& on_stdout,
            const std::function<void(std::string_view)>& on_stderr_line);
  // Asks the helper to stop: end of file on its stdin, and SIGTERM when `signal` is set (only
  // once it has said "ready": before that its handler may not be installed yet).
  void stop(bool signal);
  // Reaps it: its exit code, or -N when signal N ended it.
  int wait();

 private:
  HelperProcess() = default;
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  std::string partial_line_;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace anthro
