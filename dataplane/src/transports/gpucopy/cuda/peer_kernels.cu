#include <cstdint>

#include "transports/gpucopy/cuda/peer_kernels.hpp"

namespace spiral::gpucopy::kernels {

namespace {

constexpr int kThreads = 512;
constexpr int kUnroll = 4;  // loads in flight per thread before the stores: hides a peer's latency

__global__ void copy_vectors(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t n) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * threads < n; i += kUnroll * threads) {
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = src[i + k * threads];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) dst[i + k * threads] = v[k];
  }
  for (; i < n; i += threads) dst[i] = src[i];
}

__global__ void copy_bytes(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src, size_t n) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) dst[i] = src[i];
}

// Bounded at about 1 s, far above the microseconds queuing takes: a host thread that blocks
// while queuing (a driver staging a copy without peer access may) costs that second, not a hang.
__global__ void wait_for(const volatile int* flag) {
  for (int waited_us = 0; *flag == 0 && waited_us < 1000000; ++waited_us) __nanosleep(1000);
}

}  // namespace

cudaError_t copy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream) {
  const bool aligned = (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) % sizeof(uint4) == 0;
  const size_t vectors = aligned ? bytes / sizeof(uint4) : 0;
  if (vectors > 0)
    copy_vectors<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), vectors);
  if (const size_t done = vectors * sizeof(uint4); done < bytes) {
    const int tail_blocks = vectors > 0 ? 1 : blocks;  // under 16 B, or a whole misaligned copy
    copy_bytes<<<tail_blocks, kThreads, 0, stream>>>(static_cast<unsigned char*>(dst) + done,
                                                     static_cast<const unsigned char*>(src) + done, bytes - done);
  }
  return cudaGetLastError();
}

cudaError_t hold(const volatile int* flag, cudaStream_t stream) {
  wait_for<<<1, 1, 0, stream>>>(flag);
  return cudaGetLastError();
}

}  // namespace spiral::gpucopy::kernels
