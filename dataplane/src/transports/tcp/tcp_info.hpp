#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace spiral::tcp {

struct TcpStats {
  uint64_t total_retrans = 0;  // segments retransmitted over the connection's life
  uint64_t segs_out = 0;       // segments sent, retransmissions included
};

// TCP_INFO of a connected socket; zeros if the kernel will not say.
TcpStats read_tcp_stats(int fd);

// RetransSegs + InErrs of the "Tcp:" lines of /proc/net/snmp text: what DAQIRI's
// `nstat TcpRetransSegs TcpInErrs` counts, for the whole network namespace. nullopt when the
// text lacks them.
std::optional<uint64_t> snmp_retrans_inerrs(const std::string& snmp_text);
// The same of this process's namespace (/proc/net/snmp); nullopt when it cannot be read.
std::optional<uint64_t> namespace_retrans_inerrs();

}  // namespace spiral::tcp
