#include "transports/gpucopy/cuda/lanes.hpp"

#include <atomic>
#include <chrono>

#include "gpu/cuda/check.hpp"
#include "transports/gpucopy/cuda/peer_kernels.hpp"

namespace spiral::gpucopy {

OnDevice::OnDevice(int device) {
  SPIRAL_CUDA(cudaGetDevice(&previous_));
  SPIRAL_CUDA(cudaSetDevice(device));
}

OnDevice::~OnDevice() { (void)cudaSetDevice(previous_); }

Lane::Lane(int d) : device(d) {
  OnDevice on(d);
  SPIRAL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  SPIRAL_CUDA(cudaEventCreate(&start));
  SPIRAL_CUDA(cudaEventCreate(&stop));
}

Lane::~Lane() {
  OnDevice on(device);
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cudaStreamDestroy(stream);
}

Gate::Gate()
    : flag_(memory::allocate({BufferMemory::host_pinned, sizeof(int), "gpucopy start gate", memory::kRegisterCuda})) {}

Gate::Times Gate::run(const std::vector<Lane*>& lanes, const std::function<void(size_t)>& enqueue) {
  auto* flag = reinterpret_cast<volatile int*>(flag_->data());
  *flag = 0;
  // Opened on every way out: a lane left spinning would hold its GPU for the kernel's 1 s bound.
  struct Opener {
    volatile int* flag;
    ~Opener() {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      *flag = 1;
    }
  } opener{flag};
  const auto* device_flag = reinterpret_cast<const volatile int*>(flag_->device_pointer());
  for (size_t i = 0; i < lanes.size(); ++i) {
    OnDevice on(lanes[i]->device);
    SPIRAL_CUDA(kernels::hold(device_flag, lanes[i]->stream));
    SPIRAL_CUDA(cudaEventRecord(lanes[i]->start, lanes[i]->stream));
    enqueue(i);
    SPIRAL_CUDA(cudaEventRecord(lanes[i]->stop, lanes[i]->stream));
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto t0 = std::chrono::steady_clock::now();
  *flag = 1;
  Times t;
  for (Lane* l : lanes) SPIRAL_CUDA(cudaEventSynchronize(l->stop));
  t.span_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  for (Lane* l : lanes) {
    float ms = 0;
    SPIRAL_CUDA(cudaEventElapsedTime(&ms, l->start, l->stop));
    t.lane_us.push_back(1e3 * ms);
  }
  return t;
}

}  // namespace spiral::gpucopy
