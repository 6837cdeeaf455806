#pragma once
// RAII owners of the CUDA handles the pipeline uses. Destructors never throw: a failing
// release at teardown is ignored (the run's result is already decided by then).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "gpu/cuda/check.hpp"

namespace spiral::gpu {

template <typename Handle, typename Traits>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle h) : h_(h), valid_(true) {}
  Owned(Owned&& o) noexcept : h_(o.h_), valid_(std::exchange(o.valid_, false)) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = o.h_;
      valid_ = std::exchange(o.valid_, false);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  Handle get() const { return h_; }
  explicit operator bool() const { return valid_; }
  void reset() {
    if (valid_) Traits::release(h_);
    valid_ = false;
  }

 private:
  Handle h_{};
  bool valid_ = false;
};

struct StreamTraits {
  static void release(cudaStream_t s) { (void)cudaStreamDestroy(s); }
};
struct EventTraits {
  static void release(cudaEvent_t e) { (void)cudaEventDestroy(e); }
};
struct CublasTraits {
  static void release(cublasHandle_t h) { (void)cublasDestroy(h); }
};
struct CufftTraits {
  static void release(cufftHandle p) { (void)cufftDestroy(p); }
};
struct GraphTraits {
  static void release(cudaGraph_t g) { (void)cudaGraphDestroy(g); }
};
struct GraphExecTraits {
  static void release(cudaGraphExec_t g) { (void)cudaGraphExecDestroy(g); }
};
struct DeviceMemoryTraits {
  static void release(void* p) { (void)cudaFree(p); }
};
struct PinnedMemoryTraits {
  static void release(void* p) { (void)cudaFreeHost(p); }
};

using Stream = Owned<cudaStream_t, StreamTraits>;
using Event = Owned<cudaEvent_t, EventTraits>;
using CublasHandle = Owned<cublasHandle_t, CublasTraits>;
using CufftPlan = Owned<cufftHandle, CufftTraits>;
using Graph = Owned<cudaGraph_t, GraphTraits>;
using GraphExec = Owned<cudaGraphExec_t, GraphExecTraits>;

inline Stream make_stream() {
  cudaStream_t s;
  SPIRAL_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}
// Timing off unless asked: cheaper to record and query.
inline Event make_event(bool timing = false) {
  cudaEvent_t e;
  SPIRAL_CUDA(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return Event(e);
}
inline CublasHandle make_cublas() {
  cublasHandle_t h;
  SPIRAL_CUDA(cublasCreate(&h));
  return CublasHandle(h);
}

// Bytes on the device or in page-locked host memory.
template <typename Traits>
class Memory {
 public:
  Memory() = default;
  Memory(void* p, size_t bytes) : p_(p), bytes_(bytes) {}
  std::byte* data() const { return static_cast<std::byte*>(p_.get()); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p_.get());
  }
  size_t size() const { return bytes_; }

 private:
  Owned<void*, Traits> p_;
  size_t bytes_ = 0;
};
using DeviceBuffer = Memory<DeviceMemoryTraits>;
using PinnedBuffer = Memory<PinnedMemoryTraits>;

inline DeviceBuffer device_buffer(size_t bytes) {
  void* p = nullptr;
  SPIRAL_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
  return DeviceBuffer(p, bytes);
}
// mapped: the device can read it in place (zero-copy) through device_pointer().
// flags: more cudaHostAlloc flags (cudaHostAllocWriteCombined).
inline PinnedBuffer pinned_buffer(size_t bytes, bool mapped = false, unsigned flags = 0) {
  void* p = nullptr;
  SPIRAL_CUDA(cudaHostAlloc(&p, bytes ? bytes : 1, (mapped ? cudaHostAllocMapped : cudaHostAllocDefault) | flags));
  return PinnedBuffer(p, bytes);
}
inline std::byte* device_pointer(const PinnedBuffer& b) {
  void* d = nullptr;
  SPIRAL_CUDA(cudaHostGetDevicePointer(&d, b.data(), 0));
  return static_cast<std::byte*>(d);
}

}  // namespace spiral::gpu
