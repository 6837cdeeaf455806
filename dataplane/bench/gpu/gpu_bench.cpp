// spiral-gpu-bench: the GPU side of the receive path, without a network (docs/benchmarks/gpu.md).
//   1. ceiling   pinned (and pageable) host->device copy bandwidth per transfer size
//   2. calls     one workload call and one reorder, timed alone (median of CUDA event timings)
//   3. ingest    the pipeline fed from pinned host memory as fast as it takes windows, per
//                assembly (gather: TCP-like; reorder: UDP-like 8000 B datagrams), workload and
//                window size: Gb/s, ratio to the ceiling of a copy of the same size, GPU
//                utilisation, stalls
//   4. knobs     max_in_flight and sync_interval at small windows (FP32 GEMM; reorder)
// Prints Markdown tables; --json FILE also writes one JSON object per measurement.
// Exit 0 when it ran (the targets are reported, not enforced), 77 without a GPU, 1 on error.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "gpu/cuda/device.hpp"
#include "gpu/cuda/kernels.hpp"
#include "gpu/cuda/pipeline.hpp"
#include "gpu/cuda/resources.hpp"
#include "gpu/cuda/workloads.hpp"
#include "gpu/nvml_sampler.hpp"

using namespace spiral::gpu;
using Clock = std::chrono::steady_clock;

namespace {

double cell_seconds = 1.0;
std::ofstream json_out;
std::mt19937_64 rng(12345);

void emit(nlohmann::json j) {
  if (json_out) json_out << j.dump() << "\n";
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void fill_random(std::byte* p, size_t bytes) {
  // random floats in [-1, 1): realistic operands (never zeros, never NaN patterns)
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  size_t i = 0;
  for (; i + 4 <= bytes; i += 4) {
    float f = u(rng);
    std::memcpy(p + i, &f, 4);
  }
  for (; i < bytes; ++i) p[i] = std::byte(rng());
}

std::string size_name(uint64_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%" PRIu64 " MiB", b >> 20);
  else if (b >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(b) / (1u << 20));
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64 " KiB", b >> 10);
  return buf;
}

// ---- 1. ceiling ---------------------------------------------------------------------------

double copy_gbytes_per_s(void* dst, const void* src, uint64_t bytes) {
  Stream s = make_stream();
  Event a = make_event(true), b = make_event(true);
  for (int i = 0; i < 3; ++i) SPIRAL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.get()));
  SPIRAL_CUDA(cudaStreamSynchronize(s.get()));
  const int reps = static_cast<int>(std::clamp<uint64_t>((4ull << 30) / bytes, 8, 2000));  // ~4 GiB per size
  SPIRAL_CUDA(cudaEventRecord(a.get(), s.get()));
  for (int i = 0; i < reps; ++i) SPIRAL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.get()));
  SPIRAL_CUDA(cudaEventRecord(b.get(), s.get()));
  SPIRAL_CUDA(cudaEventSynchronize(b.get()));
  float ms = 0;
  SPIRAL_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return double(bytes) * reps / (ms * 1e-3) / 1e9;
}

std::map<uint64_t, double> ceiling;  // bytes -> pinned H2D GB/s

void measure_ceiling() {
  const std::vector<uint64_t> sizes = {512u << 10, 1u << 20, 2u << 20, 4u << 20, 8u << 20, 16u << 20, 64u << 20, 256u << 20};
  PinnedBuffer host = pinned_buffer(256u << 20);
  fill_random(host.data(), host.size());
  DeviceBuffer dev = device_buffer(256u << 20);
  std::vector<char> pageable(64u << 20, 1);
  std::printf("\n## 1. Host->device copy ceiling (cudaMemcpyAsync, back to back on one stream)\n\n");
  std::printf("| transfer | pinned GB/s | pinned Gb/s | pageable GB/s |\n|---:|---:|---:|---:|\n");
  for (uint64_t b : sizes) {
    const double pinned = copy_gbytes_per_s(dev.data(), host.data(), b);
    ceiling[b] = pinned;
    std::string pageable_col = "";
    if (b == (8u << 20) || b == (64u << 20)) {
      const double pg = copy_gbytes_per_s(dev.data(), pageable.data(), b);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", pg);
      pageable_col = buf;
      emit({{"kind", "h2d"}, {"memory", "pageable"}, {"bytes", b}, {"gbytes_per_s", pg}});
    }
    std::printf("| %s | %.1f | %.0f | %s |\n", size_name(b).c_str(), pinned, pinned * 8, pageable_col.c_str());
    emit({{"kind", "h2d"}, {"memory", "pinned"}, {"bytes", b}, {"gbytes_per_s", pinned}});
  }
}

