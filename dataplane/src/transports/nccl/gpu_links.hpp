#pragma once
// Which wire a P2P connection between two GPUs of a node runs on. NCCL's channel lines say "via
// P2P/CUMEM" or "P2P/IPC" for NVLink and for PCIe alike, so each rank records what NVML says of
// its own GPU (its PCI bus id and the far ends of its active NVLinks) and rank 0 classifies each
// P2P connection from the two ranks' records. Each rank sees only its own GPU (a pod holds its
// own), so the records, not a query between two devices, carry the answer.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "transports/nccl/transport_log.hpp"

namespace spiral::nccl {

struct GpuLinks {
  bool known = false;        // NVML answered for this GPU; false: no library, no device, no NVLink API
  std::string pci_bus_id;    // normalised (normalise_bus_id)
  std::vector<std::string> nvlink_remotes;  // far ends of its active NVLinks: peer GPUs or NVSwitches
};

// "00000000:1B:00.0" (NVML) and "0000:1b:00.0" (CUDA) -> "0000:1b:00.0".
std::string normalise_bus_id(std::string_view id);

// Two GPUs talk over NVLink when one's active NVLink ends at the other (a bridge) or both end at
// the same far device (an NVSwitch); otherwise, both known, over PCIe. Unknown when either rank
// could not ask NVML.
P2pPath p2p_path(const GpuLinks& a, const GpuLinks& b);

// Sets the path of every P2P connection whose two ranks have a record (by_rank[r] is rank r's).
void classify_p2p(TransportLog& log, const std::vector<GpuLinks>& by_rank);

nlohmann::json to_json(const GpuLinks& g);
GpuLinks gpu_links_from_json(const nlohmann::json& j);  // absent or malformed: unknown

}  // namespace spiral::nccl
