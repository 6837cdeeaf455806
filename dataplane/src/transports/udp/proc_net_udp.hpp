#pragma once
// Kernel drops of one UDP socket from /proc/net/udp (the "drops" column, matched by inode).
// The table is per network namespace; we read our own, which is the receiver's.
#include <cstdint>
#include <istream>
#include <optional>

namespace spiral {

std::optional<uint64_t> udp_drops_for_inode(std::istream& table, uint64_t inode);
std::optional<uint64_t> udp_socket_drops(int fd);

}  // namespace spiral
