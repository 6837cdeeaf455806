#pragma once
// The host<->device copy bench (seed 001's bandwidthTest, per GPU): which copies, which host
// memory, which sizes, and what it reports per GPU: the copies' figures and where the GPU sits
// (NUMA node, PCIe link); then the copies between GPUs (peer_spec.hpp). Plain structs; the CUDA
// engines are cuda/copy_engine.hpp and cuda/peer_engine.hpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/size_sweep.hpp"
#include "transports/gpucopy/local_spec.hpp"
#include "transports/gpucopy/peer_spec.hpp"

namespace spiral::gpucopy {

enum class Direction { h2d, d2h, d2d };
enum class HostMemory { pinned, pageable };

std::string_view name(Direction d);   // "h2d", "d2h", "d2d"
std::string_view name(HostMemory m);  // "pinned", "pageable"
Direction direction_named(std::string_view name);    // throws BadInput naming the known ones
HostMemory host_memory_named(std::string_view name);

struct CopySpec {
  std::vector<Direction> directions{Direction::h2d, Direction::d2h, Direction::d2d};
  std::vector<HostMemory> memories{HostMemory::pinned, HostMemory::pageable};
  SizeSweep sweep{1ull << 10, 256ull << 20, 4, 0};
  int iterations = 20;  // timed copies per size
  int warmup_iterations = 2;
  std::vector<int> devices;  // CUDA device indices; empty: every visible GPU
  PeerSpec peer;             // between the GPUs, and all of them with the host at once
  LocalSpec local;           // each GPU by itself: latency, SM read-only and write-only
};

// One measured combination; d2d has no host memory (memory "device").
struct CopyCase {
  Direction direction;
  bool host_memory_used;
  HostMemory memory;
  std::string memory_name() const { return host_memory_used ? std::string(name(memory)) : "device"; }
};
// The cases of a spec, in report order: each host direction per host memory, then d2d once.
std::vector<CopyCase> cases(const CopySpec& spec);

struct CopyRow {
  int device = 0;
  std::string direction, memory;
  uint64_t bytes = 0;
  double time_us = 0;  // mean per copy
  double gbps = 0;     // GB/s (1e9 B/s) of bytes copied; d2d counts each byte once
};

struct GpuPlacement {
  int device = 0;
  std::string name, pci_bus_id;
  int numa_node = -1;  // -1: the platform does not say (one NUMA node, or no sysfs)
  int pcie_generation = -1, pcie_width = -1, pcie_max_generation = -1, pcie_max_width = -1;
};

// The NUMA node of a PCI device from sysfs (<root>/bus/pci/devices/<bus id>/numa_node); the bus
// id as CUDA spells it ("0000:1B:00.0") is lowered to sysfs' spelling. -1 when unknown.
int numa_node_of(const std::string& pci_bus_id, const std::string& sysfs_root = "/sys");

nlohmann::json to_json(const GpuPlacement& gpu);
nlohmann::json to_json(const CopyRow& row);

}  // namespace spiral::gpucopy
