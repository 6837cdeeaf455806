#include "transports/gpucopy/peer_path.hpp"

#include "gpu/nvml_sampler.hpp"

namespace spiral::gpucopy {

std::string classify_path(const NvmlTopologyApi& api, void* a, void* b) {
  int status = -1;
  if (api.p2p_status && api.p2p_status(a, b, kNvmlP2pCapsIndexNvlink, &status) == 0 && status == kNvmlP2pStatusOk) {
    int links = 0;
    for (unsigned l = 0; api.nvlink_state && l < kNvmlNvlinkMaxLinks; ++l) {
      int active = 0;
      if (api.nvlink_state(a, l, &active) == 0 && active) ++links;
    }
    return links > 0 ? "NV" + std::to_string(links) : "NV";
  }
  int level = -1;
  if (!api.common_ancestor || api.common_ancestor(a, b, &level) != 0) return "unknown";
  switch (level) {  // nvmlGpuTopologyLevel_t
    case 0:         // NVML_TOPOLOGY_INTERNAL: two GPUs of one board, behind its switch
    case 10: return "PIX";   // NVML_TOPOLOGY_SINGLE
    case 20: return "PXB";   // NVML_TOPOLOGY_MULTIPLE
    case 30: return "PHB";   // NVML_TOPOLOGY_HOSTBRIDGE
    case 40: return "NODE";  // NVML_TOPOLOGY_NODE
    case 50: return "SYS";   // NVML_TOPOLOGY_SYSTEM
  }
  return "unknown";
}

NvmlTopologyApi nvml_topology_api(const gpu::NvmlSampler& nvml) {
  // nvml.h's enums are int-sized; a pointer to one is passed as int*
  using P2p = int (*)(void*, void*, int, int*);
  using Ancestor = int (*)(void*, void*, int*);
  using Link = int (*)(void*, unsigned, int*);
  NvmlTopologyApi api;
  if (auto f = reinterpret_cast<P2p>(nvml.symbol("nvmlDeviceGetP2PStatus"))) api.p2p_status = f;
  if (auto f = reinterpret_cast<Ancestor>(nvml.symbol("nvmlDeviceGetTopologyCommonAncestor"))) api.common_ancestor = f;
  if (auto f = reinterpret_cast<Link>(nvml.symbol("nvmlDeviceGetNvLinkState"))) api.nvlink_state = f;
  return api;
}

std::string nvml_path(const gpu::NvmlSampler& a, const gpu::NvmlSampler& b) {
  if (!a.available() || !b.available() || a.status() != "ok" || b.status() != "ok") return "unknown";
  return classify_path(nvml_topology_api(a), a.device_handle(), b.device_handle());
}

}  // namespace spiral::gpucopy
