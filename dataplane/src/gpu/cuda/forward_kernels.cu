// The forward mode's kernels (l2fwd-nv's MAC swap on the GPU). One block per launch, one thread
// per frame (looping when a burst has more frames than threads).
#include "gpu/cuda/forward_kernels.hpp"

namespace spiral::gpu {

namespace {

__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Swaps bytes 0..5 (destination) and 6..11 (source) of a frame; then spins work_ns.
__device__ __forceinline__ void swap_frame(uint64_t address, uint32_t work_ns) {
  auto* f = reinterpret_cast<uint8_t*>(address);
  uint8_t mac[6];
#pragma unroll
  for (int i = 0; i < 6; ++i) mac[i] = f[i];
#pragma unroll
  for (int i = 0; i < 6; ++i) f[i] = f[6 + i];
#pragma unroll
  for (int i = 0; i < 6; ++i) f[6 + i] = mac[i];
  if (work_ns) {
    const uint64_t start = global_ns();
    while (global_ns() - start < work_ns) {
    }
  }
}

__device__ void swap_slot(const ForwardControl& c, uint32_t slot) {
  const uint64_t* frames = c.frames + uint64_t{slot} * c.burst;
  const uint32_t n = c.count[slot];
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) swap_frame(frames[i], c.work_ns);
}

// Thread 0 waits for the slot (or quit); the block learns which through shared memory.
__device__ bool wait_slot(const ForwardControl& c, uint32_t slot) {
  __shared__ int go;
  if (threadIdx.x == 0) {
    while (c.ready[slot] == 0 && *c.quit == 0) {
    }
    go = c.ready[slot] != 0;
    __threadfence_system();  // the frame addresses and count are read after the flag
  }
  __syncthreads();
  return go;
}

// Writes to the frames reach host memory before the TX core sees done.
__device__ void finish_slot(const ForwardControl& c, uint32_t slot) {
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    c.ready[slot] = 0;
    atomicAdd(c.bursts, 1ull);
    __threadfence_system();
    c.done[slot] = 1;
  }
}

__global__ void swap_burst(const uint64_t* frames, uint32_t count, uint32_t work_ns) {
  for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) swap_frame(frames[i], work_ns);
}

__global__ void persistent(ForwardControl c) {
  for (uint32_t slot = 0;; slot = slot + 1 == c.slots ? 0 : slot + 1) {
    if (!wait_slot(c, slot)) return;
    swap_slot(c, slot);
    finish_slot(c, slot);
  }
}

__global__ void wait_and_swap(ForwardControl c, uint32_t slot) {
  if (!wait_slot(c, slot)) return;
  swap_slot(c, slot);
  finish_slot(c, slot);
}

}  // namespace

uint32_t forward_threads(uint32_t burst) {
  const uint32_t warps = (burst + 31) / 32;
  return warps > 32 ? 1024 : warps * 32;
}

void launch_swap_burst(const uint64_t* frames, uint32_t count, uint32_t burst, uint32_t work_ns, cudaStream_t s) {
  swap_burst<<<1, forward_threads(burst), 0, s>>>(frames, count, work_ns);
}

void launch_persistent(const ForwardControl& c, cudaStream_t s) { persistent<<<1, forward_threads(c.burst), 0, s>>>(c); }

void launch_wait_and_swap(const ForwardControl& c, uint32_t slot, cudaStream_t s) {
  wait_and_swap<<<1, forward_threads(c.burst), 0, s>>>(c, slot);
}

}  // namespace spiral::gpu
