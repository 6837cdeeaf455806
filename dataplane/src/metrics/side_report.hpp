#pragma once
// What one side (sender or receiver) measured. Each side sends its own to the other over the
// control connection, so both can write a complete result.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/counters.hpp"
#include "gpu/report.hpp"
#include "metrics/wire_proof.hpp"

namespace spiral {

struct CoreBusy {
  int core = -1;
  std::string role;        // master | tx | rx
  int64_t busy_mpct = -1;  // milli-percent over the window, -1 unknown
};

struct SideReport {
  int64_t window_ms = 0;             // the measured window as this side timed it
  std::vector<QueueCounters> queues;  // one per pair
  std::vector<CoreBusy> cores;        // this side's pinned cores, master included
  std::string failure;                // a worker's error, empty when none
  gpu::GpuReport gpu;                 // the receiver's GPU workload, if it ran one
  std::vector<WireSide> links;        // one per link: this side's netdev and its PHY counter deltas
};

}  // namespace spiral
