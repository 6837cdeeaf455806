#include "cpu_fft.hpp"

#include <cmath>
#include <numbers>
#include <thread>
#include <utility>

namespace spiral::gpu::test {

void fft_forward(std::complex<double>* x, size_t n) {
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit reversal
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double angle = -2.0 * std::numbers::pi / static_cast<double>(len);
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        // twiddles computed directly, not by recurrence, so the reference keeps double accuracy
        const std::complex<double> w = std::polar(1.0, angle * static_cast<double>(k));
        const std::complex<double> u = x[i + k], v = x[i + k + len / 2] * w;
        x[i + k] = u + v;
        x[i + k + len / 2] = u - v;
      }
    }
  }
}

std::vector<std::complex<double>> dft_forward(const std::vector<std::complex<double>>& x) {
  const size_t n = x.size();
  std::vector<std::complex<double>> out(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j)
      out[k] += x[j] * std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n));
  return out;
}

std::vector<double> gemm_reference(const std::vector<double>& a, const std::vector<double>& b, size_t n,
                                   unsigned threads) {
  std::vector<double> c(n * n, 0.0);
  auto columns = [&](size_t first, size_t last) {
    for (size_t j = first; j < last; ++j)      // column j of C
      for (size_t k = 0; k < n; ++k) {         // += A[:,k] * B[k,j]
        const double bkj = b[k + j * n];
        const double* ak = &a[k * n];
        double* cj = &c[j * n];
        for (size_t i = 0; i < n; ++i) cj[i] += ak[i] * bkj;
      }
  };
  std::vector<std::thread> pool;
  const size_t per = (n + threads - 1) / threads;
  for (size_t first = 0; first < n; first += per) pool.emplace_back(columns, first, std::min(n, first + per));
  for (auto& t : pool) t.join();
  return c;
}

std::vector<double> fft_reference(const std::vector<float>& in, uint32_t length, size_t batch) {
  std::vector<double> out(2 * size_t{length} * batch);
  std::vector<std::complex<double>> x(length);
  for (size_t b = 0; b < batch; ++b) {
    for (uint32_t i = 0; i < length; ++i) x[i] = {in[2 * (b * length + i)], in[2 * (b * length + i) + 1]};
    fft_forward(x.data(), length);
    for (uint32_t i = 0; i < length; ++i) {
      out[2 * (b * length + i)] = x[i].real();
      out[2 * (b * length + i) + 1] = x[i].imag();
    }
  }
  return out;
}

double rel_err(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

}  // namespace spiral::gpu::test
