#pragma once
// The NCCL device checks' opening: without a GPU say why and skip (exit 77, ctest's Skipped);
// with one, name it and the NCCL library the checks run on.
#include <cstdio>
#include <string>

#include "gpu/cuda/device.hpp"
#include "transports/nccl/nccl_engine.hpp"

namespace spiral::testing {

// opens_on_a_gpu is false, after printing why, when the machine has no usable GPU.
inline bool opens_on_a_gpu() {
  std::string why;
  const auto device = gpu::probe_device(why);
  if (!device) {
    std::printf("SKIP no GPU: %s\n", why.c_str());
    return false;
  }
  std::printf("device: %s, NCCL %s\n", device->name.c_str(), nccl::library_version().c_str());
  return true;
}

}  // namespace spiral::testing
