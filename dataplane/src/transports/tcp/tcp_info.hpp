#pragma once
#include <cstdint>

namespace spiral::tcp {

struct TcpStats {
  uint64_t total_retrans = 0;  // segments retransmitted over the connection's life
  uint64_t segs_out = 0;       // segments sent, retransmissions included
};

// TCP_INFO of a connected socket; zeros if the kernel will not say.
TcpStats read_tcp_stats(int fd);

}  // namespace spiral::tcp
