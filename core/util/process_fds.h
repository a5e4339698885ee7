// This process's open descriptors and TCP sockets, read from /proc/self: how the rollback
// rehearsal proves it left nothing behind.
#pragma once

#include <cstdint>
#include <set>

namespace anthro {

int open_fd_count();
// The inodes of this process's open sockets.
std::set<std::uint64_t> open_socket_inodes();
// This process's TCP sockets whose remote port is `port`: its client connections to a server
// there (an in-process server's own sockets have that port as their local port instead).
std::set<std::uint64_t> sockets_to_port(std::uint16_t port);
// How many of `sockets` are still open.
std::size_t still_open(const std::set<std::uint64_t>& sockets);
// Waits up to `max_s` for the descriptor count to fall to `count` (an in-process peer closes
// its side on its own thread) and returns the count then.
int settled_fd_count(int count, double max_s = 2.0);

}  // namespace anthro
