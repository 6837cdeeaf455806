// GPU correctness of the receive path (ctest gpu.correctness). Exit 0: every check passed on a
// GPU; 1: a check failed; 77: no usable GPU (ctest: Skipped), with the reason.
//
// Fresh random inputs every run (the seed is printed); every output is poisoned (all bits set:
// NaN for floats) before the GPU writes it and checked to be fully written.
//   fft        cuFFT batched C2C forward vs a double-precision CPU FFT, rel err < 1e-5
//   gemm       cublasSgemm vs float64, rel err < 1e-5
//   gemm_fp16  cublasGemmEx FP16 in / FP32 accumulate vs float64 on the FP32 inputs, < 1e-2
//   reorder    shuffled, duplicated (the copy differs), dropped and stray sequence numbers give
//              exactly the expected window (first arrival wins, holes zero), from device
//              memory and read in place from mapped pinned host memory
//   gather     odd-sized segments from device and mapped host memory keep their order
//   pipeline   stream and datagram assemblers through the whole pipeline (staging, async H2D,
//              assembly, workload) against the same references; the workload goes as each
//              slot's CUDA graph (direct calls with SPIRAL_GPU_GRAPH=off), counted per window;
//              the stream ring's windows go as one launch each (wait, workload, completion in
//              one graph; SPIRAL_GPU_ONE_LAUNCH=off: the calls per window), read back through
//              the window sink where test hooks would split the graph, and with the ring's
//              slots in write-combined memory
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "config/cell_parse.hpp"
#include "cpu_fft.hpp"
#include "gpu/assembly_reference.hpp"
#include "gpu/cuda/assemblers.hpp"
#include "gpu/cuda/device.hpp"
#include "gpu/cuda/kernels.hpp"
#include "gpu/cuda/resources.hpp"
#include "gpu/cuda/workload_graph.hpp"
#include "gpu/cuda/workloads.hpp"
#include "gpu/receiver.hpp"

using namespace spiral::gpu;
using spiral::Cell;
using spiral::parse_cell;
using spiral::gpu::test::fft_reference;
using spiral::gpu::test::gemm_reference;
using spiral::gpu::test::rel_err;

