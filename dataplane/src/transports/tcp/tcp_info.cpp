#include "transports/tcp/tcp_info.hpp"

// linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info lacks tcpi_segs_out.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace spiral::tcp {

TcpStats read_tcp_stats(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return {};
  return {info.tcpi_total_retrans, info.tcpi_segs_out};
}

std::optional<uint64_t> snmp_retrans_inerrs(const std::string& snmp_text) {
  // Two "Tcp:" lines: the names, then the values in the same order.
  std::istringstream in(snmp_text);
  std::string line;
  std::vector<std::string> names;
  while (std::getline(in, line)) {
    if (line.rfind("Tcp:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (names.empty()) {
      names = words;
      continue;
    }
    std::optional<uint64_t> retrans, inerrs;
    for (size_t i = 0; i < names.size() && i < words.size(); ++i) {
      if (names[i] == "RetransSegs") retrans = std::stoull(words[i]);
      if (names[i] == "InErrs") inerrs = std::stoull(words[i]);
    }
    if (!retrans || !inerrs) return std::nullopt;
    return *retrans + *inerrs;
  }
  return std::nullopt;
}

std::optional<uint64_t> namespace_retrans_inerrs() {
  std::ifstream f("/proc/net/snmp");
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  return snmp_retrans_inerrs(text.str());
}

}  // namespace spiral::tcp
