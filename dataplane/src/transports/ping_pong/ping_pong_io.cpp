#include "transports/ping_pong/ping_pong_io.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include "sys/clock.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"

namespace spiral::ping_pong {

void prepare_socket(int fd, const Cell& cell, Carrier carrier) {
  if (carrier == Carrier::stream) set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
  const PingPongOptions& o = ping_pong_options(cell);
  if (o.busy_poll_us) set_int_option(fd, SOL_SOCKET, SO_BUSY_POLL, static_cast<int>(o.busy_poll_us), "SO_BUSY_POLL");
  if (const uint64_t bytes = socket_options(cell).buffer_bytes) {
    set_buffer(fd, BufferSide::send, bytes);
    set_buffer(fd, BufferSide::receive, bytes);
  }
  set_io_timeout(fd, kBlockingSliceMs);
}

Got receive_message(int fd, Carrier carrier, bool spin, char* into, size_t bytes, size_t& length, int64_t deadline_ns,
                    const std::function<bool()>& give_up, void* peer, unsigned* peer_len) {
  const int flags = (spin ? MSG_DONTWAIT : 0) | (carrier == Carrier::datagram ? MSG_TRUNC : 0);
  size_t got = 0;
  for (uint32_t empty = 0;;) {
    ssize_t n;
    if (peer) {
      socklen_t len = *peer_len;
      n = ::recvfrom(fd, into + got, bytes - got, flags, static_cast<sockaddr*>(peer), &len);
      *peer_len = len;
    } else {
      n = ::recv(fd, into + got, bytes - got, flags);
    }
    if (n > 0 && carrier == Carrier::datagram) {
      length = static_cast<size_t>(n);
      return Got::message;
    }
    if (n > 0) {
      got += static_cast<size_t>(n);
      if (got == bytes) {
        length = got;
        return Got::message;
      }
      continue;
    }
    if (n == 0 && carrier == Carrier::stream) {
      if (got == 0) return Got::closed;
      throw RunFailure("peer closed the connection inside a message (" + std::to_string(got) + " of " +
                       std::to_string(bytes) + " bytes)");
    }
    if (n == 0) {  // an empty datagram: not ours
      length = 0;
      return Got::message;
    }
    // ECONNREFUSED: an ICMP port unreachable from an echo side not (or no longer) there.
    if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) throw RunFailure(errno_message("recv", errno));
    // Spinning looks at the clock every 256 empty polls, blocking after every timed-out wait.
    if (spin && (++empty & 255) != 0) continue;
    if ((deadline_ns && now_ns() > deadline_ns) || give_up()) return Got::timeout;
  }
}

void send_message(int fd, Carrier carrier, const char* from, size_t bytes, const void* peer, unsigned peer_len) {
  size_t sent = 0;
  while (sent < bytes) {
    const ssize_t n = peer ? ::sendto(fd, from + sent, bytes - sent, MSG_NOSIGNAL, static_cast<const sockaddr*>(peer),
                                      peer_len)
                           : ::send(fd, from + sent, bytes - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ENOBUFS) continue;
      if (carrier == Carrier::datagram && errno == ECONNREFUSED) return;  // a stale ICMP error: this ping goes unanswered
      // The peer's port is closed (udp) or the connection is gone: the run cannot go on.
      throw RunFailure(errno_message(carrier == Carrier::stream ? "send" : "sendto", errno));
    }
    sent += static_cast<size_t>(n);
    if (carrier == Carrier::datagram) break;
  }
}

}  // namespace spiral::ping_pong
