#include "transports/nccl/gpu_links.hpp"

#include <algorithm>
#include <cctype>

namespace spiral::nccl {

std::string normalise_bus_id(std::string_view id) {
  std::string out;
  for (char c : id) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // the domain is 8 hex digits in NVML's spelling and 4 in CUDA's: keep the last 4
  const size_t colon = out.find(':');
  if (colon != std::string::npos && colon > 4) out.erase(0, colon - 4);
  return out;
}

P2pPath p2p_path(const GpuLinks& a, const GpuLinks& b) {
  if (!a.known || !b.known) return P2pPath::unknown;
  auto ends_at = [](const GpuLinks& g, const std::string& id) {
    return std::find(g.nvlink_remotes.begin(), g.nvlink_remotes.end(), id) != g.nvlink_remotes.end();
  };
  if (ends_at(a, b.pci_bus_id) || ends_at(b, a.pci_bus_id)) return P2pPath::nvlink;
  for (const auto& far : a.nvlink_remotes)
    if (ends_at(b, far)) return P2pPath::nvlink;
  return P2pPath::pcie;
}

void classify_p2p(TransportLog& log, const std::vector<GpuLinks>& by_rank) {
  const int n = static_cast<int>(by_rank.size());
  for (auto& c : log.connections) {
    if (c.link != Link::p2p || c.from < 0 || c.to < 0 || c.from >= n || c.to >= n) continue;
    c.path = p2p_path(by_rank[c.from], by_rank[c.to]);
  }
}

nlohmann::json to_json(const GpuLinks& g) {
  return {{"known", g.known}, {"pci_bus_id", g.pci_bus_id}, {"nvlink_remotes", g.nvlink_remotes}};
}

GpuLinks gpu_links_from_json(const nlohmann::json& j) {
  GpuLinks g;
  try {
    g.known = j.at("known").get<bool>();
    g.pci_bus_id = normalise_bus_id(j.at("pci_bus_id").get<std::string>());
    for (const auto& id : j.at("nvlink_remotes")) g.nvlink_remotes.push_back(normalise_bus_id(id.get<std::string>()));
  } catch (const nlohmann::json::exception&) {
    return {};  // an older rank or a malformed record: the path stays unknown, never guessed
  }
  return g;
}

}  // namespace spiral::nccl
