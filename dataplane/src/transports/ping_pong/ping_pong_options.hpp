#pragma once
// The latency mode of the socket kinds (tcp, udp): its keys, shared by both kinds so a cell reads
// the same way whatever the socket. mode latency ping-pongs one message at a time (the client
// times each round trip, the server echoes); how each side waits for a message is `wait`.
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
const char* to_string(PingPongOptions::Mode m);
const char* to_string(PingPongOptions::Wait w);

// The keys both socket kinds own besides the common ones.
extern const std::set<std::string> kPingPongKeys;
constexpr uint32_t kMaxBusyPollUs = 1'000'000;

// Their command-line flags (--mode, --wait, --busy-poll-us).
extern const std::vector<KindFlag> kPingPongFlags;

// Reads mode, wait and busy_poll_us into c.options and checks what latency mode rules out
// (pairs, pacing, batches, offloads, GPU workloads). Throws BadInput naming the key to change.
void parse_ping_pong_options(const ObjectReader& r, Cell& c);
// Its keys in the record's cell echo.
void ping_pong_cell_json(const Cell& c, nlohmann::json& j);

inline const PingPongOptions& ping_pong_options(const Cell& c) {
  static const PingPongOptions defaults;
  return c.options.has_value() ? std::any_cast<const PingPongOptions&>(c.options) : defaults;
}
inline bool latency_mode(const Cell& c) { return ping_pong_options(c).mode == PingPongOptions::Mode::latency; }

}  // namespace spiral
