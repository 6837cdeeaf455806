// The double-precision references the GPU checks trust, checked against their definitions.
#include <gtest/gtest.h>

#include <random>

#include "cpu_fft.hpp"

namespace spiral::gpu::test {
namespace {

TEST(CpuReference, FftMatchesTheDft) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t n : {2u, 8u, 64u, 256u}) {
    std::vector<std::complex<double>> x(n);
    for (auto& v : x) v = {u(rng), u(rng)};
    auto want = dft_forward(x);
    fft_forward(x.data(), n);
    for (size_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(x[k] - want[k]), 0.0, 1e-12) << "n=" << n << " k=" << k;
  }
}

TEST(CpuReference, GemmIsColumnMajorAB) {
  // A = [[1,2],[3,4]], B = [[5,6],[7,8]] (row-major view) -> AB = [[19,22],[43,50]]
  std::vector<double> a = {1, 3, 2, 4}, b = {5, 7, 6, 8};
  auto c = gemm_reference(a, b, 2, 2);
  EXPECT_EQ(c, (std::vector<double>{19, 43, 22, 50}));
}

}  // namespace
}  // namespace spiral::gpu::test
