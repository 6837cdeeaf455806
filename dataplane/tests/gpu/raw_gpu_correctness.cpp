// The raw Ethernet GPU receive path on frames DPDK really received (ctest gpu.raw.*).
// One cell per process (the EAL initialises once): the test sends frames on the TX port itself,
// in an order with drops, duplicates (the copy carries different bytes: it must lose),
// neighbours swapped and strays of another run, and the real RawReceiver receives them on the
// RX port into its pools (host_pinned: read in place by the GPU; host: staged; over net_ring the
// receiver gets the very mbufs sent, from TX pools in the same registered memory), assembles and
// runs the workload; a WindowSink (the pipeline's output side) copies every processed window and
// output back, and the check is against the sender's own bytes and CPU references:
//   placement  slot s of the window based at b holds sequence b+s's first arrival, or zeros
//   accounting every sequence number sent is placed once or counted late (memif and net_ring,
//              which cannot lose a frame); duplicates and strays counted by the receiver
//   workload   fft vs a double-precision CPU FFT (rel err < 1e-5), gemm vs float64 (< 1e-5),
//              gemm_fp16 (< 1e-2), on the second complete window
// Exit 0 passed, 1 failed, 77 no usable GPU (Skipped). Arguments: data plane flags for the cell
// (--tx-port, --rx-port, --memory, --workload, ...) after the defaults below.
#include <cuda_runtime_api.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "app/cli.hpp"
#include "config/cell_parse.hpp"
#include "cpu_fft.hpp"
#include "datagram/header.hpp"
#include "gpu/cuda/check.hpp"
#include "gpu/cuda/device.hpp"
#include "gpu/cuda/workloads.hpp"
#include "gpu/window_sink.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/frame.hpp"
#include "transports/raw/raw_options.hpp"
#include "transports/raw/raw_receiver.hpp"

using namespace spiral;
using spiral::gpu::test::fft_reference;
using spiral::gpu::test::gemm_reference;
using spiral::gpu::test::rel_err;

