#include "gpu/cuda/device.hpp"

#include <cuda_runtime_api.h>

namespace spiral::gpu {

std::optional<DeviceInfo> probe_device(std::string& why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string("no usable CUDA device (no NVIDIA driver, or one older than CUDA ") +
          std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
          "): cudaGetDeviceCount: " + cudaGetErrorString(e);
    (void)cudaGetLastError();  // not sticky, but leave nothing behind
    return std::nullopt;
  }
  if (count == 0) {
    why = "no CUDA device visible";
    return std::nullopt;
  }
  cudaDeviceProp p{};
  if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess || (e = cudaSetDevice(0)) != cudaSuccess) {
    why = std::string("CUDA device 0 unusable: ") + cudaGetErrorString(e);
    return std::nullopt;
  }
  DeviceInfo d;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess) d.pci_bus_id = bus;
  return d;
}

}  // namespace spiral::gpu
