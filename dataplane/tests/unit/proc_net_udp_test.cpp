#include "transports/udp/proc_net_udp.hpp"
#include "transports/tcp/tcp_info.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <fstream>

#include "sys/fd.hpp"

namespace spiral {
namespace {

// Captured after 50 datagrams were sent at a socket with the smallest receive buffer.
TEST(ProcNetUdp, FindsTheDropsOfOneSocketByInode) {
  std::ifstream table(std::string(SPIRAL_TEST_DATA) + "/proc_net_udp.txt");
  ASSERT_TRUE(table);
  EXPECT_EQ(udp_drops_for_inode(table, 57476), 49u);
  table.clear();
  table.seekg(0);
  EXPECT_EQ(udp_drops_for_inode(table, 57477), 0u);
  table.clear();
  table.seekg(0);
  EXPECT_EQ(udp_drops_for_inode(table, 1), std::nullopt);
}

// The same, live: overflow a socket on 127.0.0.1 and read its drops back.
TEST(ProcNetUdp, ReadsALiveSocketsDrops) {
  Fd rx(socket(AF_INET, SOCK_DGRAM, 0)), tx(socket(AF_INET, SOCK_DGRAM, 0));
  int tiny = 1;
  setsockopt(rx.get(), SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(rx.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(rx.get(), reinterpret_cast<sockaddr*>(&a), &len);
  EXPECT_EQ(udp_socket_drops(rx.get()), 0u);
  char payload[1000] = {};
  for (int i = 0; i < 50; ++i) sendto(tx.get(), payload, sizeof payload, 0, reinterpret_cast<sockaddr*>(&a), sizeof a);
  auto drops = udp_socket_drops(rx.get());
  ASSERT_TRUE(drops);
  EXPECT_GE(*drops, 40u);
  EXPECT_LE(*drops, 50u);
}

}  // namespace
}  // namespace spiral

namespace spiral::tcp {
namespace {

// DAQIRI's TCP drops are nstat's TcpExtTCPLostRetransmit + TcpRetransSegs + TcpInErrs: the
// "Tcp:" lines of /proc/net/snmp and the "TcpExt:" lines of /proc/net/netstat.
TEST(ProcNetSnmp, RetransSegsPlusInErrs) {
  const std::string snmp =
      "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs "
      "OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      "Tcp: 1 200 120000 -1 14527 13502 511 5088 384 3813409 3790668 6445 7 5520 0\n"
      "Udp: InDatagrams NoPorts\nUdp: 1 2\n";
  EXPECT_EQ(snmp_retrans_inerrs(snmp), 6452u);
  EXPECT_EQ(snmp_retrans_inerrs("Udp: InDatagrams\nUdp: 1\n"), std::nullopt);
}

TEST(ProcNetNetstat, LostRetransmitAndTheNamespaceSum) {
  const std::string netstat =
      "TcpExt: SyncookiesSent SyncookiesRecv TCPLostRetransmit TCPFastRetrans\n"
      "TcpExt: 0 0 17 42\n"
      "IpExt: InNoRoutes InTruncatedPkts\nIpExt: 0 0\n";
  EXPECT_EQ(netstat_lost_retransmit(netstat), 17u);
  EXPECT_EQ(netstat_lost_retransmit("IpExt: InNoRoutes\nIpExt: 0\n"), std::nullopt);
  EXPECT_TRUE(namespace_tcp_drops().has_value()) << "this namespace's /proc/net/snmp and /proc/net/netstat";
}

}  // namespace
}  // namespace spiral::tcp
