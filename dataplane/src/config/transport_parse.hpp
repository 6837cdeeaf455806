#pragma once
// The per-transport parts of parse_cell (cell_parse.cpp): each transport's own keys and the rules
// that tie them to the rest of the cell. The keys each owns are refused on other transports.
#include "config/cell.hpp"
#include "config/object_reader.hpp"

namespace spiral {

// Keys of the raw transport (raw_parse.cpp) and of roce (rdma_parse.cpp). "memory" is in both.
extern const std::set<std::string> kRawKeys;
extern const std::set<std::string> kRdmaKeys;

// "memory": host | host_pinned | device, default host.
BufferMemory parse_buffer_memory(const ObjectReader& r);

// raw: reads its keys (tx_port and rx_port resolved from $VAR sources) and checks the cell.
RawOptions parse_raw_options(const ObjectReader& r, const Cell& c);
void check_raw(const Cell& c, const ObjectReader& r);

// roce: reads its keys (queue_pairs sets c.pairs) and checks the cell.
RdmaOptions parse_rdma_options(const ObjectReader& r, Cell& c);

// Refuses a key of another transport with the name of the transport(s) it belongs to.
void refuse_foreign_keys(const Cell& c, const ObjectReader& r);

}  // namespace spiral
