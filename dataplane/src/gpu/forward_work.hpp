#pragma once
// GPU work on bursts of forwarded frames (l2fwd-nv's workloads 2, 3 and 4): swap each frame's
// source and destination MAC in place, in host memory mapped into the GPU, optionally spinning a
// forced time per frame. One BurstWork per forwarding pipeline; the pipeline's RX core writes a
// burst's frame addresses into a slot and submits it, its TX core polls done() and sends.
// CUDA-free interface; the kernels are in gpu/cuda/forward_kernels.cu, and a build without CUDA
// refuses (forward_work_stub.cpp).
#include <cstdint>
#include <memory>
#include <string>

namespace spiral::gpu {

enum class BurstWorkMode {
  kernel,      // one kernel launch per burst; done = its event completed
  persistent,  // one kernel per pipeline for the whole run, polling mapped "ready" flags
  graphs,      // one CUDA graph per group of 8 slots, launched ahead; each node waits for its slot
};

struct BurstWorkConfig {
  BurstWorkMode mode = BurstWorkMode::kernel;
  uint32_t slots = 64;    // bursts in flight per pipeline (a multiple of 8)
  uint32_t burst = 64;    // frames per burst at most
  uint32_t work_ns = 0;   // forced time per frame, spun on the GPU's global timer
};

class BurstWork {
 public:
  virtual ~BurstWork() = default;
  // Where the RX core writes slot s's frame addresses as the GPU sees them (mapped memory).
  virtual uint64_t* frames(uint32_t slot) = 0;
  // RX core: slot s holds `count` frames; start its work (graphs: the group's graph was launched
  // when its first slot was taken, see take()).
  virtual void submit(uint32_t slot, uint32_t count) = 0;
  // RX core, before filling slot s (graphs: launches the next group's graph at a group's start).
  virtual void take(uint32_t slot) { (void)slot; }
  // TX core: slot s's work completed (the frames are swapped); then release(s) once sent.
  virtual bool done(uint32_t slot) = 0;
  virtual void release(uint32_t slot) { (void)slot; }
  // Ends persistent and graph kernels (a quit flag they poll) and waits for the stream, at the
  // end of the run and on failure; idempotent. Returns false when the GPU did not finish within
  // the timeout (the kernel is then left to the process's exit).
  virtual bool stop() = 0;
  // What the GPU did: bursts and frames processed (read back after stop()).
  virtual uint64_t bursts_done() const = 0;
};

// Throws BadInput when there is no usable GPU (or the build has no CUDA), RunFailure on CUDA
// errors. `device_of(host)` maps the frame memory: the caller passes device addresses.
std::unique_ptr<BurstWork> make_burst_work(const BurstWorkConfig& config);

// Throws BadInput "<what> needs a GPU: <why>" unless a usable GPU is there (or the build has no
// CUDA); run before anything else of the cell is set up, so the refusal is the run's one line.
void require_burst_work_gpu(const std::string& what);

// The CUDA device's PCI bus id for NVML ("" where unknown or without CUDA).
std::string burst_work_device_bus_id();

}  // namespace spiral::gpu
