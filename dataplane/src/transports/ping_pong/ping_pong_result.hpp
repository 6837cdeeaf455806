#pragma once
// The latency mode's figures of one run (tcp and udp), both sides combined, and the kind hooks
// that account, judge and report them. tcp_kind.cpp and udp_kind.cpp call these when the cell's
// mode is latency.
#include <any>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/latency_histogram.hpp"
#include "metrics/run_result.hpp"
#include "transports/ping_pong/ping_pong_io.hpp"

namespace spiral::ping_pong {

struct PingPongResult {
  uint64_t pings_all = 0;    // client: pings sent, warm-up and drain included
  uint64_t answered_all = 0; // client: their echoes that came back
  uint64_t echoed_all = 0;   // server: messages it echoed (0 without its report)
  bool has_echo_side = false;
  uint64_t stale = 0;        // client: echoes that came after their ping was counted lost (udp)
  LatencySummary latency;    // the client's round trips of the measured window, halved
};

inline const PingPongResult& ping_pong_result(const RunResult& r) {
  static const PingPongResult none;
  return r.figures.has_value() ? std::any_cast<const PingPongResult&>(r.figures) : none;
}

// Takes the round-trip figures from the client's report: rx_* become the echoes that came back
// for the pings of the window (the client is the one witness of a round trip), lost the pings
// without one (udp: drops and loss_ppm; tcp: a problem, it cannot lose one).
void account(Carrier carrier, const SideReport* sender, const SideReport* receiver, RunResult& r);
std::optional<std::string> verdict(Carrier carrier, const RunResult& r);
// Every message the server got was echoed and (stream) the client closed its end.
bool caught_up(Carrier carrier, const std::vector<QueueCounters>& rx);
void record_fields(const Cell& c, const RunResult& r, nlohmann::ordered_json& j);

}  // namespace spiral::ping_pong
