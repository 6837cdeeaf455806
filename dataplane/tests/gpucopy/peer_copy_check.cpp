// On a node of two GPUs or more: every ordered pair, ce and sm, uni and bi, puts exactly the
// source GPU's bytes into the destination's buffer and nothing past the copy's end (sizes with a
// tail the 16-byte vectors do not cover); a negative control proves the
// comparison catches other bytes; the matrices and the host aggregate then run as the kind runs
// them and come out positive. Exit 0 passed, 1 a failure, 77 fewer than two GPUs (ctest: Skipped).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "gpu/cuda/check.hpp"
#include "memory/region.hpp"
#include "transports/gpucopy/cuda/peer_engine.hpp"
#include "support/check_report.hpp"

using namespace spiral;
using namespace spiral::gpucopy;

namespace {

using spiral::testing::failures;
using spiral::testing::report;

unsigned char pattern(size_t gpu, size_t i) { return static_cast<unsigned char>((i * 131 + gpu * 17 + i / 4093) & 0xff); }

constexpr uint64_t kMax = (4ull << 20) + 64;  // buffers: the largest copy and a margin to see overruns

// Host memory for fills and read-backs, from the memory provider.
std::unique_ptr<memory::Region> host_buffer() {
  return memory::allocate({BufferMemory::host, kMax, "peer check host buffer"});
}

void fill_sources(PeerBench& bench, const std::vector<int>& devices) {
  auto host = host_buffer();
  for (size_t g = 0; g < devices.size(); ++g) {
    for (size_t i = 0; i < kMax; ++i) host->data()[i] = std::byte{pattern(g, i)};
    OnDevice on(devices[g]);
    SPIRAL_CUDA(cudaMemcpy(bench.send(g), host->data(), kMax, cudaMemcpyHostToDevice));
  }
}

void clear(PeerBench& bench, const std::vector<int>& devices, size_t g) {
  OnDevice on(devices[g]);
  SPIRAL_CUDA(cudaMemset(bench.recv(g), 0, kMax));
  SPIRAL_CUDA(cudaDeviceSynchronize());
}

// recv(d)[0, bytes) must hold GPU `from`'s pattern, and [bytes, kMax) stay zero. Returns the
// first wrong offset, or -1.
int64_t first_wrong(PeerBench& bench, const std::vector<int>& devices, size_t d, size_t from, uint64_t bytes) {
  auto host = host_buffer();
  OnDevice on(devices[d]);
  SPIRAL_CUDA(cudaMemcpy(host->data(), bench.recv(d), kMax, cudaMemcpyDeviceToHost));
  const auto* b = reinterpret_cast<const unsigned char*>(host->data());
  for (size_t i = 0; i < kMax; ++i)
    if (b[i] != (i < bytes ? pattern(from, i) : 0)) return static_cast<int64_t>(i);
  return -1;
}

void check_copies(PeerBench& bench, const std::vector<int>& devices) {
  for (uint64_t bytes : {uint64_t{4} << 20, (uint64_t{1} << 20) + 5, uint64_t{15}}) {
    for (auto [s, d] : ordered_pairs(devices.size()))
      for (PeerMethod m : {PeerMethod::ce, PeerMethod::sm})
        for (PeerMode mode : {PeerMode::uni, PeerMode::bi}) {
          const std::string what = std::string(name(m)) + " " + std::string(name(mode)) + " GPU " +
                                   std::to_string(devices[s]) + " -> " + std::to_string(devices[d]) + ", " +
                                   std::to_string(bytes) + " B";
          if (m == PeerMethod::sm && !(bench.peer_access(s, d) && bench.peer_access(d, s))) {
            std::printf("skip %s: no peer access\n", what.c_str());
            continue;
          }
          clear(bench, devices, d);
          clear(bench, devices, s);
          const auto [forward, back] = bench.measure(m, mode, s, d, bytes, 1, 0);
          const int64_t wrong = first_wrong(bench, devices, d, s, bytes);
          int64_t wrong_back = -1;
          if (mode == PeerMode::bi) wrong_back = first_wrong(bench, devices, s, d, bytes);
          report(wrong < 0 && wrong_back < 0 && forward > 0 && (mode == PeerMode::uni || back > 0),
                 what + (wrong >= 0 ? ": byte " + std::to_string(wrong) + " wrong" : "") +
                     (wrong_back >= 0 ? ": reverse byte " + std::to_string(wrong_back) + " wrong" : ""));
        }
  }
}

// The comparison must be able to fail: a copy from GPU 0 is not GPU 1's pattern.
void negative_control(PeerBench& bench, const std::vector<int>& devices) {
  clear(bench, devices, 1);
  bench.measure(PeerMethod::ce, PeerMode::uni, 0, 1, 1 << 20, 1, 0);
  report(first_wrong(bench, devices, 1, 1, 1 << 20) == 0, "negative control: GPU 1's own pattern is not what came from GPU 0");
}

void kind_path(const std::vector<int>& devices) {
  CopySpec spec;
  spec.sweep = {1 << 20, 4 << 20, 4, 0};
  spec.iterations = 3;
  spec.peer.bytes = {4 << 20, 1 << 20};
  PeerResult r = measure_peers(spec, devices);
  const size_t n = devices.size();
  bool positive = r.matrices.size() == 2 * 2 * 2 && r.paths.size() == n * (n - 1) / 2;
  for (const PeerMatrix& m : r.matrices)
    for (auto [s, d] : ordered_pairs(n)) positive = positive && (m.at(s, d) > 0 || m.method == PeerMethod::sm);
  std::string paths;
  for (const PeerPath& p : r.paths)  // appended piece by piece: GCC 12's -Wrestrict misfires on " " + ...
    paths.append(" ").append(std::to_string(p.a)).append("-").append(std::to_string(p.b)).append(":").append(p.path);
  report(positive, "matrices: " + std::to_string(r.matrices.size()) + ", paths" + paths + (r.note.empty() ? "" : ", " + r.note));
  const auto host = measure_host_aggregate(spec, devices, 4 << 20);
  bool host_ok = host.size() == 2;
  for (const HostAggregate& h : host)
    host_ok = host_ok && h.aggregate_gbps > 0 && h.alone_gbps.size() == n && h.together_gbps.size() == n;
  report(host_ok, "host aggregate: " + std::to_string(host.size()) + " directions");
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("SKIP %d GPU(s): the peer copies need two\n", count);
    return 77;
  }
  std::vector<int> devices;
  for (int d = 0; d < count && d < 8; ++d) devices.push_back(d);
  try {
    PeerBench bench(devices, kMax);
    fill_sources(bench, devices);
    check_copies(bench, devices);
    negative_control(bench, devices);
  } catch (const std::exception& e) {
    report(false, std::string("error: ") + e.what());
  }
  try {
    kind_path(devices);
  } catch (const std::exception& e) {
    report(false, std::string("error: ") + e.what());
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
