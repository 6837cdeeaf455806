#include "transports/ping_pong/ping_pong_options.hpp"

#include <nlohmann/json.hpp>

#include "config/object_reader.hpp"

namespace spiral {

const std::set<std::string> kPingPongKeys = {"mode", "wait", "busy_poll_us"};

const std::vector<KindFlag> kPingPongFlags = {
    {"--mode", "mode", KindFlag::Type::text, "bandwidth | latency (ping-pong)"},
    {"--wait", "wait", KindFlag::Type::text, "latency: blocking | spin (non-blocking recv in a loop)"},
    {"--busy-poll-us", "busy_poll_us", KindFlag::Type::integer, "latency: SO_BUSY_POLL microseconds; 0 = off"},
};

const char* to_string(PingPongOptions::Mode m) { return m == PingPongOptions::Mode::latency ? "latency" : "bandwidth"; }
const char* to_string(PingPongOptions::Wait w) { return w == PingPongOptions::Wait::spin ? "spin" : "blocking"; }

void parse_ping_pong_options(const ObjectReader& r, Cell& c) {
  using O = PingPongOptions;
  O o;
  o.mode = r.one_of("mode", O::Mode::bandwidth, {{"bandwidth", O::Mode::bandwidth}, {"latency", O::Mode::latency}});
  o.wait = r.one_of("wait", O::Wait::blocking, {{"blocking", O::Wait::blocking}, {"spin", O::Wait::spin}});
  o.busy_poll_us = static_cast<uint32_t>(r.integer("busy_poll_us", 0, kMaxBusyPollUs, 0));
  if (o.mode == O::Mode::bandwidth) {
    if (r.has("wait")) refuse_key("wait", "applies to mode latency only (how a ping-pong side waits): remove it");
    if (o.busy_poll_us) refuse_key("busy_poll_us", "applies to mode latency only: remove it or set mode latency");
  } else {
    if (c.pairs != 1)
      refuse_key("pairs", "must be 1 in latency mode (one ping-pong on one socket), got " + std::to_string(c.pairs));
    if (c.target_mbps != 0) refuse_key("target_mbps", "must be 0 in latency mode (one message in flight: nothing to pace)");
    if (r.has("batch") && c.batch != 1) refuse_key("batch", "must be 1 in latency mode (one message per round trip)");
    if (c.udp_gso) refuse_key("udp_gso", "must be off in latency mode (one datagram per round trip)");
    if (c.udp_gro) refuse_key("udp_gro", "must be off in latency mode (one datagram per round trip)");
    if (c.workload != Workload::none)
      refuse_key("workload.kind", std::string("is ") + to_string(c.workload) +
                                      ": a GPU workload runs on a received stream; latency mode echoes each "
                                      "message back, use mode bandwidth");
    c.batch = 1;
  }
  c.options = o;
}

void ping_pong_cell_json(const Cell& c, nlohmann::json& j) {
  const PingPongOptions& o = ping_pong_options(c);
  j["mode"] = to_string(o.mode);
  if (o.mode == PingPongOptions::Mode::latency) {
    j["wait"] = to_string(o.wait);
    j["busy_poll_us"] = o.busy_poll_us;
  }
}

}  // namespace spiral
