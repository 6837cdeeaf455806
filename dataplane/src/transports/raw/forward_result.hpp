#pragma once
// The forward mode's rates and verdict from the run's sums (pure: unit-tested without DPDK).
#include <string>

#include "metrics/run_result.hpp"
#include "transports/raw/forward_figures.hpp"

namespace spiral {

// Offered (the sender's window) and forwarded (the receiver's) Gb/s and Mpps, L2 frame bytes.
void forward_rates(ForwardFigures& f, const RunResult& r);

}  // namespace spiral
