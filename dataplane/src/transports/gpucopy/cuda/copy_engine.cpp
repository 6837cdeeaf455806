#include "transports/gpucopy/cuda/copy_engine.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "gpu/cuda/check.hpp"
#include "gpu/nvml_sampler.hpp"
#include "memory/region.hpp"
#include "sys/errors.hpp"

namespace spiral::gpucopy {

namespace {

// The buffers of one GPU, sized for the largest copy and reused across sizes and cases, from the
// memory provider: device memory, pinned host memory (locked and registered with CUDA, as CUDA's
// own cudaHostAlloc memory would be) and pageable host memory (touched at allocation, so the pages
// exist before the first copy).
struct Buffers {
  std::unique_ptr<memory::Region> device_a, device_b, pinned, pageable;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;

  explicit Buffers(size_t bytes) {
    using memory::allocate;
    device_a = allocate({BufferMemory::device, bytes, "gpucopy device buffer"});
    device_b = allocate({BufferMemory::device, bytes, "gpucopy second device buffer"});
    pinned = allocate({BufferMemory::host_pinned, bytes, "gpucopy pinned host buffer", memory::kRegisterCuda});
    pageable = allocate({BufferMemory::host, bytes, "gpucopy pageable host buffer"});
    std::memset(pageable->data(), 1, bytes);
    std::memset(pinned->data(), 1, bytes);
    SPIRAL_CUDA(cudaMemset(device_a->device_pointer(), 2, bytes));
    SPIRAL_CUDA(cudaMemset(device_b->device_pointer(), 3, bytes));
    SPIRAL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SPIRAL_CUDA(cudaEventCreate(&start));
    SPIRAL_CUDA(cudaEventCreate(&stop));
  }
  ~Buffers() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

struct Copy {
  void* dst;
  const void* src;
  cudaMemcpyKind kind;
};

Copy copy_of(const CopyCase& c, const Buffers& b) {
  void* host = (c.memory == HostMemory::pinned ? b.pinned : b.pageable)->data();
  void* device_a = b.device_a->device_pointer();
  switch (c.direction) {
    case Direction::h2d: return {device_a, host, cudaMemcpyHostToDevice};
    case Direction::d2h: return {host, device_a, cudaMemcpyDeviceToHost};
    case Direction::d2d: break;
  }
  return {b.device_b->device_pointer(), device_a, cudaMemcpyDeviceToDevice};
}

double time_copies_us(const Copy& copy, uint64_t bytes, int iterations, bool host_clock, const Buffers& b) {
  if (host_clock) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) SPIRAL_CUDA(cudaMemcpyAsync(copy.dst, copy.src, bytes, copy.kind, b.stream));
    SPIRAL_CUDA(cudaStreamSynchronize(b.stream));
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iterations;
  }
  SPIRAL_CUDA(cudaEventRecord(b.start, b.stream));
  for (int i = 0; i < iterations; ++i) SPIRAL_CUDA(cudaMemcpyAsync(copy.dst, copy.src, bytes, copy.kind, b.stream));
  SPIRAL_CUDA(cudaEventRecord(b.stop, b.stream));
  SPIRAL_CUDA(cudaEventSynchronize(b.stop));
  float ms = 0;
  SPIRAL_CUDA(cudaEventElapsedTime(&ms, b.start, b.stop));
  return 1e3 * ms / iterations;
}

GpuPlacement placement_of(int device) {
  GpuPlacement g;
  g.device = device;
  cudaDeviceProp p{};
  SPIRAL_CUDA(cudaGetDeviceProperties(&p, device));
  g.name = p.name;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) g.pci_bus_id = bus;
  g.numa_node = numa_node_of(g.pci_bus_id);
  const gpu::NvmlSampler nvml(g.pci_bus_id);
  const auto link = nvml.pcie_link();
  g.pcie_generation = link.generation;
  g.pcie_width = link.width;
  g.pcie_max_generation = link.max_generation;
  g.pcie_max_width = link.max_width;
  return g;
}

}  // namespace

std::vector<int> copy_devices(const CopySpec& spec) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw RunFailure("gpucopy: no CUDA device visible");
  if (!spec.devices.empty()) {
    for (int d : spec.devices)
      if (d < 0 || d >= count)
        throw BadInput("gpucopy: device " + std::to_string(d) + " is not one of the " + std::to_string(count) +
                       " visible");
    return spec.devices;
  }
  std::vector<int> all(count);
  for (int d = 0; d < count; ++d) all[d] = d;
  return all;
}

GpuCopyResult measure_gpu(const CopySpec& spec, int device) {
  SPIRAL_CUDA(cudaSetDevice(device));
  GpuCopyResult result{placement_of(device), {}};
  const auto sweep = sizes(spec.sweep);
  Buffers buffers(sweep.back());
  for (const CopyCase& c : cases(spec)) {
    const Copy copy = copy_of(c, buffers);
    const bool host_clock = c.host_memory_used && c.memory == HostMemory::pageable;
    for (uint64_t bytes : sweep) {
      if (spec.warmup_iterations > 0) time_copies_us(copy, bytes, spec.warmup_iterations, host_clock, buffers);
      const double us = time_copies_us(copy, bytes, spec.iterations, host_clock, buffers);
      result.rows.push_back({device, std::string(name(c.direction)), c.memory_name(), bytes, us,
                             us > 0 ? static_cast<double>(bytes) / (us * 1e3) : 0.0});
    }
  }
  return result;
}

}  // namespace spiral::gpucopy
