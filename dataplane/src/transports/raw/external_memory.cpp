#include "transports/raw/external_memory.hpp"

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "sys/errors.hpp"

namespace spiral::raw {
namespace {

constexpr uint64_t kPage = 4096;  // the provider's pages: anonymous mappings, not hugepages
constexpr uint64_t kAlign = 16;   // the GPU's widest load (uint4)

uint16_t element_bytes(uint32_t data_room) { return static_cast<uint16_t>(RTE_ALIGN_CEIL(data_room, RTE_CACHE_LINE_SIZE)); }

std::string dpdk_error(int rc) { return rte_strerror(rc < 0 ? -rc : rc); }

}  // namespace

uint64_t ExternalMemory::bytes_for(uint32_t buffers, uint32_t data_room) {
  return uint64_t{buffers} * element_bytes(data_room) + kAlign;
}

ExternalMemory::ExternalMemory(std::unique_ptr<memory::Region> region, std::string what)
    : region_(std::move(region)), what_(std::move(what)) {
  if (!region_->data()) throw BadInput(what_ + ": DPDK external memory must be host memory the CPU can reach");
  // No IOVA table: the pages are reached by virtual address (IOVA as VA) or by the CPU only.
  if (rte_extmem_register(region_->data(), region_->mapped(), nullptr, 0, kPage) != 0)
    throw RunFailure(what_ + ": rte_extmem_register of " + std::to_string(region_->mapped() >> 10) +
                     " KiB: " + dpdk_error(rte_errno));
  registered_ = true;
}

ExternalMemory::~ExternalMemory() {
  const auto iova = reinterpret_cast<uint64_t>(region_->data());
  for (rte_device* d : mapped_) rte_dev_dma_unmap(d, region_->data(), iova, region_->mapped());
  if (registered_) rte_extmem_unregister(region_->data(), region_->mapped());
}

void ExternalMemory::dma_map(rte_device* device, const std::string& who) {
  if (rte_eal_iova_mode() != RTE_IOVA_VA)
    throw BadInput(who + ": DMA into " + what_ + " needs the EAL in IOVA-as-VA mode (an IOMMU with vfio-pci, or "
                          "mlx5); this EAL runs with physical addresses: use memory host");
  const auto iova = reinterpret_cast<uint64_t>(region_->data());
  if (rte_dev_dma_map(device, region_->data(), iova, region_->mapped()) != 0)
    throw BadInput(who + ": rte_dev_dma_map of " + what_ + ": " + dpdk_error(rte_errno) +
                   " (the port's driver cannot DMA into external memory: use memory host)");
  mapped_.push_back(device);
}

rte_mempool* ExternalMemory::make_pool(const std::string& name, uint32_t buffers, uint32_t data_room, unsigned cache,
                                       int socket, uint32_t aligned_at) {
  const uint64_t need = bytes_for(buffers, data_room);
  if (used_ + need > region_->mapped())
    throw RunFailure(what_ + ": pool " + name + " needs " + std::to_string(need) + " B, " +
                     std::to_string(region_->mapped() - used_) + " B left");
  // Every element is a whole number of cache lines, so shifting the first one shifts them all:
  // the PMD writes at buf_addr + RTE_PKTMBUF_HEADROOM, and byte `aligned_at` lands on kAlign.
  std::byte* first = region_->data() + used_;
  const uint64_t at = reinterpret_cast<uintptr_t>(first) + RTE_PKTMBUF_HEADROOM + aligned_at;
  rte_pktmbuf_extmem ext{};
  ext.buf_ptr = first + (kAlign - at % kAlign) % kAlign;
  ext.buf_iova = rte_eal_iova_mode() == RTE_IOVA_VA ? reinterpret_cast<uint64_t>(ext.buf_ptr) : RTE_BAD_IOVA;
  ext.buf_len = need - kAlign;
  ext.elt_size = element_bytes(data_room);
  rte_mempool* pool = rte_pktmbuf_pool_create_extbuf(name.c_str(), buffers, cache, 0, static_cast<uint16_t>(data_room),
                                                     socket, &ext, 1);
  if (!pool)
    throw BadInput("mbuf pool " + name + " in " + what_ + " (" + std::to_string(buffers) + " x " +
                   std::to_string(data_room) + " B): " + dpdk_error(rte_errno));
  used_ += need;
  return pool;
}

}  // namespace spiral::raw
