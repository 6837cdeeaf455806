#pragma once
// What one GPU does to memory by itself (nvbandwidth's latency and local SM testcases): a
// pointer chase that times one dependent load after another (latency, ns per load) on the GPU's
// own memory, on pinned host memory, or on a peer GPU's memory; and SM kernels that only read or
// only write the GPU's own memory (GB/s). Each figure is measured `repeats` times: the median is
// the figure, the coefficient of variation across repeats its run-to-run spread. Plain structs;
// the CUDA engine is cuda/local_engine.hpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace spiral::gpucopy {

enum class LocalTest { sm_read, sm_write };
// device: the GPU's own memory; host: pinned host memory read over the host link
// (nvbandwidth's host_device_latency_sm); peer: each other GPU's memory over peer access
// (device_to_device_latency_sm).
enum class LatencyTarget { device, host, peer };

std::string_view name(LocalTest t);      // "sm_read", "sm_write"
std::string_view name(LatencyTarget t);  // "device", "host", "peer"
LocalTest local_test_named(std::string_view n);  // throws BadInput naming the known ones
LatencyTarget latency_target_named(std::string_view n);

struct LocalSpec {
  std::vector<LocalTest> tests;        // empty: no local SM tests (the default)
  std::vector<LatencyTarget> latency;  // empty: no latency tests (the default)
  uint64_t bytes = 512ull << 20;       // per SM read or write pass (nvbandwidth's default buffer)
  int repeats = 1;                     // each figure this many times; >= 2 gives a spread
};

// nvbandwidth's chase: a 2 MiB buffer of pointers, each pointing 16 slots (128 B, a cache line)
// further, wrapping; 1M dependent loads. Kept equal so that the figures compare.
constexpr uint64_t kChaseBytes = 2ull << 20;
constexpr uint64_t kChaseStride = 16;
constexpr uint64_t kChaseLoads = 1000000;
// The slot each slot points to, for n slots (the cycle the chase follows).
uint64_t chase_next(uint64_t slot, uint64_t n);

struct LocalFigure {
  int device = 0;
  std::string test;  // "sm_read", "sm_write", "latency_device", "latency_host", "latency_peer"
  int peer = -1;     // latency_peer: the GPU whose memory is read; else -1
  double value = 0;  // median over repeats: GB/s, or ns per load
  double cv_percent = 0;  // stddev / mean over repeats, in %; 0 with one repeat
  int repeats = 1;
  bool latency() const { return test.rfind("latency", 0) == 0; }
};

// The median and the coefficient of variation (sample stddev / mean, %) of repeated figures.
double median(std::vector<double> v);
double cv_percent(const std::vector<double>& v);
LocalFigure figure_of(int device, std::string test, int peer, const std::vector<double>& samples);

// The summary's compact form: [[device, test, peer, value x1000, cv milli-percent, repeats], ...]
// (value in MB/s for GB/s figures, in ps for ns ones: integers, as the rest of the part).
nlohmann::json local_part(const std::vector<LocalFigure>& figures);

}  // namespace spiral::gpucopy
