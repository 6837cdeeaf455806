#pragma once
// Double-precision references for the GPU checks.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spiral::gpu::test {

// In-place forward radix-2 FFT (e^{-2 pi i jk/n}, cuFFT's CUFFT_FORWARD), n a power of two.
void fft_forward(std::complex<double>* x, size_t n);
// The O(n^2) definition, to check fft_forward itself.
std::vector<std::complex<double>> dft_forward(const std::vector<std::complex<double>>& x);
// The batched forward FFT of interleaved complex floats (cuFFT's C2C layout), transform by
// transform, in double.
std::vector<double> fft_reference(const std::vector<float>& in, uint32_t length, size_t batch);
// ||got - ref|| / ||ref||
double rel_err(const std::vector<float>& got, const std::vector<double>& ref);
// C = A * B, column-major n x n, in double, over `threads` threads.
std::vector<double> gemm_reference(const std::vector<double>& a, const std::vector<double>& b, size_t n,
                                   unsigned threads);

}  // namespace spiral::gpu::test
