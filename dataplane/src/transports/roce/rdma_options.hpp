#pragma once
// The roce transport's part of a cell (ibverbs RC queue pairs, see transports/roce/). Parsed with
// the rest of the cell (cell_parse.cpp, rdma_parse.cpp).
#include <any>
#include <cstdint>
#include <string>

#include "config/buffer_memory.hpp"
#include "config/cell.hpp"

namespace spiral {

struct RdmaOptions {
  enum class Verb { send, write, read };
  enum class Mode { bandwidth, latency };
  Verb verb = Verb::send;
  Mode mode = Mode::bandwidth;
  uint32_t tx_depth = 0;        // most operations in flight per QP; 0 = sized to the message
  uint32_t rx_depth = 0;        // receives pre-posted per QP; 0 = sized to the message
  BufferMemory memory = BufferMemory::host;
  std::string device;           // RDMA device name; empty = the one that carries `netdev`
  std::string netdev;           // network interface whose RoCE v2 GID to use; empty = any
  bool verify_payload = false;  // fill and check every byte (tests; costs CPU)
};
const char* to_string(RdmaOptions::Verb v);
const char* to_string(RdmaOptions::Mode m);

constexpr uint32_t kMaxRdmaDepth = 8192;

// The roce options of a cell (Cell::options, stored by the kind's parse); defaults when unset.
inline const RdmaOptions& rdma_options(const Cell& c) {
  static const RdmaOptions defaults;
  return c.options.has_value() ? std::any_cast<const RdmaOptions&>(c.options) : defaults;
}

}  // namespace spiral
