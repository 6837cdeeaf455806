#pragma once
// One run's DPDK: the EAL (initialised once per process, cleaned up at the end), the two ports
// (probed, configured, started, closed) and the mbuf pools. Everything the hot loops touch is
// allocated here, before any traffic.
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "transports/raw/raw_port.hpp"
#include "transports/raw/raw_figures.hpp"
#include "transports/raw/eal_plan.hpp"
#include "transports/raw/external_memory.hpp"
#include "transports/raw/frame.hpp"
#include "transports/raw/raw_result.hpp"

namespace spiral::raw {

// Snapshot of the counters the result needs from both ports.
struct PortSnapshot {
  rte_eth_stats rx{}, tx{};
  std::string tx_name, rx_name;  // the ports' device names (PCI address or vdev)
  PhySample tx_phy, rx_phy;      // their PHY counters, read as ethtool -S names them
  rte_eth_stats forward_rx{}, forward_tx{};  // forward mode: the forwarder's ports
};
PortDeltas deltas(const PortSnapshot& before, const PortSnapshot& after);

class DpdkEnvironment {
 public:
  // Throws BadInput for what the user can fix (unknown device, too few queues, no hugepages).
  explicit DpdkEnvironment(const Cell& cell);
  ~DpdkEnvironment();
  DpdkEnvironment(const DpdkEnvironment&) = delete;
  DpdkEnvironment& operator=(const DpdkEnvironment&) = delete;

  // Starts both ports and waits for their links (memif needs its peer to connect).
  void start_ports(std::chrono::milliseconds link_timeout);

  uint16_t tx_port() const { return tx_port_; }
  uint16_t rx_port() const { return rx_port_; }
  uint16_t device_queues() const { return static_cast<uint16_t>(pools_.device_queues); }
  rte_mempool* tx_pool(uint32_t q) const { return tx_pools_[q]; }
  Mac tx_mac() const { return mac(tx_port_); }
  Mac rx_mac() const { return mac(rx_port_); }
  uint32_t frame_bytes() const { return frame_bytes_; }
  // Forward mode: the forwarder's ports, its one mbuf pool, and that pool's data when it is
  // host_pinned memory registered with CUDA (GPU work), else null.
  bool forwarding() const { return forwarding_; }
  uint16_t forward_rx_port() const { return fwd_rx_port_; }
  uint16_t forward_tx_port() const { return fwd_tx_port_; }
  const memory::Region* forward_memory() const { return forwarding_ ? rx_memory() : nullptr; }
  // The receive pools' data (over net_ring also the TX pools', whose mbufs the receiver gets)
  // when it is host_pinned memory registered with CUDA (a GPU workload reads the frames in
  // place), else null.
  const memory::Region* rx_memory() const {
    return rx_memory_ && rx_memory_->region().cuda_registered() ? &rx_memory_->region() : nullptr;
  }
  PortSnapshot snapshot() const;
  // Drivers, EAL arguments, hugepages: what the record says about how DPDK ran.
  void describe(RawFigures& f) const;

 private:
  void release();
  uint16_t probe(const PortSpec& spec, const std::string& key);
  // rx_pool: every RX queue's pool; null: the receiver's pools (receives) or the spare pool
  void configure(uint16_t port, const PortSpec& spec, bool transmits, bool receives, rte_mempool* rx_pool = nullptr);
  // In rx_memory_ when `external` and the cell's memory is host_pinned, else DPDK's own memory.
  rte_mempool* make_pool(const std::string& name, uint32_t buffers, uint32_t data_room, bool external);
  void make_forward_pools();
  void make_rx_memory();
  static Mac mac(uint16_t port);

  const Cell& cell_;
  PortSpec tx_spec_, rx_spec_;
  bool forwarding_ = false;
  PortSpec fwd_rx_spec_, fwd_tx_spec_;
  uint16_t fwd_rx_port_ = 0, fwd_tx_port_ = 0;
  rte_mempool* fwd_pool_ = nullptr;        // forward mode: shared by every pipeline
  rte_mempool* fwd_spare_pool_ = nullptr;  // the forwarder's TX port's RX queues (never polled)
  uint32_t frame_bytes_;
  PoolSizes pools_;
  EalPlan plan_;
  bool eal_ready_ = false;
  uint16_t tx_port_ = 0, rx_port_ = 0;
  std::vector<std::pair<uint16_t, std::string>> opened_;  // ports to stop and close, with their netns
  bool started_ = false;
  std::vector<rte_mempool*> tx_pools_, rx_pools_;
  rte_mempool* spare_pool_ = nullptr;
  // memory host_pinned: the receive pools' data (forward mode: the forwarder's pool's data), from
  // the memory provider as DPDK external memory; over net_ring the TX pools' data too
  // (tx_in_rx_memory_), since the receiver gets the sender's mbufs and reads them in place
  std::unique_ptr<ExternalMemory> rx_memory_;
  bool tx_in_rx_memory_ = false;
};

}  // namespace spiral::raw
