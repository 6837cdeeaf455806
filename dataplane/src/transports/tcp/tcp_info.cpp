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

namespace {

// The value of each named counter from the two lines starting with `prefix` (the names, then
// the values in the same order), as /proc/net/snmp and /proc/net/netstat write them.
std::vector<std::optional<uint64_t>> proc_counters(const std::string& text, const std::string& prefix,
                                                   const std::vector<std::string>& wanted) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> names;
  std::vector<std::optional<uint64_t>> out(wanted.size());
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream fields(line.substr(prefix.size()));
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (names.empty()) {
      names = words;
      continue;
    }
    for (size_t i = 0; i < names.size() && i < words.size(); ++i)
      for (size_t k = 0; k < wanted.size(); ++k)
        if (names[i] == wanted[k]) out[k] = std::stoull(words[i]);
    break;
  }
  return out;
}

std::string read_text(const char* path) {
  std::ifstream f(path);
  std::stringstream text;
  if (f) text << f.rdbuf();
  return text.str();
}

}  // namespace

std::optional<uint64_t> snmp_retrans_inerrs(const std::string& snmp_text) {
  const auto v = proc_counters(snmp_text, "Tcp:", {"RetransSegs", "InErrs"});
  if (!v[0] || !v[1]) return std::nullopt;
  return *v[0] + *v[1];
}

std::optional<uint64_t> netstat_lost_retransmit(const std::string& netstat_text) {
  return proc_counters(netstat_text, "TcpExt:", {"TCPLostRetransmit"})[0];
}

std::optional<uint64_t> namespace_tcp_drops() {
  const auto snmp = snmp_retrans_inerrs(read_text("/proc/net/snmp"));
  const auto lost = netstat_lost_retransmit(read_text("/proc/net/netstat"));
  if (!snmp || !lost) return std::nullopt;
  return *snmp + *lost;
}

}  // namespace spiral::tcp
