#include "gpu/cuda/check.hpp"

#include <cstring>

namespace spiral::gpu {

void throw_cuda(const char* call, const char* status, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  throw CudaError(std::string(call) + ": " + status + " (" + (base ? base + 1 : file) + ":" + std::to_string(line) + ")");
}

const char* cublas_status_name(cublasStatus_t s) { return cublasGetStatusName(s); }

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT result (other)";
  }
}

}  // namespace spiral::gpu
