#include "gpu/cuda/check.hpp"
#include "gpu/cuda/ring_drain.hpp"

namespace spiral::gpu {
namespace {

// Reads the ring's bytes around every cache: the same host address carries another chunk on
// the slot's next use, and neither L1 nor L2 may hand back the old one.
__device__ void copy_part(std::byte* dst, const std::byte* src, uint32_t bytes) {
  uint32_t done = 0;
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
    auto* o = reinterpret_cast<uint4*>(dst);
    const auto* i = reinterpret_cast<const uint4*>(src);
    const uint32_t words = bytes / 16;
    constexpr uint32_t kUnroll = 4;  // four loads in flight per thread before their stores
    uint32_t k = threadIdx.x;
    for (; k + (kUnroll - 1) * blockDim.x < words; k += kUnroll * blockDim.x) {
      uint4 v[kUnroll];
#pragma unroll
      for (uint32_t u = 0; u < kUnroll; ++u) v[u] = __ldcv(i + k + u * blockDim.x);
#pragma unroll
      for (uint32_t u = 0; u < kUnroll; ++u) o[k + u * blockDim.x] = v[u];
    }
    for (; k < words; k += blockDim.x) o[k] = __ldcv(i + k);
    done = words * 16;
  }
  const auto* s = reinterpret_cast<const volatile unsigned char*>(src);
  auto* d = reinterpret_cast<unsigned char*>(dst);
  for (uint32_t k = done + threadIdx.x; k < bytes; k += blockDim.x) d[k] = s[k];
}

__global__ void ring_drain(RingDrainArgs a) {
  __shared__ uint64_t dst;
  __shared__ uint32_t bytes;
  __shared__ bool stop;
  volatile RingControl* ctl = a.control;
  uint64_t signal = 0;  // thread 0's: the chunk's window flag, read with its descriptor
  for (uint32_t c = 0;; ++c) {
    const uint32_t slot = c % a.slots;
    if (threadIdx.x == 0) {
      stop = false;
      while (ctl->chunk[slot].seq != c + 1) {
        if (ctl->stop) {  // the host posts before it stops: look once more, then leave
          __threadfence_system();
          stop = ctl->chunk[slot].seq != c + 1;
          break;
        }
        __nanosleep(200);
      }
      __threadfence_system();  // what the host wrote before seq is read after it
      dst = ctl->chunk[slot].dst;
      bytes = ctl->chunk[slot].bytes;
      signal = ctl->chunk[slot].signal;
    }
    __syncthreads();
    if (stop) return;
    // this block's share: a contiguous, 16-byte aligned part of the chunk
    const uint32_t per = (bytes / gridDim.x + 15) / 16 * 16;
    const uint32_t from = min(bytes, blockIdx.x * per), to = min(bytes, from + per);
    copy_part(reinterpret_cast<std::byte*>(dst) + from, a.ring + uint64_t{slot} * a.chunk_bytes + from, to - from);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      // the last block of this chunk publishes it; chunks complete in order because every block
      // finishes its part of chunk c before it starts on c + 1
      const uint32_t use = c / a.slots;
      if (atomicAdd(a.arrivals + slot, 1u) == (use + 1) * gridDim.x - 1) {
        __threadfence_system();
        // the window's last chunk: every chunk of it is in (chunks complete in order)
        if (signal) *reinterpret_cast<volatile uint32_t*>(signal) = 1u;
        ctl->done = c + 1;
        __threadfence_system();  // visible before this block's next arrival, so `done` never goes back
      }
    }
  }
}

__global__ void window_wait(uint32_t* ready) {
  volatile uint32_t* flag = ready;
  while (*flag == 0u) __nanosleep(256);
  *flag = 0u;
  __threadfence();  // cleared before the drain can be asked to set it for the slot's next window
}

__global__ void window_done(uint32_t* done_flag) {
  __threadfence_system();
  *reinterpret_cast<volatile uint32_t*>(done_flag) = 1u;
  __threadfence_system();
}

}  // namespace

void launch_window_wait(uint32_t* ready, cudaStream_t stream) {
  window_wait<<<1, 1, 0, stream>>>(ready);
  SPIRAL_CUDA(cudaGetLastError());
}

void launch_window_done(uint32_t* done_flag, cudaStream_t stream) {
  window_done<<<1, 1, 0, stream>>>(done_flag);
  SPIRAL_CUDA(cudaGetLastError());
}

void launch_ring_drain(const RingDrainArgs& args, uint32_t blocks, uint32_t threads, cudaStream_t stream) {
  ring_drain<<<blocks, threads, 0, stream>>>(args);
  SPIRAL_CUDA(cudaGetLastError());
}

}  // namespace spiral::gpu
