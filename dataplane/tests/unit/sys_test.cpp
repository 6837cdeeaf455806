#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <fstream>

#include "sys/errors.hpp"
#include "sys/affinity.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"
#include "sys/socket.hpp"

namespace spiral {
namespace {

TEST(Fd, ClosesExactlyOnceAndMoves) {
  int raw = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(raw, 0);
  {
    Fd a(raw);
    Fd b(std::move(a));
    EXPECT_FALSE(a);
    EXPECT_EQ(b.get(), raw);
  }
  EXPECT_EQ(fcntl(raw, F_GETFD), -1);  // closed when b went away
}

TEST(PageBuffer, IsPageAlignedAndFilled) {
  PageBuffer b(8000, 0x5a);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 4096, 0u);
  EXPECT_EQ(b.size(), 8000u);
  EXPECT_EQ(b.data()[7999], 0x5a);
}

TEST(Sockets, PortInUseIsBadInput) {
  Fd first = tcp_listen(ipv4_address("127.0.0.1", 0));
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(first.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  try {
    tcp_listen(bound);
    FAIL() << "bound the same port twice";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "tcp port " + to_string(bound) + " is in use");
  }
}

TEST(Sockets, ConnectGivesUpAtTheDeadline) {
  Fd probe = tcp_listen(ipv4_address("127.0.0.1", 0));  // take a free port, then free it
  sockaddr_in closed{};
  socklen_t len = sizeof closed;
  getsockname(probe.get(), reinterpret_cast<sockaddr*>(&closed), &len);
  probe.reset();
  const auto started = Clock::now();
  EXPECT_THROW(tcp_connect_until(closed, started + Millis(150)), BadInput);
  const auto waited = millis_between(started, Clock::now());
  EXPECT_GE(waited, 150);
  EXPECT_LT(waited, 1000);
}

TEST(Sockets, RouteMtuIsTheInterfaceMtuCappedAtTheIpMaximum) {
  int lo_mtu = 0;
  std::ifstream("/sys/class/net/lo/mtu") >> lo_mtu;
  ASSERT_GT(lo_mtu, 0);
  EXPECT_EQ(route_mtu(ipv4_address("127.0.0.1", 9)), std::min(lo_mtu, 65535));
}

TEST(Affinity, UnavailableCoresAreBadInput) {
  EXPECT_NO_THROW(require_cores_available(startup_cores(), "cores.tx"));
  EXPECT_THROW(require_cores_available({4095}, "cores.tx"), BadInput);
}

}  // namespace
}  // namespace spiral
