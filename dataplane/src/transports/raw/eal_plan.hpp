#pragma once
// The EAL command line for one run, decided from the cell and the host. Pure (no DPDK), so the
// choices (hugepages or not, memory size, PCI allow-list) are unit-tested.
#include <cstdint>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "transports/raw/raw_port.hpp"

namespace spiral::raw {

struct Hugepages {
  bool mounted = false;      // a hugetlbfs mount exists
  uint64_t free_bytes = 0;   // HugePages_Free x Hugepagesize
};
Hugepages read_hugepages();  // /proc/mounts, /proc/meminfo

// Each port gets device_queues = max(tx_queues, rx_queues) queues each way, so PMDs that pair
// TX queue i with the peer's RX queue i (memif, ring) deliver every stream; RX core r polls
// device queues r, r + rx_queues, ... One pool per TX queue, one per RX core (sized for all
// its device queues' rings), and a spare pool for the TX port's RX queues that nobody polls.
// net_ring hands the sender's mbufs to the receiver (receiver_gets_sender_mbufs): what a GPU
// workload in place holds is then drawn from the TX pools, and they grow by it instead.
struct PoolSizes {
  uint32_t tx_data_room = 0, rx_data_room = 0;  // mbuf data room, headroom included
  uint32_t device_queues = 0;
  uint32_t tx_pool_buffers = 0;  // per TX queue: pool_buffers, plus gpu_held_buffers over net_ring
  uint32_t rx_pool_buffers = 0, spare_pool_buffers = 0;  // spare: 0 when TX and RX are one port
  uint32_t gpu_held_buffers = 0;  // what a GPU workload in place may hold, in the pool frames arrive in
  // forward mode: the forwarder's one pool (every pipeline's RX queue; its TX queues send from
  // it) and a spare pool for its TX port's RX queues, which nobody polls
  uint32_t forward_pool_buffers = 0, forward_spare_buffers = 0;
  uint64_t bytes = 0;                           // every pool of the run, roughly
};
// frame_bytes: one frame. af_packet's framesz (default 2048) bounds what it carries: frames up
// to framesz - 32; its RX mbufs need that much room. Throws BadInput when a frame cannot fit.
PoolSizes pool_sizes(const Cell& cell, const PortSpec& tx, const PortSpec& rx, uint32_t frame_bytes);

// The receiver gets the sender's own mbufs (net_ring enqueues the pointers, copying nothing), so
// the frames it reads live in the TX pools, not in its RX pools.
bool receiver_gets_sender_mbufs(const PortSpec& tx);

struct EalPlan {
  std::vector<std::string> args;  // argv[0] included
  bool hugepages = false;
  uint64_t memory_mb = 0;         // -m with --no-huge
};
// main_cpus: where the EAL's main lcore may run (the master core, or every core we may use).
// Throws BadInput when hugepages are mounted and asked for but too few are free.
EalPlan plan_eal(const Cell& cell, const PortSpec& tx, const PortSpec& rx, const PoolSizes& pools,
                 const Hugepages& huge, const std::vector<int>& main_cpus, const std::string& file_prefix);

// af_packet's framesz= from a devargs string, 2048 when absent.
uint32_t af_packet_frame_size(const std::string& devargs);

}  // namespace spiral::raw
