#pragma once
// (C++17: compiled by nvcc)
// The compute run on each assembled window. Each workload owns its handles, plan and buffers,
// is bound to one stream, and enqueues its work without synchronising.
//   fft        batched 1-D C2C forward FFTs of fft_length points covering the window (cuFFT),
//              out of place so the window stays intact
//   gemm       C = A * B, n x n FP32 (cublasSgemm, FP32 math), A = the window's first n*n floats
//   gemm_fp16  the same with A and B in FP16 and FP32 accumulation on the tensor cores
//              (cublasGemmEx); A is converted from the window first
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstddef>
#include <memory>
#include <vector>

namespace spiral::gpu {

enum class WorkloadKind { none, fft, gemm, gemm_fp16 };
const char* workload_name(WorkloadKind k);

struct WorkloadShape {
  WorkloadKind kind = WorkloadKind::none;
  uint32_t gemm_n = 1024;
  uint32_t fft_length = 1024;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Device bytes the window must have (zero-padded beyond the assembled data).
  virtual uint64_t input_bytes() const = 0;
  // The workload's own output buffer (device): FFT spectra or C, output().bytes long.
  struct Output {
    std::byte* data;
    size_t bytes;
  };
  virtual Output output() = 0;
  // Enqueues one call on the window, writing its result to `out` (output().bytes, device). The
  // pipeline gives each window in flight its own, so a window's result outlives later launches.
  virtual void run_into(const std::byte* window, std::byte* out) = 0;
  // Enqueues one call into the workload's own output buffer.
  void run(const std::byte* window) { run_into(window, output().data); }
  // GEMMs: replaces B with n*n floats from the host (column-major); others ignore it.
  virtual void set_b(const float* /*host*/) {}
  // FLOPs of one call (the usual 5 N log2 N per FFT, 2 n^3 per GEMM).
  virtual double flops() const = 0;
};

// The B every GEMM workload starts with (n*n floats, column-major, fixed seed): a check can
// recompute C = A * B on the CPU from the window alone.
std::vector<float> gemm_b_matrix(uint32_t n);

// window_bytes: the assembled bytes one call covers. Returns nullptr for none.
std::unique_ptr<Workload> make_workload(const WorkloadShape& shape, uint64_t window_bytes, cudaStream_t stream);

}  // namespace spiral::gpu
