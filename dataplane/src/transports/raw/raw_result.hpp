#pragma once
// Turns what the raw engines and ports counted into a RunResult. Pure: unit-tested without DPDK.
#include <vector>

#include "config/cell.hpp"
#include "engine/counters.hpp"
#include "metrics/run_result.hpp"
#include "metrics/side_report.hpp"
#include "metrics/wire_proof.hpp"
#include "datagram/sequence_tracker.hpp"
#include "transports/raw/raw_figures.hpp"

namespace spiral::raw {

// Deltas of the ports' counters between the window's start and the end of the drain.
struct PortDeltas {
  uint64_t imissed = 0, ierrors = 0, rx_nombuf = 0;  // RX port
  uint64_t oerrors = 0;                              // TX port
  // Wire proof (metrics/wire_proof.hpp), the same check as every transport's: the TX port's
  // and the RX port's PHY counters as their drivers name them (mlx5: *_phy).
  WireSide tx_wire, rx_wire;
  uint64_t forward_imissed = 0, forward_rx_nombuf = 0, forward_oerrors = 0;  // forward mode's ports
};

struct RawMeasurement {
  int64_t window_ms = 0;
  std::vector<QueueCounters> tx;  // per TX queue = per stream
  std::vector<QueueCounters> rx;  // per RX queue
  // rx_streams[r][s]: stream s's measured frames as RX queue r saw them.
  std::vector<std::vector<datagram::SequenceStats>> rx_streams;
  PortDeltas ports;
  std::vector<CoreBusy> cores;
  int64_t master_mpct = -1;
};

// Stream s's arrivals over every RX queue. Exact as long as no frame reaches two queues.
datagram::SequenceStats merge_stream(const std::vector<std::vector<datagram::SequenceStats>>& rx_streams, size_t stream);

// drops = imissed + ierrors + rx_nombuf + gap, where gap is the sequence loss the port's
// counters leave unexplained; drops_kind names the non-zero parts ("imissed+gap"), "none" if none.
// DAQIRI's drops_kind of the dpdk backend.
inline constexpr const char* kDropsKind = "dpdk-imissed+ierrors+nombuf";
void account_drops(RawFigures& f, uint64_t lost, uint64_t& drops, std::string& drops_kind);

RunResult combine_raw(const Cell& cell, const RawMeasurement& m);

// The raw part of the verdict beyond the shared checks (the wire proof is one of those): the
// forward mode's. Empty when fine.
std::string raw_invalid_reason(const RunResult& r);

}  // namespace spiral::raw
