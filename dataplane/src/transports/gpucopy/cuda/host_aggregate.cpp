// All GPUs copying to or from host memory at once, against each alone (peer_engine.hpp).
#include <cuda_runtime_api.h>

#include "gpu/cuda/check.hpp"
#include "transports/gpucopy/cuda/peer_engine.hpp"

namespace spiral::gpucopy {

namespace {

// One GPU's buffers: device memory and its own pinned host memory (the memory provider's,
// registered with CUDA), so the GPUs share no buffer, only the host's memory and links.
struct HostPair {
  std::unique_ptr<memory::Region> device, host;
  std::unique_ptr<Lane> lane;
};

double gbps(uint64_t bytes, int count, double us) { return us > 0 ? static_cast<double>(bytes) * count / (us * 1e3) : 0; }

}  // namespace

std::vector<HostAggregate> measure_host_aggregate(const CopySpec& spec, const std::vector<int>& devices, uint64_t bytes) {
  std::vector<HostAggregate> out;
  if (spec.peer.aggregate.empty() || devices.size() < 2) return out;
  std::vector<HostPair> gpus;
  for (int d : devices) {
    OnDevice on(d);
    const std::string what = "GPU " + std::to_string(d) + " aggregate copy ";
    HostPair p;
    p.device = memory::allocate({BufferMemory::device, bytes, what + "device buffer"});
    p.host = memory::allocate({BufferMemory::host_pinned, bytes, what + "host buffer", memory::kRegisterCuda});
    SPIRAL_CUDA(cudaMemset(p.device->device_pointer(), 2, bytes));
    SPIRAL_CUDA(cudaDeviceSynchronize());
    p.lane = std::make_unique<Lane>(d);
    gpus.push_back(std::move(p));
  }
  Gate gate;
  for (HostDirection dir : spec.peer.aggregate) {
    auto enqueue = [&](const HostPair& p, int count) {
      for (int i = 0; i < count; ++i)
        SPIRAL_CUDA(dir == HostDirection::h2d
                        ? cudaMemcpyAsync(p.device->device_pointer(), p.host->data(), bytes, cudaMemcpyHostToDevice, p.lane->stream)
                        : cudaMemcpyAsync(p.host->data(), p.device->device_pointer(), bytes, cudaMemcpyDeviceToHost, p.lane->stream));
    };
    // lanes[i] is gpus[first + i]
    auto run = [&](size_t first, size_t count) {
      std::vector<Lane*> lanes;
      for (size_t i = first; i < first + count; ++i) lanes.push_back(gpus[i].lane.get());
      if (spec.warmup_iterations > 0)
        gate.run(lanes, [&](size_t i) { enqueue(gpus[first + i], spec.warmup_iterations); });
      return gate.run(lanes, [&](size_t i) { enqueue(gpus[first + i], spec.iterations); });
    };
    HostAggregate h{dir, bytes, {}, {}, 0};
    for (size_t g = 0; g < gpus.size(); ++g) h.alone_gbps.push_back(gbps(bytes, spec.iterations, run(g, 1).lane_us[0]));
    const Gate::Times together = run(0, gpus.size());
    for (double us : together.lane_us) h.together_gbps.push_back(gbps(bytes, spec.iterations, us));
    // every byte over the span from the gate's opening to the last GPU's end (host clock)
    h.aggregate_gbps = gbps(bytes * gpus.size(), spec.iterations, together.span_us);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace spiral::gpucopy
