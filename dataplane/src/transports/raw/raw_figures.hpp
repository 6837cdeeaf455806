#pragma once
// What only the raw Ethernet transport measures: the RX port's own drop counters, the PHY wire
// proof, per-RX-queue counts and how DPDK ran. Part of RunResult when transport is raw.
#include <any>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/run_result.hpp"
#include "transports/raw/forward_figures.hpp"

namespace spiral {

struct RawFigures {
  uint32_t tx_queues = 0, rx_queues = 0;
  // drops = imissed + ierrors + rx_nombuf, DAQIRI's: the RX port's counters over the window and the
  // drain; `gap` is the sequence-number loss that those counters do not explain (not in drops).
  uint64_t imissed = 0, ierrors = 0, rx_nombuf = 0, gap = 0;
  uint64_t oerrors = 0;        // TX port: frames the PMD accepted but failed to send
  uint64_t tx_alloc_fails = 0; // TX: bursts that found the pool empty (back-pressure, not loss)
  std::vector<uint64_t> rx_queue_packets;  // measured frames per RX queue (spread by RSS or pairing)
  // Wire proof: mlx5's PHY counters (rx_packets_phy, tx_packets_phy) moved over the window.
  bool phy_checked = false;
  std::string phy_note;        // "no PHY counters" on ports without them (every virtual device)
  uint64_t tx_packets_phy = 0, rx_packets_phy = 0;
  bool hugepages = false;
  std::string tx_driver, rx_driver;
  std::vector<std::string> eal_args;
  ForwardFigures forward;  // forward mode only (enabled)
};

// The run's raw figures (RunResult::figures); a default (all zero) when the run never got as far.
inline const RawFigures& raw_figures(const RunResult& r) {
  static const RawFigures none;
  return r.figures.has_value() ? std::any_cast<const RawFigures&>(r.figures) : none;
}
inline RawFigures& raw_figures(RunResult& r) {
  if (!r.figures.has_value()) r.figures = RawFigures{};
  return std::any_cast<RawFigures&>(r.figures);
}

}  // namespace spiral
