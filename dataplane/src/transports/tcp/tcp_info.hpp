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

// RetransSegs + InErrs of the "Tcp:" lines of /proc/net/snmp text (nstat's TcpRetransSegs and
// TcpInErrs), for the whole network namespace. nullopt when the text lacks them.
std::optional<uint64_t> snmp_retrans_inerrs(const std::string& snmp_text);
// TCPLostRetransmit of the "TcpExt:" lines of /proc/net/netstat text (nstat's
// TcpExtTCPLostRetransmit). nullopt when the text lacks it.
std::optional<uint64_t> netstat_lost_retransmit(const std::string& netstat_text);
// DAQIRI's socket-tcp drops of this process's namespace: TcpExtTCPLostRetransmit +
// TcpRetransSegs + TcpInErrs, the three counters its nstat reads. nullopt when /proc/net/snmp or
// /proc/net/netstat cannot be read or lacks them.
std::optional<uint64_t> namespace_tcp_drops();

}  // namespace spiral::tcp
