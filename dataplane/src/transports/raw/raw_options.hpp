#pragma once
// The raw Ethernet (DPDK) transport's part of a cell: which two ports, how many queues, where
// the packet buffers live. Parsed with the rest of the cell (cell_parse.cpp); the port strings
// are checked there with parse_port (transports/raw/raw_port.hpp) and read again by the engine.
#include <any>
#include <cstdint>
#include <string>

#include "config/buffer_memory.hpp"
#include "config/cell.hpp"
#include "transports/raw/forward_options.hpp"
#include "spiral/limits.hpp"  // generated from api/limits/limits.json, which admission reads too

namespace spiral {

struct RawOptions {
  std::string tx_port, rx_port;      // PCI address (0000:01:00.0) or DPDK vdev string
  uint32_t tx_queues = 1, rx_queues = 1;
  BufferMemory memory = BufferMemory::host;  // device: GPU memory as external mbuf buffers
  uint32_t ring_descriptors = limits::kRawRingDescriptorsDefault;  // per queue, TX and RX
  uint32_t pool_buffers = 8191;      // mbufs per queue's pool (2^n - 1 suits rte_mempool)
  bool no_huge = false;              // --no-huge: plain memory even where hugepages are mounted
  ForwardOptions forward;            // forward mode (forward_options.hpp); memory is then the forwarder's pool
};

// One source for admission and the data plane: api/limits/limits.json (hack/gen-limits).
constexpr uint32_t kMaxRawQueues = limits::kRawQueuesMax;
constexpr uint32_t kMaxRawBatch = limits::kRawBatchMax;  // packets per rte_eth_{tx,rx}_burst
constexpr uint32_t kMinRingDescriptors = limits::kRawRingDescriptorsMin;
constexpr uint32_t kMaxRingDescriptors = limits::kRawRingDescriptorsMax;
constexpr uint32_t kMinRawPayload = limits::kRawPayloadMinBytes;  // the sequence header (datagram/header.hpp)
constexpr uint32_t kMaxRawPayload = limits::kRawPayloadMaxBytes;  // MTU 9000 - 20 (IPv4) - 8 (UDP)

// The raw options of a cell (Cell::options, stored by the kind's parse); defaults when unset.
inline const RawOptions& raw_options(const Cell& c) {
  static const RawOptions defaults;
  return c.options.has_value() ? std::any_cast<const RawOptions&>(c.options) : defaults;
}

}  // namespace spiral
