#pragma once
// Socket set-up helpers shared by the transports and the control channel. User-fixable problems
// (port in use, server unreachable) throw BadInput; the rest throw RunFailure.
#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <string>

#include "sys/clock.hpp"
#include "sys/fd.hpp"

namespace spiral {

sockaddr_in ipv4_address(const std::string& literal, uint16_t port);
// Host name or literal; retried until the deadline because cluster DNS may lag the pod's start.
sockaddr_in resolve_ipv4_until(const std::string& host, uint16_t port, Clock::time_point deadline);
std::string to_string(const sockaddr_in& a);

Fd tcp_listen(const sockaddr_in& at);
Fd udp_bind(const sockaddr_in& at);
Fd udp_connected(const sockaddr_in& to);

// Connects, retrying while the peer is not there yet, until the deadline; BadInput after it.
// `prepare` runs on each new socket before connect (buffer sizes must be set before the handshake).
Fd tcp_connect_until(const sockaddr_in& to, Clock::time_point deadline,
                     const std::function<void(int)>& prepare = [](int) {});

// One connection from listen_fd, or an empty Fd at the deadline or once cancelled() is true.
Fd accept_until(int listen_fd, Clock::time_point deadline, const std::function<bool()>& cancelled);

// MTU of the route to `to` (IP_MTU of a connected UDP socket).
int route_mtu(const sockaddr_in& to);

enum class BufferSide { send, receive };
// Sets SO_SNDBUF/SO_RCVBUF, beyond net.core.*mem_max when allowed (the FORCE variants need
// CAP_NET_ADMIN). Returns the size the kernel reports afterwards.
int64_t set_buffer(int fd, BufferSide side, uint64_t bytes);

// Blocking calls return EAGAIN after `ms`, so worker loops notice a stop request.
void set_io_timeout(int fd, int ms);
void set_int_option(int fd, int level, int option, int value, const char* name);

}  // namespace spiral
