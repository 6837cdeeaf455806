#pragma once
// Packet mbuf pools in DPDK's own memory. Without huge pages (--no-huge) DPDK's memory is 4 KiB
// pages, and rte_pktmbuf_pool_create keeps every mbuf inside one page (IOVA-contiguous objects):
// a 2368-byte mbuf then takes a whole page and a 4458-byte one two, up to 1.8 times what the
// pools hold, which the run's -m budget (eal_plan.cpp) does not count on. No-huge memory is
// IOVA-as-VA, where a virtually contiguous mbuf is also IOVA-contiguous, so such pools may pack
// their mbufs densely.
#include <rte_mempool.h>

#include <cstdint>
#include <string>

namespace spiral::raw {

// nullptr with rte_errno set on failure, as rte_pktmbuf_pool_create. dense: pack the mbufs
// across page boundaries (only where the EAL runs IOVA as VA).
rte_mempool* create_mbuf_pool(const std::string& name, uint32_t buffers, unsigned cache, uint16_t data_room,
                              int socket, bool dense);

}  // namespace spiral::raw
