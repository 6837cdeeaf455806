#pragma once
// The forward mode's keys (forward_*) and their rules; part of the raw kind's parse and check.
#include "config/object_reader.hpp"
#include "transports/raw/raw_options.hpp"

namespace spiral {

ForwardOptions parse_forward_options(const ObjectReader& r);
// Refusals of forward cells (BadInput, exit 2): keys without the ports, GPU work without CUDA or
// without GPU-mapped memory, buffer split on a virtual device, queue counts that do not pair.
void check_forward(const Cell& c, const ObjectReader& r);

}  // namespace spiral
