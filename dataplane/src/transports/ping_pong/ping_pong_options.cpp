#include "transports/ping_pong/ping_pong_options.hpp"

#include <nlohmann/json.hpp>

#include "config/object_reader.hpp"

namespace spiral {

const std::set<std::string> kSocketKeys = {"socket_buffer_bytes", "mode", "wait", "busy_poll_us"};

const std::vector<KindFlag> kSocketFlags = {
    {"--socket-buffer-bytes", "socket_buffer_bytes", KindFlag::Type::integer, "SO_SNDBUF/SO_RCVBUF; 0 = default"},
    {"--mode", "mode", KindFlag::Type::text, "bandwidth | latency (ping-pong)"},
    {"--wait", "wait", KindFlag::Type::text, "latency: blocking | spin (non-blocking recv in a loop)"},
    {"--busy-poll-us", "busy_poll_us", KindFlag::Type::integer, "latency: SO_BUSY_POLL microseconds; 0 = off"},
};

const NeutralKey kSocketBufferNeutral = {"socket_buffer_bytes", NeutralKey::Neutral::zero, "applies to tcp and udp only"};

const char* to_string(PingPongOptions::Mode m) { return m == PingPongOptions::Mode::latency ? "latency" : "bandwidth"; }
const char* to_string(PingPongOptions::Wait w) { return w == PingPongOptions::Wait::spin ? "spin" : "blocking"; }

void parse_socket_options(const ObjectReader& r, Cell& c) {
  using O = PingPongOptions;
  SocketOptions s;
  // every socket key is read on both kinds, so a wrong type says so on either; the other kind's
  // own (tcp_nodelay on udp) passes only at false (BenchKind::neutral_keys)
  s.tcp_nodelay = r.boolean("tcp_nodelay", false);
  s.udp_gso = r.boolean("udp_gso", false);
  s.udp_gro = r.boolean("udp_gro", false);
  s.buffer_bytes = static_cast<uint64_t>(r.integer("socket_buffer_bytes", 0, 1ll << 30, 0));
  O& o = s.ping_pong;
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
    if (s.udp_gso) refuse_key("udp_gso", "must be off in latency mode (one datagram per round trip)");
    if (s.udp_gro) refuse_key("udp_gro", "must be off in latency mode (one datagram per round trip)");
    if (c.workload != Workload::none)
      refuse_key("workload.kind", std::string("is ") + to_string(c.workload) +
                                      ": a GPU workload runs on a received stream; latency mode echoes each "
                                      "message back, use mode bandwidth");
    c.batch = 1;
  }
  c.options = s;
}

void socket_cell_json(const Cell& c, nlohmann::json& j) {
  const SocketOptions& s = socket_options(c);
  if (c.kind->keys.count("tcp_nodelay")) j["tcp_nodelay"] = s.tcp_nodelay;
  if (c.kind->keys.count("udp_gso")) j["udp_gso"] = s.udp_gso;
  if (c.kind->keys.count("udp_gro")) j["udp_gro"] = s.udp_gro;
  j["socket_buffer_bytes"] = s.buffer_bytes;
  const PingPongOptions& o = s.ping_pong;
  j["mode"] = to_string(o.mode);
  if (o.mode == PingPongOptions::Mode::latency) {
    j["wait"] = to_string(o.wait);
    j["busy_poll_us"] = o.busy_poll_us;
  }
}

}  // namespace spiral
