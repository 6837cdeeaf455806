#pragma once
// The roce kind's keys (they mirror its flags: --verb -> verb, ...) and their rules.
#include <set>
#include <string>

#include "config/object_reader.hpp"
#include "transports/roce/rdma_options.hpp"

namespace spiral {

extern const std::set<std::string> kRdmaKeys;

// Reads the roce keys (queue_pairs sets c.pairs) and checks them against the cell. Throws BadInput.
RdmaOptions parse_rdma_options(const ObjectReader& r, Cell& c);

}  // namespace spiral
