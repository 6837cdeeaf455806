#include "transports/raw/mbuf_pool.hpp"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include <cstring>

namespace spiral::raw {

// rte_pktmbuf_pool_create_by_ops (DPDK 22.11), with the one flag it cannot take.
rte_mempool* create_mbuf_pool(const std::string& name, uint32_t buffers, unsigned cache, uint16_t data_room,
                              int socket, bool dense) {
  if (!dense || rte_eal_iova_mode() != RTE_IOVA_VA)
    return rte_pktmbuf_pool_create(name.c_str(), buffers, cache, 0, data_room, socket);
  rte_pktmbuf_pool_private priv;
  std::memset(&priv, 0, sizeof priv);
  priv.mbuf_data_room_size = data_room;
  rte_mempool* mp = rte_mempool_create_empty(name.c_str(), buffers, sizeof(rte_mbuf) + data_room, cache,
                                             sizeof(rte_pktmbuf_pool_private), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (!mp) return nullptr;
  int rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr);
  if (rc == 0) {
    rte_pktmbuf_pool_init(mp, &priv);
    rc = rte_mempool_populate_default(mp);
  }
  if (rc < 0 || (rc == 0 && mp->populated_size < buffers)) {
    rte_mempool_free(mp);
    rte_errno = rc < 0 ? -rc : ENOMEM;
    return nullptr;
  }
  rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
  return mp;
}

}  // namespace spiral::raw