// The ceiling for a transfer of exactly `bytes` (a window's copy), measured once per size.
double ceiling_at(uint64_t bytes) {
  if (auto it = ceiling.find(bytes); it != ceiling.end()) return it->second;
  PinnedBuffer host = pinned_buffer(bytes);
  fill_random(host.data(), bytes);
  DeviceBuffer dev = device_buffer(bytes);
  const double gbs = copy_gbytes_per_s(dev.data(), host.data(), bytes);
  ceiling[bytes] = gbs;
  emit({{"kind", "h2d"}, {"memory", "pinned"}, {"bytes", bytes}, {"gbytes_per_s", gbs}});
  return gbs;
}

// ---- 2. single calls ----------------------------------------------------------------------

double median_us(const std::function<void(cudaStream_t)>& call, cudaStream_t s, int reps = 50) {
  Event a = make_event(true), b = make_event(true);
  for (int i = 0; i < 5; ++i) call(s);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    SPIRAL_CUDA(cudaEventRecord(a.get(), s));
    call(s);
    SPIRAL_CUDA(cudaEventRecord(b.get(), s));
    SPIRAL_CUDA(cudaEventSynchronize(b.get()));
    float ms;
    SPIRAL_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
    t.push_back(ms);
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2] * 1000.0;
}

void measure_calls() {
  std::printf("\n## 2. One call, alone (median of 50, CUDA events)\n\n| call | us | rate |\n|---|---:|---:|\n");
  Stream s = make_stream();
  const uint64_t window = 8u << 20;
  DeviceBuffer w = device_buffer(window);
  {
    PinnedBuffer h = pinned_buffer(window);
    fill_random(h.data(), window);
    SPIRAL_CUDA(cudaMemcpy(w.data(), h.data(), window, cudaMemcpyHostToDevice));
  }
  for (WorkloadKind k : {WorkloadKind::fft, WorkloadKind::gemm, WorkloadKind::gemm_fp16}) {
    auto wl = make_workload({k, 1024, 1024}, window, s.get());
    const double us = median_us([&](cudaStream_t) { wl->run(w.data()); }, s.get());
    const std::string what = k == WorkloadKind::fft ? "fft 1024-point C2C over 8 MiB (1024 transforms)"
                                                    : std::string(workload_name(k)) + " n=1024";
    std::printf("| %s | %.1f | %.1f TFLOP/s |\n", what.c_str(), us, wl->flops() / (us * 1e-6) / 1e12);
    emit({{"kind", "call"}, {"workload", workload_name(k)}, {"us", us}, {"tflops", wl->flops() / (us * 1e-6) / 1e12}});
  }
  // the reorder of an 8000 B-datagram window (1051 slots), device staging -> window
  const uint32_t slots = 1051;
  DeviceBuffer staged = device_buffer(size_t{slots} * 8000), offsets = device_buffer(slots * 4),
               owner = device_buffer(slots * 4), out = device_buffer(size_t{slots} * 7976);
  std::vector<std::byte> packets(size_t{slots} * 8000);
  std::vector<uint32_t> offs(slots);
  for (uint32_t i = 0; i < slots; ++i) {
    offs[i] = i * 8000;
    const uint64_t seq = i;
    std::memcpy(&packets[size_t{i} * 8000 + 8], &seq, 8);
  }
  std::shuffle(offs.begin(), offs.end(), rng);
  SPIRAL_CUDA(cudaMemcpy(staged.data(), packets.data(), packets.size(), cudaMemcpyHostToDevice));
  SPIRAL_CUDA(cudaMemcpy(offsets.data(), offs.data(), slots * 4, cudaMemcpyHostToDevice));
  SPIRAL_CUDA(cudaMemset(owner.data(), 0xff, slots * 4));
  SPIRAL_CUDA(cudaDeviceSynchronize());  // `s` is non-blocking: it does not wait for the legacy stream
  ReorderArgs a{staged.data(), offsets.as<uint32_t>(), slots, 0, slots, 24, 7976, 8, owner.as<uint32_t>(), out.data()};
  const double us = median_us([&](cudaStream_t st) { launch_reorder(a, st); }, s.get());
  std::printf("| reorder 1051 x 8000 B datagrams (shuffled) -> 8.0 MiB window | %.1f | %.0f GB/s read+write |\n", us,
              2.0 * slots * 7976 / (us * 1e-6) / 1e9);
  emit({{"kind", "call"}, {"workload", "reorder"}, {"us", us}});
}

