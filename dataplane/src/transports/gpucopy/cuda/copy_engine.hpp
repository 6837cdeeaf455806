#pragma once
// Copies between host and GPU memory, timed per size. Pinned host memory and device-to-device
// copies are timed with CUDA events around `iterations` cudaMemcpyAsync calls on one stream;
// pageable host memory, which CUDA stages through its own pinned buffers while the host waits,
// with the host's clock around the same calls and a final synchronize.
#include <vector>

#include "transports/gpucopy/copy_spec.hpp"

namespace spiral::gpucopy {

struct GpuCopyResult {
  GpuPlacement gpu;
  std::vector<CopyRow> rows;
};

// Every visible GPU's CUDA index (spec.devices when given). Throws RunFailure without a GPU.
std::vector<int> copy_devices(const CopySpec& spec);
// One GPU: its placement (NUMA node, PCIe link) and every case at every size.
GpuCopyResult measure_gpu(const CopySpec& spec, int device);

}  // namespace spiral::gpucopy
