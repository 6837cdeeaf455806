#pragma once
// What connects two GPUs, in `nvidia-smi topo -m`'s words, from NVML (loaded at run time through
// the NVML sampler, gpu/nvml_sampler.hpp):
//   NVLink P2P (nvmlDeviceGetP2PStatus, NVML_P2P_CAPS_INDEX_NVLINK) -> "NV<n>", n the source
//     GPU's active links (nvmlDeviceGetNvLinkState; through NVSwitch every link reaches every peer)
//   else the PCIe common ancestor (nvmlDeviceGetTopologyCommonAncestor) -> "PIX" (one switch, or
//     the same board), "PXB" (several switches), "PHB" (host bridge), "NODE" (same NUMA node),
//     "SYS" (across NUMA nodes)
//   else "unknown".
// The queries are a table of functions so the classification is tested without NVML.
#include <functional>
#include <string>

namespace spiral::gpu {
class NvmlSampler;
}

namespace spiral::gpucopy {

// NVML's calls as nvml.h declares them; each returns nvmlReturn_t (0 = NVML_SUCCESS). An empty
// function: the library lacks the entry point.
struct NvmlTopologyApi {
  std::function<int(void* a, void* b, int caps_index, int* status)> p2p_status;  // nvmlDeviceGetP2PStatus
  std::function<int(void* a, void* b, int* level)> common_ancestor;  // nvmlDeviceGetTopologyCommonAncestor
  std::function<int(void* device, unsigned link, int* active)> nvlink_state;  // nvmlDeviceGetNvLinkState
};

constexpr int kNvmlP2pCapsIndexNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kNvmlP2pStatusOk = 0;          // NVML_P2P_STATUS_OK
constexpr unsigned kNvmlNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS

std::string classify_path(const NvmlTopologyApi& api, void* a, void* b);

// The table of a loaded NVML.
NvmlTopologyApi nvml_topology_api(const gpu::NvmlSampler& nvml);
// Both GPUs' samplers: "unknown" unless NVML found each by its own bus id (the sampler's
// device-0 fallback would name the wrong GPU on a node of several).
std::string nvml_path(const gpu::NvmlSampler& a, const gpu::NvmlSampler& b);

}  // namespace spiral::gpucopy
