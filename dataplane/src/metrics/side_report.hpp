#pragma once
// What one side (sender or receiver) measured. Each side sends its own to the other over the
// control connection, so both can write a complete result.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/counters.hpp"
#include "gpu/report.hpp"
#include "metrics/wire_proof.hpp"

namespace spiral {

struct CoreBusy {
  int core = -1;
  std::string role;        // master | tx | rx, or the kind's own (tx_worker)
  int64_t busy_mpct = -1;  // milli-percent over the window, -1 unknown
};

// Appends, once each, the cores `list` gives queues 0..queues-1 (CoreMap::for_queue), as `role`.
inline void add_queue_cores(std::vector<CoreBusy>& cores, const std::vector<int>& list, size_t queues,
                            const char* role) {
  std::set<int> seen;
  for (size_t q = 0; q < queues; ++q) {
    const int core = list.empty() ? -1 : list[q % list.size()];
    if (core >= 0 && seen.insert(core).second) cores.push_back({core, role, -1});
  }
}

struct SideReport {
  int64_t window_ms = 0;             // the measured window as this side timed it
  std::vector<QueueCounters> queues;  // one per pair
  std::vector<CoreBusy> cores;        // this side's pinned cores, master included
  std::string failure;                // a worker's error, empty when none
  gpu::GpuReport gpu;                 // the receiver's GPU workload, if it ran one
  std::vector<WireSide> links;        // one per link: this side's netdev and its PHY counter deltas
};

}  // namespace spiral
