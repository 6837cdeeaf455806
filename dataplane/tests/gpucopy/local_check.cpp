// On a GPU: the local tests measure what they say. The SM read pass loads every 16-byte vector
// of the buffer (the XOR of all it loaded equals the host's XOR of the same data; a buffer with
// one vector changed gives another fold, the negative control); the write pass stores its value
// into every word; a chase over device memory and one over pinned host memory return per-load
// times in a plausible range, host above device; measure_local, as the kind runs it, gives each
// figure with its repeats and a spread. Exit 0 passed, 1 a failure, 77 no GPU (ctest: Skipped).
// Run on a GPU: ctest -L device -R gpucopy.local_check (hack/bench/nvbandwidth-side-run.sh).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gpu/cuda/check.hpp"
#include "memory/region.hpp"
#include "transports/gpucopy/cuda/local_engine.hpp"
#include "support/check_report.hpp"

using namespace spiral;
using namespace spiral::gpucopy;

namespace {

using spiral::testing::failures;
using spiral::testing::report;

constexpr uint64_t kBytes = (8ull << 20) + 48;  // not a whole number of blocks x threads x unroll

uint32_t word(uint64_t i) { return static_cast<uint32_t>(i * 2654435761u ^ (i >> 7)); }

unsigned long long host_fold(const std::vector<uint32_t>& w) {
  uint32_t x = 0, y = 0, z = 0, v = 0;
  for (size_t i = 0; i + 3 < w.size(); i += 4) {
    x ^= w[i];
    y ^= w[i + 1];
    z ^= w[i + 2];
    v ^= w[i + 3];
  }
  return (static_cast<unsigned long long>(x ^ z) << 32) | (y ^ v);
}

void check_passes(int device) {
  std::vector<uint32_t> words(kBytes / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = word(i);
  auto buf = memory::allocate({BufferMemory::device, kBytes, "local check buffer"});
  SPIRAL_CUDA(cudaMemcpy(buf->device_pointer(), words.data(), kBytes, cudaMemcpyHostToDevice));
  const unsigned long long want = host_fold(words);
  report(read_fold(device, buf->device_pointer(), kBytes) == want, "SM read pass loads every vector once");
  words[words.size() - 1] ^= 1;  // the last vector, which only the tail loop reaches
  SPIRAL_CUDA(cudaMemcpy(buf->device_pointer(), words.data(), kBytes, cudaMemcpyHostToDevice));
  report(read_fold(device, buf->device_pointer(), kBytes) != want, "negative control: a changed vector changes the fold");

  SPIRAL_CUDA(cudaMemset(buf->device_pointer(), 0, kBytes));
  write_pass(device, buf->device_pointer(), kBytes, 0xdeadbeefu);
  std::vector<uint32_t> back(kBytes / 4);
  SPIRAL_CUDA(cudaMemcpy(back.data(), buf->device_pointer(), kBytes, cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (uint32_t w : back) wrong += w != 0xdeadbeefu;
  report(wrong == 0, "SM write pass stores every word (" + std::to_string(wrong) + " wrong)");
}

void check_latency(int device) {
  auto dev = memory::allocate({BufferMemory::device, kChaseBytes, "local check chase"});
  lay_chase(dev->device_pointer(), dev->device_pointer(), true);
  auto host = memory::allocate({BufferMemory::host_pinned, kChaseBytes, "local check chase (host)", memory::kRegisterCuda});
  lay_chase(host->data(), host->device_pointer(), false);
  const double d = chase_ns(device, dev->device_pointer(), 100000), h = chase_ns(device, host->device_pointer(), 100000);
  std::printf("     device %.1f ns, host %.1f ns per load\n", d, h);
  report(d > 10 && d < 5000, "device memory chase in 10 ns .. 5 us per load");
  report(h > d && h < 50000, "host memory chase above device's, under 50 us per load");
}

void check_kind_path(int device) {
  CopySpec spec;
  spec.local.tests = {LocalTest::sm_read, LocalTest::sm_write};
  spec.local.latency = {LatencyTarget::device, LatencyTarget::host, LatencyTarget::peer};
  spec.local.bytes = 64ull << 20;
  spec.local.repeats = 3;
  spec.iterations = 5;
  const LocalResult r = measure_local(spec, {device});
  report(r.figures.size() == 4, "one GPU: sm_read, sm_write, latency_device, latency_host (" +
                                    std::to_string(r.figures.size()) + " figures)");
  report(r.note == "one GPU: no peer latency", "the note says why peer latency is missing: \"" + r.note + "\"");
  for (const auto& f : r.figures) {
    std::printf("     %s %.2f %s, cv %.2f %% over %d\n", f.test.c_str(), f.value, f.latency() ? "ns" : "GB/s",
                f.cv_percent, f.repeats);
    report(f.value > 0 && f.repeats == 3 && f.cv_percent >= 0 && f.cv_percent < 50, f.test + " measured 3 times");
  }
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    std::printf("SKIP no GPU: run on a GPU machine (ctest -L device -R gpucopy.local_check)\n");
    return 77;
  }
  try {
    SPIRAL_CUDA(cudaSetDevice(0));
    check_passes(0);
    check_latency(0);
    check_kind_path(0);
  } catch (const std::exception& e) {
    report(false, std::string("error: ") + e.what());
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