namespace {

std::mt19937_64 rng;
int failures = 0;
unsigned threads = 1;

void report(const std::string& name, bool ok, const std::string& detail) {
  std::printf("%-4s %-48s %s\n", ok ? "ok" : "FAIL", name.c_str(), detail.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::vector<float> random_floats(size_t n) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Synchronous, device-wide: the workloads run on non-blocking streams, which do not wait for
// the legacy stream these helpers use.
void to_device(void* dst, const void* src, size_t bytes) {
  SPIRAL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  SPIRAL_CUDA(cudaDeviceSynchronize());
}
template <typename T>
std::vector<T> from_device(const void* src, size_t count) {
  std::vector<T> v(count);
  SPIRAL_CUDA(cudaMemcpy(v.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}
void poison(void* p, size_t bytes) {
  SPIRAL_CUDA(cudaMemset(p, 0xff, bytes));
  SPIRAL_CUDA(cudaDeviceSynchronize());
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}



void check_fft(uint32_t length, uint64_t window_bytes) {
  Stream stream = make_stream();
  auto w = make_workload({WorkloadKind::fft, 1024, length}, window_bytes, stream.get());
  const size_t floats = w->input_bytes() / sizeof(float);
  const size_t batch = w->input_bytes() / (8ull * length);
  auto input = random_floats(floats);
  DeviceBuffer window = device_buffer(w->input_bytes());
  to_device(window.data(), input.data(), w->input_bytes());
  poison(w->output().data, w->output().bytes);
  w->run(window.data());
  SPIRAL_CUDA(cudaStreamSynchronize(stream.get()));
  auto got = from_device<float>(w->output().data, floats);
  auto still = from_device<float>(window.data(), floats);  // out of place: the window is intact
  const bool written = all_finite(got);
  const double err = written ? rel_err(got, fft_reference(input, length, batch)) : INFINITY;
  report("fft L=" + std::to_string(length) + " x" + std::to_string(batch) + " (" + std::to_string(window_bytes) + " B window)",
         written && err < 1e-5 && still == input,
         "rel err " + fmt("%.2e", err) + (written ? "" : ", output not fully written") +
             (still == input ? "" : ", input changed"));
}

void check_gemm(WorkloadKind kind, uint32_t n, double limit) {
  Stream stream = make_stream();
  auto w = make_workload({kind, n, 1024}, uint64_t{n} * n * 4, stream.get());
  auto a = random_floats(size_t{n} * n), b = random_floats(size_t{n} * n);
  w->set_b(b.data());
  DeviceBuffer window = device_buffer(w->input_bytes());
  to_device(window.data(), a.data(), a.size() * 4);
  poison(w->output().data, w->output().bytes);
  w->run(window.data());
  SPIRAL_CUDA(cudaStreamSynchronize(stream.get()));
  auto got = from_device<float>(w->output().data, size_t{n} * n);
  const bool written = all_finite(got);
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
  const double err = written ? rel_err(got, gemm_reference(ad, bd, n, threads)) : INFINITY;
  report(std::string(workload_name(kind)) + " n=" + std::to_string(n), written && err < limit,
         "rel err " + fmt("%.2e", err) + " (limit " + fmt("%.0e", limit) + ")" +
             (written ? "" : ", output not fully written"));
}

// ---- reorder ------------------------------------------------------------------------------

struct Datagrams {
  DatagramLayout layout;
  std::vector<std::byte> packets;
  std::vector<uint32_t> offsets;
  std::map<uint64_t, std::vector<std::byte>> first;  // seq -> payload of its first arrival

  void add(uint64_t seq, uint32_t gap) {
    offsets.push_back(static_cast<uint32_t>(packets.size()));
    std::vector<std::byte> d(layout.datagram_bytes);
    for (auto& x : d) x = std::byte(rng());
    for (int i = 0; i < 8; ++i) d[layout.seq_offset + i] = std::byte(seq >> (8 * i));
    first.emplace(seq, std::vector<std::byte>(d.begin() + layout.header_bytes, d.end()));  // keeps the first
    packets.insert(packets.end(), d.begin(), d.end());
    packets.insert(packets.end(), gap, std::byte{0x5a});
  }
};

void check_reorder(const DatagramLayout& layout, uint32_t slots, uint32_t gap, bool in_place) {
  const uint64_t base = uint64_t{slots} * 7 + 0x100000000ull;  // above 2^32: all 64 bits matter
  std::vector<uint64_t> arrivals;
  std::bernoulli_distribution drop(0.05), dup(0.05);
  uint32_t dropped = 0, duplicated = 0;
  for (uint32_t s = 0; s < slots; ++s) {
    if (drop(rng)) {
      ++dropped;
      continue;
    }
    arrivals.push_back(base + s);
    if (dup(rng)) {
      arrivals.push_back(base + s);
      ++duplicated;
    }
  }
  for (int i = 0; i < 5; ++i) arrivals.push_back(base - 1 - i), arrivals.push_back(base + slots + i);  // strays
  std::shuffle(arrivals.begin(), arrivals.end(), rng);
  Datagrams d{layout, {}, {}, {}};
  for (uint64_t seq : arrivals) d.add(seq, gap);

  // Expected, straight from the generator: slot s = first arrival of base+s, or zeros.
  const size_t slot_bytes = layout.datagram_bytes - layout.header_bytes;
  std::vector<std::byte> expected(size_t{slots} * slot_bytes, std::byte{0});
  for (uint32_t s = 0; s < slots; ++s)
    if (auto it = d.first.find(base + s); it != d.first.end())
      std::memcpy(expected.data() + s * slot_bytes, it->second.data(), slot_bytes);
  const bool reference_agrees = reorder_reference(d.packets, d.offsets, layout, base, slots) == expected;

  DeviceBuffer packets_dev;
  PinnedBuffer packets_host;
  const std::byte* packets = nullptr;
  if (in_place) {
    packets_host = pinned_buffer(d.packets.size(), /*mapped=*/true);
    std::memcpy(packets_host.data(), d.packets.data(), d.packets.size());
    packets = device_pointer(packets_host);
  } else {
    packets_dev = device_buffer(d.packets.size());
    to_device(packets_dev.data(), d.packets.data(), d.packets.size());
    packets = packets_dev.data();
  }
  DeviceBuffer offsets = device_buffer(d.offsets.size() * 4), owner = device_buffer(size_t{slots} * 4),
               window = device_buffer(expected.size());
  to_device(offsets.data(), d.offsets.data(), d.offsets.size() * 4);
  poison(owner.data(), owner.size());  // all kNoOwner
  SPIRAL_CUDA(cudaMemset(window.data(), 0xab, window.size()));
  SPIRAL_CUDA(cudaDeviceSynchronize());
  ReorderArgs a{packets, offsets.as<uint32_t>(), static_cast<uint32_t>(d.offsets.size()), base, slots,
                layout.header_bytes, static_cast<uint32_t>(slot_bytes), layout.seq_offset, owner.as<uint32_t>(),
                window.data()};
  launch_reorder(a, nullptr);
  SPIRAL_CUDA(cudaDeviceSynchronize());
  const bool exact = from_device<std::byte>(window.data(), expected.size()) == expected;
  auto owners = from_device<uint32_t>(owner.data(), slots);
  const bool reset = std::all_of(owners.begin(), owners.end(), [](uint32_t o) { return o == kNoOwner; });
  report("reorder " + std::to_string(layout.datagram_bytes) + " B x" + std::to_string(slots) + " slots" +
             (in_place ? ", in place (mapped host)" : ", device staging"),
         exact && reset && reference_agrees,
         std::to_string(arrivals.size()) + " arrivals, " + std::to_string(dropped) + " dropped, " +
             std::to_string(duplicated) + " duplicated, 10 strays" + (exact ? "" : ", WINDOW DIFFERS") +
             (reset ? "" : ", claims not reset") + (reference_agrees ? "" : ", CPU reference disagrees"));
}

void check_gather(bool in_place) {
  std::uniform_int_distribution<size_t> len(1, 300000);
  std::vector<std::vector<std::byte>> parts(23);
  for (auto& p : parts) {
    p.resize(len(rng));
    for (auto& x : p) x = std::byte(rng());
  }
  std::vector<Segment> host_segments;
  for (auto& p : parts) host_segments.push_back({p.data(), p.size()});
  const auto expected = gather_reference(host_segments);

  std::vector<GatherSegment> segs;
  std::vector<DeviceBuffer> dev;
  std::vector<PinnedBuffer> mapped;
  uint64_t at = 0, largest = 0;
  for (auto& p : parts) {
    const std::byte* src;
    if (in_place) {
      mapped.push_back(pinned_buffer(p.size(), true));
      std::memcpy(mapped.back().data(), p.data(), p.size());
      src = device_pointer(mapped.back());
    } else {
      dev.push_back(device_buffer(p.size()));
      to_device(dev.back().data(), p.data(), p.size());
      src = dev.back().data();
    }
    segs.push_back({src, at, p.size()});
    at += p.size();
    largest = std::max<uint64_t>(largest, p.size());
  }
  DeviceBuffer segs_dev = device_buffer(segs.size() * sizeof(GatherSegment)), window = device_buffer(at);
  to_device(segs_dev.data(), segs.data(), segs.size() * sizeof(GatherSegment));
  poison(window.data(), at);
  launch_gather(segs_dev.as<GatherSegment>(), static_cast<uint32_t>(segs.size()), largest, window.data(), nullptr);
  SPIRAL_CUDA(cudaDeviceSynchronize());
  const bool exact = from_device<std::byte>(window.data(), at) == expected;
  report(std::string("gather 23 odd segments") + (in_place ? ", in place (mapped host)" : ", device"), exact,
         std::to_string(at) + " bytes" + (exact ? "" : ", WINDOW DIFFERS"));
}

// ---- the pipeline through its assemblers ----------------------------------------------------

// Collects every assembled window (and workload output): on the compute stream through the
// test hooks, or, with `sink`, as the pipeline hands each processed window on (no hooks, so a
// window of the stream ring goes as its slot's whole graph: wait, workload, completion).
struct Collector final : WindowSink {
  struct Window {
    uint64_t base;
    PinnedBuffer data, output;
  };
  std::vector<Window> windows;
  Stream copies;
  void window_processed(const ProcessedWindow& w) override {  // the buffers are reused once this returns
    windows.push_back({w.base, pinned_buffer(w.window_bytes), {}});
    SPIRAL_CUDA(cudaMemcpyAsync(windows.back().data.data(), w.window, w.window_bytes, cudaMemcpyDeviceToHost,
                                copies.get()));
    if (w.output) {
      windows.back().output = pinned_buffer(w.output_bytes);
      SPIRAL_CUDA(cudaMemcpyAsync(windows.back().output.data(), w.output, w.output_bytes, cudaMemcpyDeviceToHost,
                                  copies.get()));
    }
    SPIRAL_CUDA(cudaStreamSynchronize(copies.get()));
  }
  void attach(PipelineConfig& c, bool sink = false) {
    if (sink) {
      copies = make_stream();
      c.sink = this;
      return;
    }
    c.inspect_window = [this](const std::byte* w, uint64_t bytes, uint64_t base, cudaStream_t s) {
      windows.push_back({base, pinned_buffer(bytes), {}});
      SPIRAL_CUDA(cudaMemcpyAsync(windows.back().data.data(), w, bytes, cudaMemcpyDeviceToHost, s));
    };
    c.inspect_output = [this](Workload::Output out, cudaStream_t s) {
      windows.back().output = pinned_buffer(out.bytes);
      SPIRAL_CUDA(cudaMemcpyAsync(windows.back().output.data(), out.data, out.bytes, cudaMemcpyDeviceToHost, s));
    };
  }
};

void check_stream_pipeline(WorkloadKind kind, RingShape ring, const std::string& how, bool sink = false) {
  PipelineConfig c;
  c.workload = {kind, 256, 1024};
  c.window_bytes = (1u << 20) + 8192;  // not a power of two
  c.max_in_flight = 2;
  c.sync_interval = 1;
  Collector col;
  col.attach(c, sink);
  PipelineCounters last;
  PipelineStreamAssembler a(c, [&](const PipelineCounters& k) { last = k; }, ring);
  // the ring's windows wait on the GPU for the drain's flag unless SPIRAL_GPU_ONE_LAUNCH=off
  const bool one_launch = ring.on() && one_launch_on();
  const bool launch_ok = (a.pipeline().fill_flag() != nullptr) == one_launch;
  const auto b = random_floats(256 * 256);
  if (kind != WorkloadKind::none) a.pipeline().workload()->set_b(b.data());
  // 5.3 windows of random floats in random-sized receives
  const size_t total = c.window_bytes * 53 / 10 / 4 * 4;
  auto stream = random_floats(total / 4);
  const auto* bytes = reinterpret_cast<const std::byte*>(stream.data());
  std::uniform_int_distribution<size_t> chunk(1, 300000);
  for (size_t at = 0; at < total;) {
    auto space = a.space();
    const size_t n = std::min({chunk(rng), space.size(), total - at});
    std::memcpy(space.data(), bytes + at, n);
    a.commit(n);
    at += n;
  }
  a.finish();
  bool order = col.windows.size() == 6;
  for (size_t k = 0; order && k < col.windows.size(); ++k) {
    const size_t from = k * c.window_bytes, n = std::min<size_t>(c.window_bytes, total - from);
    order = std::memcmp(col.windows[k].data.data(), bytes + from, n) == 0 &&
            std::all_of(col.windows[k].data.data() + n, col.windows[k].data.data() + c.window_bytes,
                        [](std::byte b) { return b == std::byte{0}; });
  }
  std::string detail = std::to_string(col.windows.size()) + " windows, " + std::to_string(last.bytes) + " bytes";
  // every window's workload went as its slot's CUDA graph, unless SPIRAL_GPU_GRAPH=off
  const uint64_t graphs = kind != WorkloadKind::none && workload_graphs_on() ? 6 : 0;
  detail += ", " + std::to_string(last.graph_windows) + " as graphs";
  if (one_launch) detail += launch_ok ? ", one launch per window" : ", NOT ONE LAUNCH PER WINDOW";
  bool ok = order && last.windows == 6 && last.bytes == total && last.graph_windows == graphs && launch_ok;
  if (ok && kind != WorkloadKind::none) {  // the workload ran on what arrived: check window 2's result
    const auto& w = col.windows[2];
    std::vector<float> win(reinterpret_cast<const float*>(w.data.data()),
                           reinterpret_cast<const float*>(w.data.data()) + c.window_bytes / 4);
    std::vector<float> out(reinterpret_cast<const float*>(w.output.data()),
                           reinterpret_cast<const float*>(w.output.data()) + w.output.size() / 4);
    double err = INFINITY, limit = 1e-5;
    if (kind == WorkloadKind::fft) {
      win.resize(out.size());
      err = rel_err(out, fft_reference(win, 1024, out.size() / 2048));
    } else {  // A = the window's first n*n floats
      std::vector<double> ad(win.begin(), win.begin() + 256 * 256), bd(b.begin(), b.end());
      err = rel_err(out, gemm_reference(ad, bd, 256, threads));
      limit = kind == WorkloadKind::gemm_fp16 ? 1e-2 : 1e-5;
    }
    ok = all_finite(out) && err < limit;
    detail += ", workload on window 2: rel err " + fmt("%.2e", err);
  }
  report("pipeline stream (" + how + ") + " + workload_name(kind), ok,
         detail + (order ? "" : ", WINDOWS DIFFER FROM THE STREAM"));
}

// Two queues' rings run at once, and the receiver goes away without finish() (a failed run):
// every drain must be stopped before any pipeline frees its buffers, or this never returns.
void check_stream_ring_queues() {
  Cell cell = parse_cell(nlohmann::json{{"role", "server"}, {"transport", "tcp"}, {"workload", {{"kind", "fft"}}},
                                        {"workload_batch_bytes", 1u << 20}});
  bool ok = false;
  std::string detail;
  {
    GpuReceiver g = GpuReceiver::streams(cell, 2);
    const auto stream = random_floats((3u << 20) / 4);
    const auto* bytes = reinterpret_cast<const std::byte*>(stream.data());
    for (size_t q : {0, 1}) {
      for (size_t at = 0; at < (5u << 19);) {  // 2.5 windows each, the last one left open
        auto space = g.stream(q)->space();
        const size_t n = std::min<size_t>(space.size(), (5u << 19) - at);
        std::memcpy(space.data(), bytes + at, n);
        g.stream(q)->commit(n);
        at += n;
      }
    }
    g.stream(0)->finish();  // queue 1 never finishes
    const GpuReport r = g.report();
    ok = r.counters.windows == 3 + 2 && r.counters.bytes == (2u << 20) + (5u << 19);
    detail = std::to_string(r.counters.windows) + " windows, " + std::to_string(r.counters.bytes) + " bytes counted";
  }
  report("stream ring: two queues, one never finished, torn down", ok, detail);
}

// A UDP-like arrival order: mostly in order, local reordering, drops and duplicates, sent in
// bursts the way the UDP receiver does (no more than room(), one datagram per buffer).
void check_datagram_pipeline(bool disorder) {
  const DatagramLayout layout{1000, 24, 8};  // 976-byte slots
  PipelineConfig c;
  c.workload = {WorkloadKind::none, 0, 0};
  c.window_bytes = 976 * 61;  // 61 slots
  c.max_in_flight = 2;
  Collector col;
  col.attach(c);
  PipelineCounters last;
  const uint32_t burst = 16;
  PipelineDatagramAssembler a(c, layout, layout.datagram_bytes, burst, [&](const PipelineCounters& k) { last = k; });
  const uint64_t first = 61 * 3 + 5, count = 61 * 20;  // starts mid-window
  std::vector<uint64_t> order;
  std::bernoulli_distribution drop(disorder ? 0.03 : 0), dup(disorder ? 0.03 : 0);
  for (uint64_t s = first; s < first + count; ++s) {
    if (drop(rng)) continue;
    order.push_back(s);
    if (dup(rng)) order.push_back(s);
  }
  if (disorder)  // local reordering: swap neighbours up to 12 apart
    for (size_t i = 0; i + 12 < order.size(); i += 7) std::swap(order[i], order[i + std::uniform_int_distribution<size_t>(1, 12)(rng)]);
  auto payload = [](uint64_t seq, size_t i) { return std::byte((seq * 131 + i * 7) & 0xff); };
  std::map<uint64_t, int> copies;
  size_t next = 0;
  while (next < order.size()) {
    const uint32_t n = std::min<uint32_t>({burst, a.room(), static_cast<uint32_t>(order.size() - next)});
    std::byte* space = a.space(size_t{n} * layout.datagram_bytes);
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t seq = order[next++];
      std::byte* d = space + size_t{i} * layout.datagram_bytes;
      for (int b = 0; b < 8; ++b) d[8 + b] = std::byte(seq >> (8 * b));
      const bool copy = copies[seq]++ > 0;  // a duplicate carries different bytes: it must lose
      for (size_t k = 24; k < layout.datagram_bytes; ++k) d[k] = copy ? std::byte{0xdd} : payload(seq, k);
      a.add(d, seq);
    }
    a.end_burst(size_t{n} * layout.datagram_bytes);
  }
  a.finish();
  // Every window holds, per slot, its sequence number's first copy or zeros; each sequence
  // number lands in one window at most; what is missing was lost or late.
  bool ok = true;
  uint64_t filled = 0, previous_base = 0;
  bool first_window = true;
  for (const auto& w : col.windows) {
    if (!first_window && w.base <= previous_base) ok = false;
    first_window = false;
    previous_base = w.base;
    for (uint32_t s = 0; s < 61; ++s) {
      const std::byte* slot = w.data.data() + size_t{s} * 976;
      const bool zero = std::all_of(slot, slot + 976, [](std::byte b) { return b == std::byte{0}; });
      if (zero) continue;
      ++filled;
      for (size_t k = 0; k < 976 && ok; ++k) ok = slot[k] == payload(w.base + s, k + 24);
    }
  }
  const uint64_t distinct = copies.size();
  const bool accounted = disorder ? (filled <= distinct && filled + last.late >= distinct) : (filled == distinct && last.late == 0);
  report(std::string("pipeline datagrams (reorder)") + (disorder ? ", reordered/dropped/duplicated" : ", in order"),
         ok && accounted,
         std::to_string(col.windows.size()) + " windows, " + std::to_string(filled) + " of " + std::to_string(distinct) +
             " sequence numbers placed, " + std::to_string(last.late) + " late, " + std::to_string(last.carried) +
             " carried" + (ok ? "" : ", A SLOT HOLDS THE WRONG BYTES OR WINDOWS OUT OF ORDER") +
             (accounted ? "" : ", COUNTS DO NOT ADD UP"));
}

}  // namespace

int main() {
  std::string why;
  auto device = probe_device(why);
  if (!device) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  const uint64_t seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  rng.seed(seed);
  threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("device: %s (sm_%d%d, %d SMs), seed %" PRIu64 "\n", device->name.c_str(), device->major, device->minor,
              device->multiprocessors, seed);
  try {
    // The stream ring first, while no cuBLAS or cuFFT kernel is loaded yet: CUDA loads modules
    // at a kernel's first launch and may synchronise the context to do so, which would never
    // return while a drain runs (the pipeline launches its workload once before any traffic).
    for (auto k : {WorkloadKind::gemm_fp16, WorkloadKind::gemm, WorkloadKind::fft, WorkloadKind::none})
      check_stream_pipeline(k, stream_ring_shape(), "ring, default shape");
    // no test hooks: each window goes as its slot's whole graph (one launch per window)
    for (auto k : {WorkloadKind::gemm_fp16, WorkloadKind::fft, WorkloadKind::none})
      check_stream_pipeline(k, stream_ring_shape(), "ring, default shape, through the sink", true);
    if (RingShape wc = stream_ring_shape(); wc.on()) {
      wc.write_combined = true;
      check_stream_pipeline(WorkloadKind::gemm, wc, "ring, write-combined slots, through the sink", true);
    }
    check_fft(1024, 2u << 20);
    check_fft(256, (1u << 20) + 1000);
    check_fft(4096, 1u << 20);
    check_gemm(WorkloadKind::gemm, 1024, 1e-5);
    check_gemm(WorkloadKind::gemm, 333, 1e-5);
    check_gemm(WorkloadKind::gemm_fp16, 1024, 1e-2);
    check_gemm(WorkloadKind::gemm_fp16, 333, 1e-2);
    check_reorder({8000, 24, 8}, 1051, 0, false);
    check_reorder({8000, 24, 8}, 1051, 0, true);
    check_reorder({1001, 24, 8}, 37, 3, false);  // odd sizes, unaligned: the byte-wise path
    check_gather(false);
    check_gather(true);
    for (auto k : {WorkloadKind::none, WorkloadKind::fft, WorkloadKind::gemm, WorkloadKind::gemm_fp16})
      check_stream_pipeline(k, {}, "staged");
    // small chunks that do not divide the window, few slots, an odd block count: every wrap
    check_stream_pipeline(WorkloadKind::fft, parse_ring_shape("2x4x3"), "ring 2x4KiBx3");
    check_stream_pipeline(WorkloadKind::gemm_fp16, parse_ring_shape("16x96x7"), "ring 16x96KiBx7");
    check_stream_pipeline(WorkloadKind::fft, parse_ring_shape("2x4x3"), "ring 2x4KiBx3, through the sink", true);
    check_stream_ring_queues();
    check_datagram_pipeline(false);
    check_datagram_pipeline(true);
  } catch (const std::exception& e) {
    report("exception", false, e.what());
  }
  std::printf("%s: %d failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
