#include "transports/ping_pong/ping_pong_result.hpp"

#include <algorithm>

#include "metrics/latency_json.hpp"

namespace spiral::ping_pong {

namespace {
uint64_t sum(const std::array<PhaseCount, kPhaseCount>& by_phase) {
  uint64_t n = 0;
  for (const auto& p : by_phase) n += p.packets;
  return n;
}
}  // namespace

void account(Carrier carrier, const SideReport* sender, const SideReport* receiver, RunResult& r) {
  PingPongResult x;
  if (sender && !sender->queues.empty()) {
    const QueueCounters& q = sender->queues.front();  // latency mode has one pair
    const PhaseCount& back = q.replies[index(Phase::measure)];
    x.pings_all = sum(q.by_phase);
    x.answered_all = sum(q.replies);
    x.stale = q.stale;
    x.latency = q.latency;
    r.rx_packets = back.packets;
    r.rx_bytes = back.bytes;
    r.rx_bytes_all = 0;
    for (const auto& p : q.replies) r.rx_bytes_all += p.bytes;
    if (!r.pairs.empty()) {
      r.pairs[0].rx_packets = back.packets;
      r.pairs[0].rx_bytes = back.bytes;
    }
    const int64_t ms = r.seconds_milli;
    r.rx_mbps = ms > 0 ? static_cast<int64_t>(r.rx_bytes * 8 / 1000 / static_cast<uint64_t>(ms)) : 0;
    r.rx_gbps = ms > 0 ? double(r.rx_bytes) * 8.0 / 1e6 / double(ms) : 0;
    r.pps = ms > 0 ? r.rx_packets * 1000 / static_cast<uint64_t>(ms) : 0;  // round trips per second
    r.lost = r.tx_packets - std::min(r.tx_packets, r.rx_packets);
    if (!r.pairs.empty()) r.pairs[0].lost = r.lost;
    r.stale += q.stale;
    r.malformed += q.malformed;
    r.foreign += q.foreign;
  }
  if (receiver && !receiver->queues.empty()) {
    const QueueCounters& q = receiver->queues.front();
    x.has_echo_side = true;
    x.echoed_all = sum(q.replies);
    // The echo side's own rx figures were replaced above; it saw every ping the client sent over
    // a stream, and no more than that over datagrams.
    if (sender && !sender->queues.empty()) {
      if (carrier == Carrier::stream && x.echoed_all != x.pings_all)
        r.problems.push_back("client sent " + std::to_string(x.pings_all) + " pings, server echoed " +
                             std::to_string(x.echoed_all));
      if (x.answered_all > x.echoed_all)
        r.problems.push_back("client got " + std::to_string(x.answered_all) + " echoes, server sent " +
                             std::to_string(x.echoed_all));
    }
  }
  if (carrier == Carrier::datagram) {
    r.drops = r.lost;
    r.drops_kind = "udp-ping-unanswered";
  }
  r.loss_ppm = r.tx_packets ? static_cast<int64_t>(r.lost * 1'000'000 / r.tx_packets) : 0;
  r.figures = std::move(x);
}

std::optional<std::string> verdict(Carrier carrier, const RunResult& r) {
  const PingPongResult& x = ping_pong_result(r);
  if (r.malformed) return std::to_string(r.malformed) + " messages arrived with the wrong length";
  if (carrier == Carrier::stream) {
    if (x.answered_all != x.pings_all)
      return std::to_string(x.pings_all - x.answered_all) + " of " + std::to_string(x.pings_all) +
             " pings were not answered";
    if (!r.rx_finished) return "server did not reach the end of the stream within grace_ms";
  }
  if (x.latency.samples == 0) return "no round trip was timed in the measured window";
  if (x.latency.samples != r.rx_packets)
    return "timed " + std::to_string(x.latency.samples) + " round trips for " + std::to_string(r.rx_packets) +
           " answered pings in the window";
  return std::nullopt;
}

bool caught_up(Carrier carrier, const std::vector<QueueCounters>& rx) {
  if (carrier == Carrier::datagram) return true;  // the client reported only after its last echo
  for (const auto& q : rx)
    if (!q.finished) return false;
  return true;
}

void record_fields(const Cell& c, const RunResult& r, nlohmann::ordered_json& j) {
  const PingPongResult& x = ping_pong_result(r);
  const PingPongOptions& o = ping_pong_options(c);
  j["latency"] = latency_to_json(x.latency);
  j["ping_pong"] = {{"wait", to_string(o.wait)},           {"busy_poll_us", o.busy_poll_us},
                    {"pings_all", x.pings_all},            {"answered_all", x.answered_all},
                    {"echoed_all", x.has_echo_side ? nlohmann::ordered_json(x.echoed_all) : nlohmann::ordered_json()},
                    {"stale", x.stale}};
}

}  // namespace spiral::ping_pong
