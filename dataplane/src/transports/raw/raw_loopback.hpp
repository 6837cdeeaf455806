#pragma once
// The raw transport's only role: TX on one port, RX on the other, in this process.
#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral::raw {

// Throws BadInput for problems found before traffic (unknown device, too few queues, no
// hugepages), and in a build without DPDK.
RunResult run_loopback(const Cell& cell);

}  // namespace spiral::raw
