#include "transports/nccl/cuda/buffers_check.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>

namespace spiral::nccl::cuda {

namespace {

// Integers wrap as NCCL's own arithmetic does; floating types round to nearest.
template <typename T>
__device__ T from_double(double v) { return static_cast<T>(static_cast<long long>(v)); }
template <> __device__ float from_double<float>(double v) { return static_cast<float>(v); }
template <> __device__ double from_double<double>(double v) { return v; }
template <> __device__ __half from_double<__half>(double v) { return __double2half(v); }
template <> __device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) { return __double2bfloat16(v); }

template <typename T>
__device__ double to_double(T v) { return static_cast<double>(v); }
template <> __device__ double to_double<__half>(__half v) { return static_cast<double>(__half2float(v)); }
template <> __device__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}

template <typename T>
__global__ void fill_kernel(T* data, ReduceOp op, int rank, uint64_t count, uint32_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
    data[i] = from_double<T>(input_value(op, rank, i, seed));
}

template <typename T>
__global__ void check_kernel(const T* data, CheckShape shape, uint64_t count, bool integer, double tol,
                             unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    const Expected e = expected_value(shape, i, integer);
    if (!e.checked) continue;
    const double want = to_double(from_double<T>(e.value));
    const double got = to_double(data[i]);
    const double scale = want < 0 ? -want : want;
    const double diff = got > want ? got - want : want - got;
    if (!(diff <= tol * (scale > 1 ? scale : 1))) ++mine;  // NaN counts as wrong
  }
  if (mine) atomicAdd(wrong, mine);
}

unsigned grid_for(uint64_t count) {
  const uint64_t blocks = (count + 255) / 256;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks));
}

template <typename F>
void with_type(ElementType t, F&& f) {
  switch (t) {
    case ElementType::int8: f(int8_t{}); return;
    case ElementType::uint8: f(uint8_t{}); return;
    case ElementType::int32: f(int32_t{}); return;
    case ElementType::uint32: f(uint32_t{}); return;
    case ElementType::int64: f(int64_t{}); return;
    case ElementType::uint64: f(uint64_t{}); return;
    case ElementType::float16: f(__half{}); return;
    case ElementType::float32: f(float{}); return;
    case ElementType::float64: f(double{}); return;
    case ElementType::bfloat16: f(__nv_bfloat16{}); return;
  }
  throw std::invalid_argument("unknown element type");
}

bool is_integer(ElementType t) {
  return t != ElementType::float16 && t != ElementType::float32 && t != ElementType::float64 &&
         t != ElementType::bfloat16;
}

void check_launch(const char* what) {
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(rc));
}

}  // namespace

void fill_inputs(void* data, ElementType t, ReduceOp op, int rank, uint64_t count, uint32_t seed, cudaStream_t stream) {
  if (count == 0) return;
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), op, rank, count, seed);
  });
  check_launch("fill_inputs");
}

void count_wrong(const void* data, ElementType t, const CheckShape& shape, uint64_t count, unsigned long long* wrong,
                 cudaStream_t stream) {
  if (count == 0) return;
  const double tol = tolerance(t, shape.op);
  const bool integer = is_integer(t);
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    check_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<const T*>(data), shape, count, integer, tol, wrong);
  });
  check_launch("count_wrong");
}

}  // namespace spiral::nccl::cuda