// ---- 3. ingest ----------------------------------------------------------------------------

struct IngestResult {
  double gbps = 0, h2d_gbytes = 0, ratio = 0;
  uint64_t windows = 0, stalls = 0;
  double stall_share = 0;
  NvmlSampler::Figures util;
};

IngestResult ingest(NvmlSampler& nvml, WorkloadKind kind, bool reorder, uint64_t window, uint32_t in_flight,
                    uint32_t sync) {
  PipelineConfig c;
  c.workload = {kind, 1024, 1024};
  c.max_in_flight = in_flight;
  c.sync_interval = sync;
  uint32_t slots = 0;
  uint64_t staged_bytes = window;  // bytes copied host->device per window
  if (reorder) {
    slots = std::max<uint32_t>(1, static_cast<uint32_t>(window / 7976));
    c.reorder = true;
    c.slots = slots;
    c.slot_bytes = 7976;
    c.header_bytes = 24;
    c.seq_offset = 8;
    c.window_bytes = uint64_t{slots} * 7976;
    c.staging_bytes = uint64_t{slots} * 8000;
    c.max_datagrams = slots;
    staged_bytes = c.staging_bytes;
  } else {
    c.window_bytes = window;
  }
  Pipeline p(c);
  uint64_t seq_base = 0;
  auto one_window = [&](bool fill) {
    if (fill) fill_random(p.staging(), c.staging_bytes);
    if (reorder) {
      // what a receiver does per window: datagrams land at a stride, each with its sequence number
      for (uint32_t i = 0; i < slots; ++i) {
        const uint64_t seq = seq_base + i;
        std::memcpy(p.staging() + size_t{i} * 8000 + 8, &seq, 8);
        p.offsets()[i] = i * 8000;
      }
      p.submit(staged_bytes, slots, seq_base);
      seq_base += slots;
    } else {
      p.submit(window);
    }
  };
  for (uint32_t i = 0; i <= in_flight + 1; ++i) one_window(true);  // every staging buffer holds random data
  p.finish();
  const PipelineCounters before = p.counters();
  nvml.reset();
  nvml.start();
  const auto t0 = Clock::now();
  while (seconds_since(t0) < cell_seconds)
    for (int i = 0; i < 8; ++i) one_window(false);
  p.finish();
  const double elapsed = seconds_since(t0);
  nvml.stop();
  IngestResult r;
  r.windows = p.counters().windows - before.windows;
  r.stalls = p.counters().stalls - before.stalls;
  r.stall_share = double(p.counters().stall_ns - before.stall_ns) * 1e-9 / elapsed;
  r.h2d_gbytes = double(r.windows) * staged_bytes / elapsed / 1e9;
  r.gbps = double(r.windows) * c.window_bytes * 8 / elapsed / 1e9;  // assembled (payload) bits
  r.ratio = r.h2d_gbytes / ceiling_at(staged_bytes);  // the same-size copy, measured alone
  r.util = nvml.figures();
  return r;
}

std::string pct(int64_t mpct) {
  if (mpct < 0) return "-";
  char b[16];
  std::snprintf(b, sizeof b, "%.0f", mpct / 1000.0);
  return b;
}

void measure_ingest(NvmlSampler& nvml) {
  const std::vector<uint64_t> windows = {512u << 10, 1u << 20, 2u << 20, 4u << 20, 8u << 20};
  for (bool reorder : {false, true}) {
    std::printf("\n## 3%s. Pipeline ingest, %s (max_in_flight 2, sync_interval 2, gemm n=1024, fft L=1024)\n\n",
                reorder ? "b" : "a",
                reorder ? "reorder: 8000 B datagrams, 24 B header, sequence-placed into the window"
                        : "gather: stream bytes, the staging is the window");
    std::printf("| workload | window | Gb/s | H2D GB/s | x copy ceiling | target | SM %% | mem %% | stalls/s | stalled %% |\n");
    std::printf("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    for (WorkloadKind k : {WorkloadKind::none, WorkloadKind::fft, WorkloadKind::gemm, WorkloadKind::gemm_fp16}) {
      for (uint64_t w : windows) {
        IngestResult r = ingest(nvml, k, reorder, w, 2, 2);
        const double target = k == WorkloadKind::gemm ? 0.8 : 0.9;
        const char* verdict = w < (1u << 20) ? "(n/a < 1 MiB)" : r.ratio >= target ? "met" : "MISSED";
        std::printf("| %s | %s | %.1f | %.1f | %.2f | >= %.1f %s | %s | %s | %.0f | %.0f |\n", workload_name(k),
                    size_name(w).c_str(), r.gbps, r.h2d_gbytes, r.ratio, target, verdict, pct(r.util.sm_mpct).c_str(),
                    pct(r.util.mem_mpct).c_str(), r.stalls / cell_seconds, r.stall_share * 100);
        std::fflush(stdout);
        emit({{"kind", "ingest"}, {"assembly", reorder ? "reorder" : "gather"}, {"workload", workload_name(k)},
              {"window_bytes", w}, {"gbps", r.gbps}, {"h2d_gbytes_per_s", r.h2d_gbytes}, {"ratio", r.ratio},
              {"sm_mpct", r.util.sm_mpct}, {"mem_mpct", r.util.mem_mpct}, {"samples", r.util.samples},
              {"windows", r.windows}, {"stalls", r.stalls}, {"stall_share", r.stall_share}});
      }
    }
  }
}

