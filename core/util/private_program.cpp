#include "util/private_program.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace anthro {
namespace {

std::string running_program_dir() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return {};
  std::string exe(path, static_cast<std::size_t>(n));
  return exe.substr(0, exe.rfind('/'));
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

Result<std::string> find_private_program(std::string_view name, const char* path_variable, std::string_view what,
                                         std::string_view reason) {
  const std::string label(what), variable(path_variable), program(name);
  if (const char* set = std::getenv(path_variable); set && *set) {
    if (is_executable_file(set)) return std::string(set);
    return make_error(ErrorClass::Usage, std::string(reason),
                      "the " + label + " is not an executable file at " + set + " (from " + variable + ")");
  }
  std::vector<std::string> candidates;
  if (std::string dir = running_program_dir(); !dir.empty()) {
    candidates.push_back(dir + "/" + program);
    candidates.push_back(dir.substr(0, dir.rfind('/')) + "/lib/anthro-workbench/" + program);
  }
  std::string looked;
  for (const auto& c : candidates) {
    if (is_executable_file(c)) return c;
    looked += (looked.empty() ? "" : ", ") + c;
  }
  return make_error(ErrorClass::Usage, std::string(reason),
                    "the " + label + " " + program + " was not found: looked in " + looked + " and $" + variable +
                        " is not set (reinstall anthro-workbench, or set " + variable + " to its path)");
}

Result<int> run_program(const std::string& path, const std::vector<std::string>& args, std::string_view reason) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int e = ::posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(), environ); e != 0)
    return make_error(ErrorClass::Usage, std::string(reason), "cannot run " + path + ": " + std::strerror(e));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return make_error(ErrorClass::Usage, std::string(reason), "lost " + path + ": " + std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace anthro