namespace {

constexpr uint32_t kRunId = 0x5eed;
constexpr uint32_t kHeader = datagram::kHeaderBytes;

// The payload of sequence number `seq` as floats (finite, so FFT and GEMM references hold);
// a duplicate's copy is all 7.0f.
float payload_value(uint64_t seq, size_t j, bool copy) {
  return copy ? 7.f : float(int((seq * 131 + j * 7) % 2001) - 1000) / 1000.f;
}

struct Window {
  uint64_t base = 0;
  std::vector<float> data, output;
};

// The output side: copies each processed window (and the workload's output) while it is valid.
struct CopyingSink final : gpu::WindowSink {
  std::mutex mu;
  std::vector<Window> windows;
  void window_processed(const gpu::ProcessedWindow& w) override {
    Window c;
    c.base = w.base;
    c.data.resize(w.window_bytes / 4);
    SPIRAL_CUDA(cudaMemcpy(c.data.data(), w.window, w.window_bytes, cudaMemcpyDeviceToHost));
    if (w.output) {
      c.output.resize(w.output_bytes / 4);
      SPIRAL_CUDA(cudaMemcpy(c.output.data(), w.output, w.output_bytes, cudaMemcpyDeviceToHost));
    }
    std::lock_guard lock(mu);
    windows.push_back(std::move(c));
  }
};



// The arrival order: 0..count-1 with drops, duplicates, neighbours swapped up to 12 apart.
struct Plan {
  std::vector<std::pair<uint64_t, bool>> sends;  // (seq, is a duplicate's copy)
  std::map<uint64_t, int> copies;
  std::map<uint64_t, bool> first_is_copy;  // the neighbour swaps can send a duplicate's copy first
  uint64_t dropped = 0, duplicated = 0;
};
Plan make_plan(uint64_t count, std::mt19937_64& rng) {
  Plan p;
  std::bernoulli_distribution drop(0.03), dup(0.03);
  for (uint64_t s = 0; s < count; ++s) {
    if (s > 0 && drop(rng)) {  // sequence number 0 always arrives: the tracker starts there
      ++p.dropped;
      continue;
    }
    p.sends.push_back({s, false});
    if (dup(rng)) p.sends.push_back({s, true}), ++p.duplicated;
  }
  for (size_t i = 7; i + 12 < p.sends.size(); i += 7)
    std::swap(p.sends[i], p.sends[i + std::uniform_int_distribution<size_t>(1, 12)(rng)]);
  for (auto& [seq, copy] : p.sends)
    if (p.copies[seq]++ == 0) p.first_is_copy[seq] = copy;
  return p;
}

int fail(const std::string& what) {
  std::printf("FAIL %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  auto device = gpu::probe_device(why);
  if (!device) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  // the defaults, each unless the command line gives it (a flag may appear once)
  const std::vector<std::pair<const char*, const char*>> defaults = {
      {"--payload-bytes", "8000"}, {"--batch", "32"}, {"--workload-batch-bytes", "1048576"},
      {"--gemm-n", "256"}, {"--memory", "host_pinned"}, {"--workload", "fft"}};
  std::vector<const char*> args = {"spiral-dataplane", "loopback", "--transport", "raw", "--no-huge"};
  for (const auto& [flag, value] : defaults)
    if (std::none_of(argv + 1, argv + argc, [&](const char* a) { return std::strcmp(a, flag) == 0; }))
      args.insert(args.end(), {flag, value});
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  std::ostringstream cli_out;
  const auto flags = parse_command_line(static_cast<int>(args.size()), args.data(), cli_out);
  if (!flags) return fail("flags: " + cli_out.str());
  const Cell cell = parse_cell(*flags);
  const RawOptions& o = raw_options(cell);
  if (cell.workload == Workload::none) return fail("give a workload: with none the GPU path is not opened");
  std::mt19937_64 rng(std::random_device{}());
  std::printf("device %s; cell: %s -> %s, memory %s, workload %s, %u B payload\n", device->name.c_str(),
              o.tx_port.c_str(), o.rx_port.c_str(), to_string(o.memory), to_string(cell.workload), cell.payload_bytes);

  raw::DpdkEnvironment env(cell);
  CopyingSink sink;
  raw::RawReceiver rx(cell, env, kRunId, &sink);
  rx.open();
  env.start_ports(std::chrono::milliseconds(10000));
  rx.set_phase(Phase::measure);
  rx.start();

  // 12 windows' worth of sequence numbers, the datagrams' floats written by this sender
  const uint32_t slot_bytes = cell.payload_bytes - kHeader, slot_floats = slot_bytes / 4;
  const uint64_t window_bytes_asked = 1048576, slots = window_bytes_asked / slot_bytes;
  const Plan plan = make_plan(slots * 12 + 17, rng);
  rte_mempool* pool = env.tx_pool(0);
  const uint32_t frame = env.frame_bytes();
  auto send = [&](uint64_t seq, bool copy, uint32_t run_id) {
    rte_mbuf* m = nullptr;
    while (!(m = rte_pktmbuf_alloc(pool))) std::this_thread::yield();
    auto* f = rte_pktmbuf_mtod(m, uint8_t*);
    raw::build_frame(f, {env.tx_mac(), env.rx_mac(), cell.payload_bytes, run_id, 0});
    raw::stamp(f, seq, datagram::kFlagMeasured);
    float* p = reinterpret_cast<float*>(f + raw::kHeadersBytes + kHeader);
    for (uint32_t j = 0; j < slot_floats; ++j) p[j] = payload_value(seq, j, copy);
    m->data_len = static_cast<uint16_t>(frame);
    m->pkt_len = frame;
    while (rte_eth_tx_burst(env.tx_port(), 0, &m, 1) == 0) std::this_thread::yield();
  };
  for (size_t i = 0; i < plan.sends.size(); ++i) {
    send(plan.sends[i].first, plan.sends[i].second, kRunId);
    if (i % 200 == 100) send(1000000 + i, false, kRunId + 1);  // a stray of another run
    if (i % 32 == 31) std::this_thread::sleep_for(std::chrono::microseconds(200));  // af_packet keeps up
  }
  // until the receiver has accounted everything that will come (memif, net_ring: all; af_packet: settles)
  uint64_t last_seen = ~0ull;
  for (int quiet = 0; quiet < 20;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint64_t seen = 0;
    for (const auto& c : rx.counters()) seen += c.by_phase[index(Phase::measure)].packets + c.duplicated + c.foreign;
    quiet = seen == last_seen ? quiet + 1 : 0;
    last_seen = seen;
  }
  rx.stop();
  if (auto f = rx.failure()) return fail("receiver: " + *f);
  const gpu::GpuReport report = rx.gpu_report();
  const auto stats = rx.stream_stats();
  const auto counters = rx.counters();

  int failures = 0;
  auto check = [&](const std::string& name, bool ok, const std::string& detail) {
    std::printf("%-4s %-44s %s\n", ok ? "ok" : "FAIL", name.c_str(), detail.c_str());
    failures += !ok;
  };
  // placement: every slot holds its sequence number's first copy or zeros
  // memif and net_ring cannot lose a frame (a full ring makes the sender retry)
  const bool lossless = o.rx_port.rfind("net_memif", 0) == 0 || o.rx_port.rfind("net_ring", 0) == 0;
  uint64_t filled = 0, wrong = 0, previous = 0;
  bool ordered = true;
  std::vector<Window> windows = std::move(sink.windows);
  for (size_t k = 0; k < windows.size(); ++k) {
    const Window& w = windows[k];
    if (k && w.base <= previous) ordered = false;
    previous = w.base;
    for (uint64_t s = 0; (s + 1) * slot_floats <= w.data.size(); ++s) {
      const float* slot = w.data.data() + s * slot_floats;
      if (std::all_of(slot, slot + slot_floats, [](float x) { return x == 0.f; })) continue;
      ++filled;
      // first arrival wins: the first sent (memif and a veth keep order); af_packet may have
      // lost that one, and then the other copy is right too
      const uint64_t seq = w.base + s;
      auto holds = [&](bool copy) {
        for (uint32_t j = 0; j < slot_floats; ++j)
          if (slot[j] != payload_value(seq, j, copy)) return false;
        return true;
      };
      const auto first = plan.first_is_copy.find(seq);
      const bool right = first != plan.first_is_copy.end() &&
                         (holds(first->second) || (!lossless && plan.copies.at(seq) > 1 && holds(!first->second)));
      wrong += !right;
    }
  }
  const uint64_t distinct = plan.copies.size();
  const uint64_t late = report.counters.late;
  check("placement", ordered && wrong == 0 && filled > 0,
        std::to_string(windows.size()) + " windows, " + std::to_string(filled) + " slots filled, " +
            std::to_string(wrong) + " wrong" + (ordered ? "" : ", WINDOWS OUT OF ORDER"));
  // lossless ports: every distinct sequence number is placed or late
  check("accounting", filled <= distinct && (!lossless || filled + late >= distinct) && report.counters.windows == windows.size(),
        std::to_string(distinct) + " distinct sent (" + std::to_string(plan.dropped) + " dropped, " +
            std::to_string(plan.duplicated) + " duplicated), " + std::to_string(filled) + " placed, " +
            std::to_string(late) + " late, " + std::to_string(report.counters.windows) + " windows reported");
  uint64_t dups = 0, foreign = 0, received = 0;
  for (const auto& c : counters) dups += c.duplicated, foreign += c.foreign;
  for (const auto& q : stats)
    for (const auto& s : q) received += s.received;
  check("receiver counts", (!lossless || (received == distinct && dups == plan.duplicated)) && foreign > 0,
        std::to_string(received) + " received, " + std::to_string(dups) + " duplicates, " + std::to_string(foreign) +
            " strays");
  {
    if (windows.size() < 3) return fail("workload: fewer than 3 windows");
    const Window& w = windows[1];
    double err = INFINITY, limit = 1e-5;
    if (cell.workload == Workload::fft) {
      std::vector<float> in = w.data;
      in.resize(w.output.size(), 0.f);
      err = rel_err(w.output, fft_reference(in, cell.fft_length, w.output.size() / (2 * cell.fft_length)));
    } else {
      const uint32_t n = cell.gemm_n;
      std::vector<double> a(w.data.begin(), w.data.begin() + size_t{n} * n);
      const auto bf = gpu::gemm_b_matrix(n);
      std::vector<double> b(bf.begin(), bf.end());
      err = rel_err(w.output, gemm_reference(a, b, n, std::max(1u, std::thread::hardware_concurrency())));
      if (cell.workload == Workload::gemm_fp16) limit = 1e-2;
    }
    const bool finite = std::all_of(w.output.begin(), w.output.end(), [](float x) { return std::isfinite(x); });
    char detail[96];
    std::snprintf(detail, sizeof detail, "window 1: rel err %.2e (limit %.0e)", err, limit);
    check(std::string("workload ") + to_string(cell.workload), finite && err < limit, detail);
  }
  std::printf("%s: %d failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