void measure_knobs(NvmlSampler& nvml) {
  std::printf("\n## 4. max_in_flight / sync_interval at small windows\n\n");
  std::printf("| assembly | workload | window | max_in_flight | sync_interval | Gb/s | x copy ceiling | SM %% | stalled %% |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  struct Case {
    bool reorder;
    WorkloadKind kind;
    uint64_t window;
    uint32_t in_flight, sync;
  };
  std::vector<Case> cases;
  for (uint64_t w : {1u << 20, 2u << 20})
    for (auto [m, sy] : {std::pair{1u, 1u}, {2u, 2u}, {4u, 2u}, {8u, 2u}, {2u, 16u}})
      cases.push_back({false, WorkloadKind::gemm, w, m, sy});
  for (WorkloadKind k : {WorkloadKind::none, WorkloadKind::gemm_fp16})
    for (auto [m, sy] : {std::pair{1u, 1u}, {2u, 2u}, {3u, 2u}, {4u, 2u}, {8u, 2u}})
      cases.push_back({true, k, 1u << 20, m, sy});
  for (const Case& c : cases) {
    IngestResult r = ingest(nvml, c.kind, c.reorder, c.window, c.in_flight, c.sync);
    std::printf("| %s | %s | %s | %u | %u | %.1f | %.2f | %s | %.0f |\n", c.reorder ? "reorder" : "gather",
                workload_name(c.kind), size_name(c.window).c_str(), c.in_flight, c.sync, r.gbps, r.ratio,
                pct(r.util.sm_mpct).c_str(), r.stall_share * 100);
    std::fflush(stdout);
    emit({{"kind", "knobs"}, {"assembly", c.reorder ? "reorder" : "gather"}, {"workload", workload_name(c.kind)},
          {"window_bytes", c.window}, {"max_in_flight", c.in_flight}, {"sync_interval", c.sync}, {"gbps", r.gbps},
          {"ratio", r.ratio}, {"sm_mpct", r.util.sm_mpct}, {"stall_share", r.stall_share}});
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) cell_seconds = std::atof(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json_out.open(argv[++i]);
    else if (a == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: spiral-gpu-bench [--seconds S per cell (1)] [--json FILE] [--quick]\n");
      return 2;
    }
  }
  std::string why;
  auto device = probe_device(why);
  if (!device) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  int runtime = 0, driver = 0;
  try {
    SPIRAL_CUDA(cudaRuntimeGetVersion(&runtime));
    SPIRAL_CUDA(cudaDriverGetVersion(&driver));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiral-gpu-bench: %s\n", e.what());
    return 1;
  }
  NvmlSampler nvml(device->pci_bus_id, std::chrono::milliseconds(50));
  std::printf("# spiral-gpu-bench on %s (sm_%d%d, %d SMs, PCI %s), CUDA runtime %d, driver API %d, NVML: %s, %.1f s cells\n",
              device->name.c_str(), device->major, device->minor, device->multiprocessors, device->pci_bus_id.c_str(),
              runtime, driver, nvml.status().c_str(), cell_seconds);
  emit({{"kind", "device"}, {"name", device->name}, {"sm", device->major * 10 + device->minor},
        {"multiprocessors", device->multiprocessors}, {"runtime", runtime}, {"driver", driver}, {"nvml", nvml.status()}});
  try {
    measure_ceiling();
    measure_calls();
    if (quick) cell_seconds = std::min(cell_seconds, 0.2);
    measure_ingest(nvml);
    measure_knobs(nvml);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiral-gpu-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
