#include "transports/gpucopy/copy_spec.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "sys/errors.hpp"

namespace spiral::gpucopy {

std::string_view name(Direction d) {
  switch (d) {
    case Direction::h2d: return "h2d";
    case Direction::d2h: return "d2h";
    case Direction::d2d: return "d2d";
  }
  return "?";
}

std::string_view name(HostMemory m) { return m == HostMemory::pinned ? "pinned" : "pageable"; }

Direction direction_named(std::string_view n) {
  for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d})
    if (name(d) == n) return d;
  throw BadInput("unknown copy direction \"" + std::string(n) + "\" (known: h2d, d2h, d2d)");
}

HostMemory host_memory_named(std::string_view n) {
  for (HostMemory m : {HostMemory::pinned, HostMemory::pageable})
    if (name(m) == n) return m;
  throw BadInput("unknown host memory \"" + std::string(n) + "\" (known: pinned, pageable)");
}

std::vector<CopyCase> cases(const CopySpec& spec) {
  std::vector<CopyCase> out;
  for (Direction d : spec.directions) {
    if (d == Direction::d2d) continue;
    for (HostMemory m : spec.memories) out.push_back({d, true, m});
  }
  if (std::find(spec.directions.begin(), spec.directions.end(), Direction::d2d) != spec.directions.end())
    out.push_back({Direction::d2d, false, HostMemory::pinned});
  return out;
}

int numa_node_of(const std::string& pci_bus_id, const std::string& sysfs_root) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  // CUDA may print an 8-digit domain ("00000000:1b:00.0"); sysfs uses 4
  if (auto colon = id.find(':'); colon == 8 && id.compare(0, 4, "0000") == 0) id.erase(0, 4);
  std::ifstream in(sysfs_root + "/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  if (!(in >> node)) return -1;
  return node;
}

nlohmann::json to_json(const GpuPlacement& g) {
  return {{"device", g.device},
          {"name", g.name},
          {"pci_bus_id", g.pci_bus_id},
          {"numa_node", g.numa_node},
          {"pcie_generation", g.pcie_generation},
          {"pcie_width", g.pcie_width},
          {"pcie_max_generation", g.pcie_max_generation},
          {"pcie_max_width", g.pcie_max_width}};
}

nlohmann::json to_json(const CopyRow& r) {
  return {{"device", r.device}, {"direction", r.direction}, {"memory", r.memory},
          {"bytes", r.bytes},   {"time_us", r.time_us},     {"gbps", r.gbps}};
}

}  // namespace spiral::gpucopy
