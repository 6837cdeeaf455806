#include "sys/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "sys/errors.hpp"

namespace spiral {

sockaddr_in ipv4_address(const std::string& literal, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, literal.c_str(), &a.sin_addr) != 1)
    throw BadInput("\"" + literal + "\" is not an IPv4 address");
  return a;
}

sockaddr_in resolve_ipv4_until(const std::string& host, uint16_t port, Clock::time_point deadline) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) == 1) return a;
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    addrinfo* found = nullptr;
    int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (rc == 0 && found) {
      a.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
      freeaddrinfo(found);
      return a;
    }
    if (Clock::now() >= deadline)
      throw BadInput("server_address \"" + host + "\" does not resolve: " + gai_strerror(rc));
    std::this_thread::sleep_for(Millis(200));  // retry interval while DNS catches up
  }
}

std::string to_string(const sockaddr_in& a) {
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

namespace {

Fd make_socket(int type) {
  Fd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  if (!fd) throw RunFailure(errno_message("socket", errno));
  return fd;
}

void bind_or_explain(int fd, const sockaddr_in& at, const char* proto) {
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&at), sizeof at) == 0) return;
  int err = errno;
  if (err == EADDRINUSE)
    throw BadInput(std::string(proto) + " port " + to_string(at) + " is in use");
  if (err == EADDRNOTAVAIL)
    throw BadInput("bind_address " + to_string(at) + " is not an address of this host");
  throw RunFailure(errno_message(std::string("bind ") + proto + " " + to_string(at), err));
}

}  // namespace

void set_int_option(int fd, int level, int option, int value, const char* name) {
  if (::setsockopt(fd, level, option, &value, sizeof value) != 0)
    throw RunFailure(errno_message(std::string("setsockopt ") + name, errno));
}

Fd tcp_listen(const sockaddr_in& at) {
  Fd fd = make_socket(SOCK_STREAM);
  set_int_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");  // TIME_WAIT from a previous run
  bind_or_explain(fd.get(), at, "tcp");
  if (::listen(fd.get(), 16) != 0) throw RunFailure(errno_message("listen " + to_string(at), errno));
  return fd;
}

Fd udp_bind(const sockaddr_in& at) {
  Fd fd = make_socket(SOCK_DGRAM);
  bind_or_explain(fd.get(), at, "udp");
  return fd;
}

Fd udp_connected(const sockaddr_in& to) {
  Fd fd = make_socket(SOCK_DGRAM);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0)
    throw BadInput(errno_message("udp connect " + to_string(to), errno));
  return fd;
}

namespace {

// One non-blocking connect attempt bounded by `until`; returns 0 or the errno that stopped it.
int connect_once(int fd, const sockaddr_in& to, Clock::time_point until) {
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int err = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int wait = static_cast<int>(std::max<int64_t>(0, millis_between(Clock::now(), until)));
      int ready = ::poll(&p, 1, wait);
      socklen_t len = sizeof err;
      if (ready == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      else err = ETIMEDOUT;
    }
  }
  fcntl(fd, F_SETFL, flags);
  return err;
}

}  // namespace

Fd tcp_connect_until(const sockaddr_in& to, Clock::time_point deadline, const std::function<void(int)>& prepare) {
  int last = 0;
  for (;;) {
    Fd fd = make_socket(SOCK_STREAM);
    prepare(fd.get());
    auto attempt_end = std::min(deadline, Clock::now() + Millis(1000));
    last = connect_once(fd.get(), to, attempt_end);
    if (last == 0) return fd;
    if (last != ECONNREFUSED && last != ETIMEDOUT && last != ENETUNREACH && last != EHOSTUNREACH &&
        last != ECONNRESET && last != EINTR)
      break;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(Millis(20));  // retry interval while the server starts listening
  }
  throw BadInput("server " + to_string(to) + " unreachable within connect_timeout_ms (" + std::strerror(last) + ")");
}

Fd accept_until(int listen_fd, Clock::time_point deadline, const std::function<bool()>& cancelled) {
  while (!cancelled()) {
    auto left = millis_between(Clock::now(), deadline);
    if (left <= 0) return Fd();
    pollfd p{listen_fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 50)));
    if (ready < 0 && errno != EINTR) throw RunFailure(errno_message("poll", errno));
    if (ready == 1) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) return Fd(fd);
      if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
        throw RunFailure(errno_message("accept", errno));
    }
  }
  return Fd();
}

int route_mtu(const sockaddr_in& to) {
  Fd fd = udp_connected(to);
  int mtu = 0;
  socklen_t len = sizeof mtu;
  if (getsockopt(fd.get(), IPPROTO_IP, IP_MTU, &mtu, &len) != 0)
    throw RunFailure(errno_message("getsockopt IP_MTU", errno));
  return mtu;
}

int64_t set_buffer(int fd, BufferSide side, uint64_t bytes) {
  int force = side == BufferSide::send ? SO_SNDBUFFORCE : SO_RCVBUFFORCE;
  int plain = side == BufferSide::send ? SO_SNDBUF : SO_RCVBUF;
  int value = static_cast<int>(std::min<uint64_t>(bytes, 1u << 30));
  if (::setsockopt(fd, SOL_SOCKET, force, &value, sizeof value) != 0)
    set_int_option(fd, SOL_SOCKET, plain, value, "SO_SNDBUF/SO_RCVBUF");  // capped by *mem_max
  int effective = 0;
  socklen_t len = sizeof effective;
  getsockopt(fd, SOL_SOCKET, plain, &effective, &len);
  return effective;
}

void set_io_timeout(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
    throw RunFailure(errno_message("setsockopt SO_RCVTIMEO/SO_SNDTIMEO", errno));
}

}  // namespace spiral
