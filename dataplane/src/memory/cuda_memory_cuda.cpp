// The memory provider's CUDA calls (CUDA builds).
#include "memory/cuda_memory.hpp"

#include <cuda_runtime.h>

#include "sys/errors.hpp"

namespace spiral::memory {
namespace {

[[noreturn]] void refuse(const std::string& what, const char* call, cudaError_t e) {
  const std::string reason = what + ": " + call + ": " + cudaGetErrorString(e);
  (void)cudaGetLastError();  // a non-sticky error: clear it so later calls do not report it again
  // no device or no driver: nothing this run can fix; anything else is a failure of the run
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) throw BadInput(reason + " (no usable GPU)");
  throw RunFailure(reason);
}

}  // namespace

std::byte* cuda_register_host(std::byte* host, size_t bytes, const std::string& what) {
  if (cudaError_t e = cudaHostRegister(host, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable); e != cudaSuccess)
    refuse(what, "cudaHostRegister", e);
  void* device = nullptr;
  if (cudaError_t e = cudaHostGetDevicePointer(&device, host, 0); e != cudaSuccess) {
    (void)cudaHostUnregister(host);
    refuse(what, "cudaHostGetDevicePointer", e);
  }
  return static_cast<std::byte*>(device);
}

void cuda_unregister_host(std::byte* host) noexcept { (void)cudaHostUnregister(host); }

std::byte* cuda_allocate_device(size_t bytes, const std::string& what) {
  void* p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1); e != cudaSuccess) refuse(what, "cudaMalloc", e);
  return static_cast<std::byte*>(p);
}

void cuda_free_device(std::byte* device) noexcept { (void)cudaFree(device); }

}  // namespace spiral::memory
