#pragma once
// The raw Ethernet (DPDK) transport's part of a cell: which two ports, how many queues, where
// the packet buffers live. Parsed with the rest of the cell (cell_parse.cpp); the port strings
// are checked there with parse_port (config/raw_port.hpp) and read again by the engine.
#include <cstdint>
#include <string>

namespace spiral {

// Where the mbuf data buffers live. host: DPDK's own memory (hugepages or not); host_pinned:
// that memory registered with CUDA so the GPU reads it in place; device: GPU memory as external
// mbuf buffers (GPUDirect). The last two need a CUDA build; device also needs a physical NIC.
enum class PacketMemory { host, host_pinned, device };
const char* to_string(PacketMemory m);

struct RawOptions {
  std::string tx_port, rx_port;      // PCI address (0000:01:00.0) or DPDK vdev string
  uint32_t tx_queues = 1, rx_queues = 1;
  PacketMemory memory = PacketMemory::host;
  uint32_t ring_descriptors = 1024;  // per queue, TX and RX
  uint32_t pool_buffers = 8191;      // mbufs per queue's pool (2^n - 1 suits rte_mempool)
  bool no_huge = false;              // --no-huge: plain memory even where hugepages are mounted
};

constexpr uint32_t kMaxRawQueues = 16;
constexpr uint32_t kMaxRawBatch = 32768;       // packets per rte_eth_{tx,rx}_burst
constexpr uint32_t kMaxRingDescriptors = 32768;
constexpr uint32_t kMinRawPayload = 24;        // the sequence header (transports/udp/datagram.hpp)
constexpr uint32_t kMaxRawPayload = 8972;      // MTU 9000 - 20 (IPv4) - 8 (UDP)

}  // namespace spiral
