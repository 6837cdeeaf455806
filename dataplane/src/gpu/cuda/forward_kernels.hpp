#pragma once
// Kernels of the forward mode's GPU work (forward_work.cpp drives them): swap the source and
// destination MAC of each frame of a burst, in place, in host memory mapped into the GPU.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace spiral::gpu {

// One pipeline's control block, in mapped host memory (cudaHostAllocMapped): the RX core writes
// frames/count and raises ready[s]; the GPU clears ready[s] and raises done[s]; the TX core
// clears done[s]. quit ends the persistent kernel and graph nodes still waiting.
struct ForwardControl {
  uint64_t* frames;            // [slots][burst] frame addresses (device view)
  uint32_t* count;             // [slots]
  volatile uint32_t* ready;    // [slots]
  volatile uint32_t* done;     // [slots]
  volatile uint32_t* quit;     // one flag
  unsigned long long* bursts;  // bursts the GPU processed (persistent, graphs)
  uint32_t slots, burst, work_ns;
};

uint32_t forward_threads(uint32_t burst);  // threads of the one block each launch uses
// One burst: frames[0..count) (kernel mode; the host raised nothing, the launch is the signal).
void launch_swap_burst(const uint64_t* frames, uint32_t count, uint32_t burst, uint32_t work_ns, cudaStream_t s);
// The persistent kernel: slots in order, forever, until quit.
void launch_persistent(const ForwardControl& c, cudaStream_t s);
// A graph node: waits for ready[slot] (or quit), swaps, raises done[slot].
void launch_wait_and_swap(const ForwardControl& c, uint32_t slot, cudaStream_t s);

}  // namespace spiral::gpu
