#include <algorithm>

#include "gpu/cuda/check.hpp"
#include "gpu/cuda/kernels.hpp"

namespace spiral::gpu {
namespace {

constexpr int kThreads = 256;

// Copies `bytes` with the widest access both ends' alignment allows, the tail (under 16 bytes)
// byte by byte; threads of a block stride. Over PCIe (datagrams read in place from mapped host
// memory) the width matters several times over: the raw transport aligns its payloads to 16.
__device__ void copy_bytes(std::byte* dst, const std::byte* src, uint64_t bytes) {
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  uint64_t done = 0;
  if (((d | s) & 15) == 0) {
    auto* o = reinterpret_cast<uint4*>(dst);
    const auto* i = reinterpret_cast<const uint4*>(src);
    for (uint64_t k = threadIdx.x; k < bytes / 16; k += blockDim.x) o[k] = i[k];
    done = bytes / 16 * 16;
  } else if (((d | s) & 7) == 0) {
    auto* o = reinterpret_cast<uint64_t*>(dst);
    const auto* i = reinterpret_cast<const uint64_t*>(src);
    for (uint64_t k = threadIdx.x; k < bytes / 8; k += blockDim.x) o[k] = i[k];
    done = bytes / 8 * 8;
  }
  for (uint64_t k = done + threadIdx.x; k < bytes; k += blockDim.x) dst[k] = src[k];
}

__device__ void zero_bytes(std::byte* dst, uint64_t bytes) {
  if (((reinterpret_cast<uintptr_t>(dst) | bytes) & 7) == 0) {
    auto* o = reinterpret_cast<uint64_t*>(dst);
    for (uint64_t k = threadIdx.x; k < bytes / 8; k += blockDim.x) o[k] = 0;
  } else {
    for (uint64_t k = threadIdx.x; k < bytes; k += blockDim.x) dst[k] = std::byte{0};
  }
}

__device__ uint64_t load_seq(const std::byte* at) {
  uint64_t v = 0;
#pragma unroll
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(at[i]);
  return v;
}

__global__ void claim_slots(ReorderArgs a) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.count; i += gridDim.x * blockDim.x) {
    const uint64_t seq = load_seq(a.packets + a.offsets[i] + a.seq_offset);
    if (seq >= a.base && seq - a.base < a.slots) atomicMin(&a.owner[seq - a.base], i);
  }
}

__global__ void fill_slots(ReorderArgs a) {
  __shared__ uint32_t owner;
  for (uint32_t slot = blockIdx.x; slot < a.slots; slot += gridDim.x) {
    if (threadIdx.x == 0) {
      owner = a.owner[slot];
      a.owner[slot] = kNoOwner;  // ready for the next window
    }
    __syncthreads();
    std::byte* dst = a.window + uint64_t{slot} * a.slot_bytes;
    if (owner == kNoOwner)
      zero_bytes(dst, a.slot_bytes);
    else
      copy_bytes(dst, a.packets + a.offsets[owner] + a.header_bytes, a.slot_bytes);
    __syncthreads();  // `owner` is rewritten for the next slot
  }
}

__global__ void gather_segments(const GatherSegment* segments, uint32_t count, std::byte* window, uint64_t chunk) {
  for (uint32_t s = blockIdx.y; s < count; s += gridDim.y) {
    const GatherSegment seg = segments[s];
    for (uint64_t start = blockIdx.x * chunk; start < seg.bytes; start += uint64_t{gridDim.x} * chunk)
      copy_bytes(window + seg.dst_offset + start, seg.src + start, seg.bytes - start < chunk ? seg.bytes - start : chunk);
  }
}

__global__ void float_to_half(const float* in, __half* out, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    out[i] = __float2half_rn(in[i]);
}

unsigned blocks_for(uint64_t items, uint64_t per_block, unsigned cap) {
  return static_cast<unsigned>(std::clamp<uint64_t>((items + per_block - 1) / per_block, 1, cap));
}

}  // namespace

void launch_reorder(const ReorderArgs& args, cudaStream_t stream) {
  if (args.count) {
    claim_slots<<<blocks_for(args.count, kThreads, 1024), kThreads, 0, stream>>>(args);
    SPIRAL_CUDA_LAUNCHED();
  }
  fill_slots<<<blocks_for(args.slots, 1, 65535), kThreads, 0, stream>>>(args);
  SPIRAL_CUDA_LAUNCHED();
}

void launch_gather(const GatherSegment* segments, uint32_t count, uint64_t largest_bytes, std::byte* window,
                   cudaStream_t stream) {
  if (!count) return;
  constexpr uint64_t kChunk = 64 * 1024;  // bytes per block: big enough to stream, small enough to spread
  const dim3 grid(blocks_for(largest_bytes, kChunk, 4096), std::min<uint32_t>(count, 65535));
  gather_segments<<<grid, kThreads, 0, stream>>>(segments, count, window, kChunk);
  SPIRAL_CUDA_LAUNCHED();
}

void launch_float_to_half(const float* in, __half* out, size_t n, cudaStream_t stream) {
  float_to_half<<<blocks_for(n, kThreads * 8, 4096), kThreads, 0, stream>>>(in, out, n);
  SPIRAL_CUDA_LAUNCHED();
}

}  // namespace spiral::gpu
