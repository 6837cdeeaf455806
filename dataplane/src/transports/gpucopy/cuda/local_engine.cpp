#include "transports/gpucopy/cuda/local_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>

#include "gpu/cuda/check.hpp"
#include "memory/region.hpp"
#include "sys/errors.hpp"
#include "transports/gpucopy/cuda/lanes.hpp"
#include "transports/gpucopy/cuda/local_kernels.hpp"

namespace spiral::gpucopy {

namespace {

struct Timer {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Timer() {
    SPIRAL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SPIRAL_CUDA(cudaEventCreate(&start));
    SPIRAL_CUDA(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  template <typename F>
  double ms(F&& enqueue) {
    SPIRAL_CUDA(cudaEventRecord(start, stream));
    enqueue();
    SPIRAL_CUDA(cudaEventRecord(stop, stream));
    SPIRAL_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    SPIRAL_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

int blocks_of(int device) {
  int sms = 0;
  SPIRAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return 4 * sms;  // 4 blocks of 512 threads per SM, as the peer SM copy
}

std::unique_ptr<memory::Region> device_buffer(uint64_t bytes, const char* what) {
  return memory::allocate({BufferMemory::device, bytes, what});
}

// SM read or write passes: GB/s of `bytes` per pass, `repeats` samples.
std::vector<double> sm_samples(const CopySpec& spec, int device, LocalTest t, memory::Region& buf,
                               unsigned long long* sink) {
  const int blocks = blocks_of(device);
  const uint64_t bytes = spec.local.bytes / 16 * 16;
  Timer timer;
  auto pass = [&] {
    if (t == LocalTest::sm_read) SPIRAL_CUDA(kernels::read_only(buf.device_pointer(), bytes, blocks, sink, false, timer.stream));
    else SPIRAL_CUDA(kernels::write_only(buf.device_pointer(), bytes, 0x01010101u, blocks, timer.stream));
  };
  std::vector<double> gbps;
  for (int r = 0; r < spec.local.repeats; ++r) {
    for (int i = 0; i < spec.warmup_iterations; ++i) pass();
    const double ms = timer.ms([&] {
      for (int i = 0; i < spec.iterations; ++i) pass();
    });
    gbps.push_back(ms > 0 ? static_cast<double>(bytes) * spec.iterations / (ms * 1e6) : 0.0);
  }
  return gbps;
}

std::vector<double> chase_samples(int device, void* chain, int repeats) {
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) ns.push_back(chase_ns(device, chain, kChaseLoads));
  return ns;
}

}  // namespace

void lay_chase(void* where, void* device_address, bool on_device) {
  const uint64_t n = kChaseBytes / sizeof(void*);
  std::vector<void*> slots(n);
  for (uint64_t i = 0; i < n; ++i) slots[i] = static_cast<char*>(device_address) + chase_next(i, n) * sizeof(void*);
  if (on_device) SPIRAL_CUDA(cudaMemcpy(where, slots.data(), kChaseBytes, cudaMemcpyHostToDevice));
  else std::copy(slots.begin(), slots.end(), static_cast<void**>(where));
}

double chase_ns(int device, void* chain, uint64_t loads) {
  OnDevice on(device);
  auto end = device_buffer(sizeof(void*), "gpucopy chase end");
  Timer timer;
  // one short chase first: the kernel's first launch and the first touch of the pages
  SPIRAL_CUDA(kernels::chase(static_cast<void* const*>(chain), 1000, reinterpret_cast<void**>(end->device_pointer()), timer.stream));
  const double ms = timer.ms([&] {
    SPIRAL_CUDA(kernels::chase(static_cast<void* const*>(chain), loads, reinterpret_cast<void**>(end->device_pointer()), timer.stream));
  });
  return ms * 1e6 / static_cast<double>(loads);
}

unsigned long long read_fold(int device, const void* src, uint64_t bytes) {
  OnDevice on(device);
  auto sink = device_buffer(2 * sizeof(unsigned long long), "gpucopy read sink");
  SPIRAL_CUDA(cudaMemset(sink->device_pointer(), 0, 2 * sizeof(unsigned long long)));
  auto* words = reinterpret_cast<unsigned long long*>(sink->device_pointer());
  SPIRAL_CUDA(kernels::read_only(src, bytes, blocks_of(device), words, true, nullptr));
  unsigned long long fold = 0;
  SPIRAL_CUDA(cudaMemcpy(&fold, words, sizeof fold, cudaMemcpyDeviceToHost));
  return fold;
}

void write_pass(int device, void* dst, uint64_t bytes, uint32_t value) {
  OnDevice on(device);
  SPIRAL_CUDA(kernels::write_only(dst, bytes, value, blocks_of(device), nullptr));
  SPIRAL_CUDA(cudaDeviceSynchronize());
}

LocalResult measure_local(const CopySpec& spec, const std::vector<int>& devices) {
  LocalResult out;
  const auto& L = spec.local;
  auto wants = [&](LatencyTarget t) { return std::find(L.latency.begin(), L.latency.end(), t) != L.latency.end(); };
  // the peer chains: one per GPU in its own memory, read by the others
  std::vector<std::unique_ptr<memory::Region>> chains(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    OnDevice on(devices[i]);
    chains[i] = device_buffer(kChaseBytes, "gpucopy chase (device)");
    lay_chase(chains[i]->device_pointer(), chains[i]->device_pointer(), true);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    const int device = devices[i];
    OnDevice on(device);
    if (!L.tests.empty()) {
      auto buf = device_buffer(L.bytes, "gpucopy SM read/write buffer");
      auto sink = device_buffer(2 * sizeof(unsigned long long), "gpucopy read sink");
      SPIRAL_CUDA(cudaMemset(buf->device_pointer(), 0x5a, L.bytes));
      for (LocalTest t : L.tests)
        out.figures.push_back(figure_of(device, std::string(name(t)), -1,
                                        sm_samples(spec, device, t, *buf, reinterpret_cast<unsigned long long*>(sink->device_pointer()))));
    }
    if (wants(LatencyTarget::device))
      out.figures.push_back(figure_of(device, "latency_device", -1, chase_samples(device, chains[i]->device_pointer(), L.repeats)));
    if (wants(LatencyTarget::host)) {
      auto host = memory::allocate({BufferMemory::host_pinned, kChaseBytes, "gpucopy chase (host)", memory::kRegisterCuda});
      lay_chase(host->data(), host->device_pointer(), false);
      out.figures.push_back(figure_of(device, "latency_host", -1, chase_samples(device, host->device_pointer(), L.repeats)));
    }
    if (!wants(LatencyTarget::peer)) continue;
    if (devices.size() < 2) out.note = "one GPU: no peer latency";
    for (size_t j = 0; j < devices.size(); ++j) {
      int can = 0;
      if (j == i) continue;
      if (cudaDeviceCanAccessPeer(&can, device, devices[j]) != cudaSuccess || !can) {
        out.note = "no peer access between some GPUs: their peer latency is not measured";
        continue;
      }
      const cudaError_t e = cudaDeviceEnablePeerAccess(devices[j], 0);
      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) SPIRAL_CUDA(e);
      (void)cudaGetLastError();  // clears "already enabled"
      out.figures.push_back(figure_of(device, "latency_peer", devices[j], chase_samples(device, chains[j]->device_pointer(), L.repeats)));
    }
  }
  return out;
}

}  // namespace spiral::gpucopy
