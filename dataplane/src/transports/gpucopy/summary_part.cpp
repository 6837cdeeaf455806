#include "transports/gpucopy/summary_part.hpp"

#include <cmath>

namespace spiral::gpucopy {

nlohmann::json summary_part(const std::vector<GpuPlacement>& gpus, const std::vector<CopyRow>& rows) {
  auto out_gpus = nlohmann::json::array();
  for (const auto& g : gpus) out_gpus.push_back({g.device, g.numa_node, g.pcie_generation, g.pcie_width});
  auto out_rows = nlohmann::json::array();
  for (size_t i = 0; i < rows.size() && i < kMaxSummaryRows; ++i) {
    const CopyRow& r = rows[i];
    out_rows.push_back({r.device, r.direction, r.memory, r.bytes, std::llround(r.time_us * 1e3), std::llround(r.gbps * 1e3)});
  }
  return {{"gpus", out_gpus}, {"rows", out_rows}};
}

}  // namespace spiral::gpucopy
