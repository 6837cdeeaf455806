#include "gpu/cuda/workloads.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gpu/cuda/check.hpp"
#include "gpu/cuda/kernels.hpp"
#include "gpu/cuda/resources.hpp"

namespace spiral::gpu {

const char* workload_name(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::none: return "none";
    case WorkloadKind::fft: return "fft";
    case WorkloadKind::gemm: return "gemm";
    case WorkloadKind::gemm_fp16: return "gemm_fp16";
  }
  return "?";
}

namespace {

class FftWorkload final : public Workload {
 public:
  FftWorkload(uint32_t length, uint64_t window_bytes, cudaStream_t stream) : length_(length) {
    const uint64_t per_transform = uint64_t{length} * sizeof(cufftComplex);
    batch_ = static_cast<int>(std::max<uint64_t>(1, window_bytes / per_transform));
    bytes_ = per_transform * static_cast<uint64_t>(batch_);
    cufftHandle plan;
    SPIRAL_CUDA(cufftCreate(&plan));
    plan_ = CufftPlan(plan);
    int n[1] = {static_cast<int>(length)};
    size_t work = 0;
    SPIRAL_CUDA(cufftMakePlanMany(plan, 1, n, nullptr, 1, static_cast<int>(length), nullptr, 1,
                                  static_cast<int>(length), CUFFT_C2C, batch_, &work));
    SPIRAL_CUDA(cufftSetStream(plan, stream));
    out_ = device_buffer(bytes_);
  }
  uint64_t input_bytes() const override { return bytes_; }
  void run_into(const std::byte* window, std::byte* out) override {
    // cuFFT takes a non-const input; an out-of-place C2C leaves it unchanged.
    auto* in = reinterpret_cast<cufftComplex*>(const_cast<std::byte*>(window));
    SPIRAL_CUDA(cufftExecC2C(plan_.get(), in, reinterpret_cast<cufftComplex*>(out), CUFFT_FORWARD));
  }
  Output output() override { return {out_.data(), out_.size()}; }
  double flops() const override { return 5.0 * length_ * std::log2(double(length_)) * batch_; }

 private:
  uint32_t length_;
  int batch_ = 1;
  uint64_t bytes_ = 0;
  CufftPlan plan_;
  DeviceBuffer out_;
};

std::vector<float> random_matrix(uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> m(size_t{n} * n);
  for (float& v : m) v = u(rng);
  return m;
}

class GemmBase : public Workload {
 public:
  GemmBase(uint32_t n, cudaStream_t stream) : n_(n), stream_(stream), blas_(make_cublas()) {
    SPIRAL_CUDA(cublasSetStream(blas_.get(), stream));
    // Our own workspace (after cublasSetStream, which resets it to the library's pool): cuBLAS
    // then allocates nothing in a call, so the call can be captured into a CUDA graph
    // (gpu/cuda/workload_graph.hpp). 32 MiB is what cuBLAS asks for on Hopper.
    workspace_ = device_buffer(kWorkspaceBytes);
    SPIRAL_CUDA(cublasSetWorkspace(blas_.get(), workspace_.data(), workspace_.size()));
    c_ = device_buffer(elements() * sizeof(float));
  }
  uint64_t input_bytes() const override { return elements() * sizeof(float); }
  Output output() override { return {c_.data(), c_.size()}; }
  double flops() const override { return 2.0 * n_ * double(n_) * n_; }

 protected:
  size_t elements() const { return size_t{n_} * n_; }
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;
  uint32_t n_;
  cudaStream_t stream_;
  DeviceBuffer workspace_;  // declared before blas_: freed after the handle is destroyed
  CublasHandle blas_;
  DeviceBuffer c_;
};

class SgemmWorkload final : public GemmBase {
 public:
  SgemmWorkload(uint32_t n, cudaStream_t stream) : GemmBase(n, stream) {
    // FP32 arithmetic: no TF32 tensor-core shortcut, so the result is an FP32 GEMM's
    SPIRAL_CUDA(cublasSetMathMode(blas_.get(), CUBLAS_DEFAULT_MATH));
    b_ = device_buffer(elements() * sizeof(float));
    set_b(gemm_b_matrix(n).data());
  }
  void set_b(const float* host) override {
    SPIRAL_CUDA(cudaMemcpyAsync(b_.data(), host, elements() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    SPIRAL_CUDA(cudaStreamSynchronize(stream_));
  }
  void run_into(const std::byte* window, std::byte* out) override {
    const float alpha = 1.f, beta = 0.f;
    const int n = static_cast<int>(n_);
    SPIRAL_CUDA(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                            reinterpret_cast<const float*>(window), n, b_.as<float>(), n, &beta,
                            reinterpret_cast<float*>(out), n));
  }

 private:
  DeviceBuffer b_;
};

class HgemmWorkload final : public GemmBase {
 public:
  HgemmWorkload(uint32_t n, cudaStream_t stream) : GemmBase(n, stream) {
    a16_ = device_buffer(elements() * sizeof(__half));
    b16_ = device_buffer(elements() * sizeof(__half));
    staging_ = device_buffer(elements() * sizeof(float));
    set_b(gemm_b_matrix(n).data());
  }
  void set_b(const float* host) override {
    SPIRAL_CUDA(cudaMemcpyAsync(staging_.data(), host, elements() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    launch_float_to_half(staging_.as<float>(), b16_.as<__half>(), elements(), stream_);
    SPIRAL_CUDA(cudaStreamSynchronize(stream_));
  }
  void run_into(const std::byte* window, std::byte* out) override {
    // a16_ is reused by the next call: safe, every call of a workload runs on its one stream
    launch_float_to_half(reinterpret_cast<const float*>(window), a16_.as<__half>(), elements(), stream_);
    const float alpha = 1.f, beta = 0.f;
    const int n = static_cast<int>(n_);
    SPIRAL_CUDA(cublasGemmEx(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a16_.data(), CUDA_R_16F, n,
                             b16_.data(), CUDA_R_16F, n, &beta, out, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT));
  }

 private:
  DeviceBuffer a16_, b16_, staging_;
};

}  // namespace

std::vector<float> gemm_b_matrix(uint32_t n) { return random_matrix(n, 1); }

std::unique_ptr<Workload> make_workload(const WorkloadShape& shape, uint64_t window_bytes, cudaStream_t stream) {
  switch (shape.kind) {
    case WorkloadKind::none: return nullptr;
    case WorkloadKind::fft: return std::make_unique<FftWorkload>(shape.fft_length, window_bytes, stream);
    case WorkloadKind::gemm: return std::make_unique<SgemmWorkload>(shape.gemm_n, stream);
    case WorkloadKind::gemm_fp16: return std::make_unique<HgemmWorkload>(shape.gemm_n, stream);
  }
  return nullptr;
}

}  // namespace spiral::gpu
