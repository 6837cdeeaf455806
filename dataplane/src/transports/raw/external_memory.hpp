#pragma once
// The memory provider's DPDK adapter: a Region (src/memory/region.hpp) registered with the EAL
// as external memory (rte_extmem_register) and, for ports that DMA (PCI devices), mapped for
// each of them (rte_dev_dma_map), so mbuf pools can keep their data in it
// (rte_pktmbuf_pool_create_extbuf): the PMD writes frames there and, when the Region is
// registered with CUDA, GPU kernels read them in place. Virtual devices need no DMA mapping:
// net_memif and net_af_packet copy with the CPU; net_ring copies nothing (the receiver gets the
// sender's mbufs, whose pools are then made here too).
#include <rte_mempool.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memory/region.hpp"

struct rte_device;

namespace spiral::raw {

class ExternalMemory {
 public:
  // Takes a host or host_pinned Region; registers it with the EAL. Throws BadInput/RunFailure.
  ExternalMemory(std::unique_ptr<memory::Region> region, std::string what);
  ExternalMemory(const ExternalMemory&) = delete;
  ExternalMemory& operator=(const ExternalMemory&) = delete;
  ~ExternalMemory();  // unmaps, unregisters, then the Region goes (pools made here must be freed first)

  // The port DMAs into this memory: map it for the device (IOVA = VA).
  void dma_map(rte_device* device, const std::string& who);
  // An mbuf pool of `buffers` mbufs whose data rooms (data_room bytes each) are in this memory.
  // `aligned_at`: the byte of a received frame (counted from where the PMD writes it) that is to
  // start on a 16-byte boundary in every mbuf. The GPU reads the datagram payload in place from
  // there with 16-byte loads; an unaligned payload (Ethernet + IPv4 + UDP + our header = 66 B
  // after a 128 B headroom) would be read byte by byte, several times slower over PCIe.
  rte_mempool* make_pool(const std::string& name, uint32_t buffers, uint32_t data_room, unsigned cache, int socket,
                         uint32_t aligned_at = 0);
  const memory::Region& region() const { return *region_; }

  // Bytes of external memory a pool of `buffers` data rooms needs (alignment slack included).
  static uint64_t bytes_for(uint32_t buffers, uint32_t data_room);

 private:
  std::unique_ptr<memory::Region> region_;
  std::string what_;
  bool registered_ = false;
  std::vector<rte_device*> mapped_;
  uint64_t used_ = 0;  // bytes handed to pools so far
};

}  // namespace spiral::raw
