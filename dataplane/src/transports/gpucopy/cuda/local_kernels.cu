#include "transports/gpucopy/cuda/local_kernels.hpp"

namespace spiral::gpucopy::kernels {

namespace {

constexpr int kThreads = 512;
constexpr int kUnroll = 4;  // independent loads in flight per thread

__global__ void read_vectors(const uint4* __restrict__ src, size_t n, unsigned long long* sink, bool record) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc{0, 0, 0, 0};
  for (; i + (kUnroll - 1) * threads < n; i += kUnroll * threads) {
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = src[i + k * threads];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      acc.x ^= v[k].x;
      acc.y ^= v[k].y;
      acc.z ^= v[k].z;
      acc.w ^= v[k].w;
    }
  }
  for (; i < n; i += threads) {
    const uint4 v = src[i];
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  const unsigned long long fold = (static_cast<unsigned long long>(acc.x ^ acc.z) << 32) | (acc.y ^ acc.w);
  if (record)
    atomicXor(sink, fold);
  else if (fold == 0x5a5a5a5a5a5a5a5aull)  // rare and harmless; the compiler must keep the loads
    sink[1] = fold;
}

__global__ void write_vectors(uint4* __restrict__ dst, size_t n, uint32_t value) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const uint4 v{value, value, value, value};
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) dst[i] = v;
}

__global__ void chase_pointers(void* const* start, uint64_t loads, void** end) {
  void* const* p = start;
  for (uint64_t i = 0; i < loads; ++i) p = static_cast<void* const*>(*p);
  *end = const_cast<void*>(static_cast<const void*>(p));
}

}  // namespace

cudaError_t read_only(const void* src, size_t bytes, int blocks, unsigned long long* sink, bool record,
                      cudaStream_t stream) {
  read_vectors<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(src), bytes / sizeof(uint4), sink, record);
  return cudaGetLastError();
}

cudaError_t write_only(void* dst, size_t bytes, uint32_t value, int blocks, cudaStream_t stream) {
  write_vectors<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(dst), bytes / sizeof(uint4), value);
  return cudaGetLastError();
}

cudaError_t chase(void* const* start, uint64_t loads, void** end, cudaStream_t stream) {
  chase_pointers<<<1, 1, 0, stream>>>(start, loads, end);
  return cudaGetLastError();
}

}  // namespace spiral::gpucopy::kernels
