#include "util/process_fds.h"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace anthro {
namespace {

// Calls `each` with every open descriptor's link target.
template <typename F>
int for_each_fd(F each) {
  int count = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 0;
  int own = dirfd(dir);
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.' || std::atoi(e->d_name) == own) continue;
    ++count;
    char link[128] = {};
    std::string path = std::string("/proc/self/fd/") + e->d_name;
    if (readlink(path.c_str(), link, sizeof link - 1) > 0) each(link);
  }
  closedir(dir);
  return count;
}

}  // namespace

int open_fd_count() {
  return for_each_fd([](const char*) {});
}

std::set<std::uint64_t> open_socket_inodes() {
  std::set<std::uint64_t> inodes;
  for_each_fd([&](const char* link) {
    unsigned long long inode = 0;
    if (std::sscanf(link, "socket:[%llu]", &inode) == 1) inodes.insert(inode);
  });
  return inodes;
}

std::set<std::uint64_t> sockets_to_port(std::uint16_t port) {
  std::set<std::uint64_t> mine = open_socket_inodes(), found;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
      std::uint64_t inode = 0;
      if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode)) continue;
      auto colon = remote.rfind(':');
      if (colon == std::string::npos || !mine.count(inode)) continue;
      if (std::strtoul(remote.c_str() + colon + 1, nullptr, 16) == port) found.insert(inode);
    }
  }
  return found;
}

std::size_t still_open(const std::set<std::uint64_t>& sockets) {
  std::set<std::uint64_t> now = open_socket_inodes();
  std::size_t n = 0;
  for (auto inode : sockets) n += now.count(inode);
  return n;
}

int settled_fd_count(int count, double max_s) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_s);
  int now = open_fd_count();
  while (now > count && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    now = open_fd_count();
  }
  return now;
}

}  // namespace anthro
