#include "transports/gpucopy/cuda/peer_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "gpu/cuda/check.hpp"
#include "gpu/nvml_sampler.hpp"
#include "sys/errors.hpp"
#include "transports/gpucopy/cuda/peer_kernels.hpp"
#include "transports/gpucopy/peer_path.hpp"

namespace spiral::gpucopy {

namespace {

double gbps(uint64_t bytes, int count, double us) { return us > 0 ? static_cast<double>(bytes) * count / (us * 1e3) : 0; }

}  // namespace

PeerBench::PeerBench(std::vector<int> devices, uint64_t max_bytes) : devices_(std::move(devices)) {
  const size_t n = devices_.size();
  access_.assign(n * n, false);
  enabled_here_.assign(n * n, false);
  for (size_t i = 0; i < n; ++i) {
    OnDevice on(devices_[i]);
    Gpu g;
    const std::string what = "GPU " + std::to_string(devices_[i]) + " peer copy ";
    g.send = memory::allocate({BufferMemory::device, max_bytes, what + "source"});
    g.recv = memory::allocate({BufferMemory::device, max_bytes, what + "destination"});
    SPIRAL_CUDA(cudaMemset(g.send->device_pointer(), static_cast<int>(0x40 + i), max_bytes));
    SPIRAL_CUDA(cudaMemset(g.recv->device_pointer(), 0, max_bytes));
    g.lane = std::make_unique<Lane>(devices_[i]);
    int sms = 0;
    SPIRAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, devices_[i]));
    g.blocks = 4 * sms;
    gpus_.push_back(std::move(g));
  }
  for (size_t s = 0; s < n; ++s)
    for (size_t d = 0; d < n; ++d) {
      int can = 0;
      if (s == d || cudaDeviceCanAccessPeer(&can, devices_[s], devices_[d]) != cudaSuccess || !can) continue;
      OnDevice on(devices_[s]);
      const cudaError_t e = cudaDeviceEnablePeerAccess(devices_[d], 0);
      if (e == cudaSuccess) enabled_here_[s * n + d] = true;
      else (void)cudaGetLastError();  // already enabled (another user in this process): usable as is
      access_[s * n + d] = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
    }
  for (int d : devices_) {
    OnDevice on(d);
    SPIRAL_CUDA(cudaDeviceSynchronize());  // the memsets
  }
}

PeerBench::~PeerBench() {
  const size_t n = size();
  for (size_t s = 0; s < n; ++s)
    for (size_t d = 0; d < n; ++d)
      if (enabled_here_[s * n + d]) {
        OnDevice on(devices_[s]);
        (void)cudaDeviceDisablePeerAccess(devices_[d]);
      }
  gpus_.clear();  // streams and buffers before the gate
}

void PeerBench::enqueue(PeerMethod m, size_t s, size_t d, uint64_t bytes, int count) {
  const Gpu& src = gpus_[s];
  for (int i = 0; i < count; ++i) {
    if (m == PeerMethod::ce)
      SPIRAL_CUDA(cudaMemcpyPeerAsync(recv(d), devices_[d], send(s), devices_[s], bytes, src.lane->stream));
    else
      SPIRAL_CUDA(kernels::copy(recv(d), send(s), bytes, src.blocks, src.lane->stream));
  }
}

std::pair<double, double> PeerBench::measure(PeerMethod m, PeerMode mode, size_t s, size_t d, uint64_t bytes,
                                             int iterations, int warmup) {
  const bool bi = mode == PeerMode::bi;
  if (m == PeerMethod::sm && (!peer_access(s, d) || (bi && !peer_access(d, s))))
    throw BadInput("gpucopy: the sm copy between GPU " + std::to_string(devices_[s]) + " and " +
                   std::to_string(devices_[d]) + " needs peer access, which CUDA refuses");
  std::vector<Lane*> lanes{gpus_[s].lane.get()};
  if (bi) lanes.push_back(gpus_[d].lane.get());
  auto run = [&](int count) {
    return gate_.run(lanes, [&](size_t lane) { lane == 0 ? enqueue(m, s, d, bytes, count) : enqueue(m, d, s, bytes, count); });
  };
  if (warmup > 0) run(warmup);
  const Gate::Times t = run(iterations);
  return {gbps(bytes, iterations, t.lane_us[0]), bi ? gbps(bytes, iterations, t.lane_us[1]) : -1.0};
}

PeerResult measure_peers(const CopySpec& spec, const std::vector<int>& devices) {
  PeerResult r;
  r.devices = devices;
  const size_t n = devices.size();
  if (spec.peer.methods.empty()) return r;
  if (n < 2) {
    r.note = "one GPU: no pairs to measure";
    return r;
  }
  uint64_t largest = 0;
  for (uint64_t b : spec.peer.bytes) largest = std::max(largest, b);
  PeerBench bench(devices, largest);
  std::vector<std::unique_ptr<gpu::NvmlSampler>> nvml;
  for (int d : devices) {
    char bus[32] = {};
    nvml.push_back(std::make_unique<gpu::NvmlSampler>(
        cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess ? std::string(bus) : std::string("?")));
  }
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      r.paths.push_back({devices[a], devices[b], nvml_path(*nvml[a], *nvml[b]),
                         bench.peer_access(a, b) && bench.peer_access(b, a)});
  bool sm_skipped = false;
  for (uint64_t bytes : spec.peer.bytes)
    for (PeerMethod m : spec.peer.methods)
      for (PeerMode mode : spec.peer.modes) {
        PeerMatrix mx = empty_matrix(m, mode, bytes, n);
        for (auto [s, d] : ordered_pairs(n)) {
          if (mode == PeerMode::bi && s > d) continue;  // measured with (d, s)
          if (m == PeerMethod::sm && !(bench.peer_access(s, d) && (mode == PeerMode::uni || bench.peer_access(d, s)))) {
            sm_skipped = true;
            continue;
          }
          const auto [forward, back] = bench.measure(m, mode, s, d, bytes, spec.iterations, spec.warmup_iterations);
          mx.gbps[s * n + d] = forward;
          if (mode == PeerMode::bi) mx.gbps[d * n + s] = back;
        }
        r.matrices.push_back(std::move(mx));
      }
  if (sm_skipped) r.note = "sm: some pairs have no peer access (-1)";
  return r;
}

}  // namespace spiral::gpucopy
