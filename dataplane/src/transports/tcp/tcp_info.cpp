#include "transports/tcp/tcp_info.hpp"

// linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info lacks tcpi_segs_out.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace spiral::tcp {

TcpStats read_tcp_stats(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return {};
  return {info.tcpi_total_retrans, info.tcpi_segs_out};
}

}  // namespace spiral::tcp
