#include "transports/udp/proc_net_udp.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

namespace spiral {

std::optional<uint64_t> udp_drops_for_inode(std::istream& table, uint64_t inode) {
  std::string line;
  std::getline(table, line);  // header
  // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string sl, local, remote, state, queues, timer, retrnsmt, uid, timeout, pointer;
    uint64_t this_inode = 0, ref = 0, drops = 0;
    if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retrnsmt >> uid >> timeout >> this_inode >>
          ref >> pointer >> drops))
      continue;
    if (this_inode == inode) return drops;
  }
  return std::nullopt;
}

std::optional<uint64_t> udp_socket_drops(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return std::nullopt;
  std::ifstream table("/proc/net/udp");
  if (!table) return std::nullopt;
  return udp_drops_for_inode(table, st.st_ino);
}

}  // namespace spiral
