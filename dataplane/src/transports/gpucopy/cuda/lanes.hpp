#pragma once
// Copies on several GPUs' streams released at one instant and timed per stream: what the peer
// matrices and the host aggregate measure with.
//   Lane  one GPU's stream with start and stop events (start recorded once the gate opens)
//   Gate  a flag in pinned host memory (the memory provider's, registered with CUDA) that a
//         one-thread kernel on each lane spins on; the host sets it once every lane's copies are
//         queued, so none starts before the others are ready and queuing costs no time
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <vector>

#include "memory/region.hpp"

namespace spiral::gpucopy {

// Makes `device` current for its lifetime, then puts the caller's back: the memory provider
// allocates device memory, and CUDA creates streams and launches kernels, on the current device.
class OnDevice {
 public:
  explicit OnDevice(int device);
  ~OnDevice();
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
};

struct Lane {
  explicit Lane(int device);
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
  int device;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

class Gate {
 public:
  Gate();
  // The lanes' times in us (start to stop, CUDA events) and the host's span from opening the gate
  // to the last lane's end. enqueue(i) queues lane i's copies; lane i's device is current.
  struct Times {
    std::vector<double> lane_us;
    double span_us = 0;
  };
  Times run(const std::vector<Lane*>& lanes, const std::function<void(size_t)>& enqueue);

 private:
  std::unique_ptr<memory::Region> flag_;
};

}  // namespace spiral::gpucopy
