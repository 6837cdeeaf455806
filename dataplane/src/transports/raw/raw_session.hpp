#pragma once
// The raw kind's in-process run: TX on one port, RX on the other, in this process, both engines
// sharing one DPDK environment. run/in_process.cpp drives it.
#include <memory>

#include "kinds/bench_kind.hpp"

namespace spiral::raw {

// Throws BadInput for problems found before traffic (unknown device, too few queues, no
// hugepages), and in a build without DPDK (raw_unavailable.cpp).
std::unique_ptr<LocalSession> make_session(const Cell& cell, uint32_t run_id);

}  // namespace spiral::raw
