#pragma once
// The socket kinds' (tcp, udp) own keys, one options type for both so a cell reads the same way
// whatever the socket: the socket settings, and the latency mode. mode latency ping-pongs one
// message at a time (the client times each round trip, the server echoes); how each side waits
// for a message is `wait`.
#include <any>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "config/cell.hpp"

namespace spiral {

class ObjectReader;

struct PingPongOptions {
  enum class Mode { bandwidth, latency };
  // blocking: recv() sleeps until the message is there (the kernel wakes the thread);
  // spin: non-blocking recv() in a loop, the thread never sleeps (sockperf's and qperf's
  // polling: lower latency for a whole core per side).
  enum class Wait { blocking, spin };
  Mode mode = Mode::bandwidth;
  Wait wait = Wait::blocking;
  uint32_t busy_poll_us = 0;  // SO_BUSY_POLL on the data socket: the kernel polls the device queue
                              // this long before sleeping; 0 leaves it off (net.core.busy_read)
};

// The cell's options on a socket kind (Cell::options).
struct SocketOptions {
  bool tcp_nodelay = false;   // tcp: TCP_NODELAY
  bool udp_gso = false;       // udp: send with UDP_SEGMENT
  bool udp_gro = false;       // udp: receive with UDP_GRO
  uint64_t buffer_bytes = 0;  // socket_buffer_bytes: SO_SNDBUF/SO_RCVBUF; 0 = the kernel's default (docs/dataplane.md)
  PingPongOptions ping_pong;
};

const char* to_string(PingPongOptions::Mode m);
const char* to_string(PingPongOptions::Wait w);

// The keys both socket kinds own besides the common ones: socket_buffer_bytes and the latency
// mode's; tcp adds tcp_nodelay, udp udp_gso and udp_gro.
extern const std::set<std::string> kSocketKeys;
constexpr uint32_t kMaxBusyPollUs = 1'000'000;

// Their command-line flags (--socket-buffer-bytes, --mode, --wait, --busy-poll-us).
extern const std::vector<KindFlag> kSocketFlags;
// socket_buffer_bytes, which both take; every other kind takes it at 0.
extern const NeutralKey kSocketBufferNeutral;

// Reads the socket keys into c.options (a SocketOptions) and checks what latency mode rules out
// (pairs, pacing, batches, offloads, GPU workloads). Throws BadInput naming the key to change.
void parse_socket_options(const ObjectReader& r, Cell& c);
// The kind's own socket keys in the record's cell echo.
void socket_cell_json(const Cell& c, nlohmann::json& j);

inline const SocketOptions& socket_options(const Cell& c) {
  static const SocketOptions defaults;
  return c.options.has_value() ? std::any_cast<const SocketOptions&>(c.options) : defaults;
}
inline const PingPongOptions& ping_pong_options(const Cell& c) { return socket_options(c).ping_pong; }
inline bool latency_mode(const Cell& c) { return ping_pong_options(c).mode == PingPongOptions::Mode::latency; }

}  // namespace spiral
