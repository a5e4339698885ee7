// Where a test finds what it opens: the spec's vectors, anthro-wb, the checkout. CMake compiles each
// path in relative to the test program (anthro_test_path in tests/CMakeLists.txt) and it is resolved
// here when the test runs. An absolute path in a -D would differ in every clone, and ccache would miss
// every test file in a clone in another folder, which is what CI builds.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace anthro::test {

// `relative` resolved against the folder of the running program; the text lives as long as the program.
inline const char* beside_program(const char* relative) {
  static std::mutex mutex;
  static std::map<std::string, std::string> resolved;
  std::lock_guard lock(mutex);
  auto it = resolved.find(relative);
  if (it == resolved.end()) {
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::filesystem::path dir = n > 0 ? std::filesystem::path(std::string(exe, n)).parent_path() : ".";
    it = resolved.emplace(relative, (dir / relative).lexically_normal().string()).first;
  }
  return it->second.c_str();
}

}  // namespace anthro::test
