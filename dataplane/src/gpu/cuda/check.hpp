#pragma once
// Every CUDA, cuBLAS and cuFFT call is checked; a failure throws CudaError naming the call,
// its status and where it was made. The receive threads turn it into the run's failure.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <stdexcept>
#include <string>

namespace spiral::gpu {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda(const char* call, const char* status, const char* file, int line);
const char* cublas_status_name(cublasStatus_t s);
const char* cufft_result_name(cufftResult r);

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda(call, cudaGetErrorString(e), file, line);
}
inline void check(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) throw_cuda(call, cublas_status_name(s), file, line);
}
inline void check(cufftResult r, const char* call, const char* file, int line) {
  if (r != CUFFT_SUCCESS) throw_cuda(call, cufft_result_name(r), file, line);
}

}  // namespace spiral::gpu

#define SPIRAL_CUDA(call) ::spiral::gpu::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch errors show at once, execution errors at the next sync.
#define SPIRAL_CUDA_LAUNCHED() ::spiral::gpu::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
