#pragma once
// The GPU this process uses: CUDA's device 0 (the first one CUDA_VISIBLE_DEVICES leaves).
#include <optional>
#include <string>

namespace spiral::gpu {

struct DeviceInfo {
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;  // for NVML
  int major = 0, minor = 0, multiprocessors = 0;
};

// nullopt and `why` when there is no usable GPU (no driver, no device, a driver too old for
// this runtime); never throws.
std::optional<DeviceInfo> probe_device(std::string& why);

}  // namespace spiral::gpu
