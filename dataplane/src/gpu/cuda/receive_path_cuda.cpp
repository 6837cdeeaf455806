// open_receive_path() of the CUDA build: the device, NVML, and one pipeline per assembler.
#include <mutex>

#include "sys/errors.hpp"
#include "gpu/cuda/assemblers.hpp"
#include "gpu/cuda/device.hpp"
#include "gpu/nvml_sampler.hpp"
#include "gpu/receive_path.hpp"

namespace spiral::gpu {
namespace {

WorkloadKind kind_of(spiral::Workload w) {  // the cell's enum, not gpu::Workload
  switch (w) {
    case spiral::Workload::none: return WorkloadKind::none;
    case spiral::Workload::fft: return WorkloadKind::fft;
    case spiral::Workload::gemm: return WorkloadKind::gemm;
    case spiral::Workload::gemm_fp16: return WorkloadKind::gemm_fp16;
  }
  return WorkloadKind::none;
}

class CudaReceivePath final : public ReceivePath {
 public:
  CudaReceivePath(const Cell& cell, DeviceInfo device)
      : cell_(cell), device_(std::move(device)), sampler_(device_.pci_bus_id), ring_(stream_ring_shape()) {}

  std::unique_ptr<StreamAssembler> stream_assembler() override {
    PipelineConfig config = base_config();
    window_bytes_ = config.window_bytes;
    ring_used_ = ring_.on();
    CounterSink counters = sink(config.assembler);
    return std::make_unique<PipelineStreamAssembler>(std::move(config), std::move(counters), ring_);
  }

  std::unique_ptr<DatagramAssembler> datagram_assembler(const DatagramLayout& layout, size_t stride,
                                                        uint32_t burst_buffers, const InPlace* in_place) override {
    PipelineConfig config = base_config();
    window_bytes_ = uint64_t{PipelineDatagramAssembler::slots_for(config.window_bytes, layout)} *
                    (layout.datagram_bytes - layout.header_bytes);
    CounterSink counters = sink(config.assembler);
    return std::make_unique<PipelineDatagramAssembler>(std::move(config), layout, stride, burst_buffers,
                                                       std::move(counters), in_place);
  }

  void set_window_sink(WindowSink* sink) override { sink_ = sink; }

  void set_phase(Phase phase) override {
    if (phase == Phase::measure) sampler_.start();
    if (phase == Phase::drain) sampler_.stop();
  }

  GpuReport report() const override {
    GpuReport r;
    r.workload = to_string(cell_.workload);
    r.device = device_.name;
    r.window_bytes = window_bytes_;
    {
      std::lock_guard guard(lock_);
      for (const PipelineCounters& c : queues_) r.counters += c;
    }
    const NvmlSampler::Figures f = sampler_.figures();
    r.sm_mpct = f.sm_mpct;
    r.mem_mpct = f.mem_mpct;
    r.samples = f.samples;
    r.nvml = sampler_.available() && f.samples == 0 ? "ok, but no sample in the measured window" : sampler_.status();
    if (ring_used_ && r.sm_mpct >= 0) {
      // utilization.gpu is the share of time any kernel runs, and the drain always does
      r.sm_mpct = -1;
      r.nvml = "ok; SM busy left out: the stream ring's drain kernel is always resident, so NVML reads 100 %";
    }
    return r;
  }

 private:
  PipelineConfig base_config() const {
    PipelineConfig c;
    c.workload = {kind_of(cell_.workload), cell_.gemm_n, cell_.fft_length};
    c.window_bytes = window_bytes(cell_);
    c.sync_interval = cell_.sync_interval;
    c.max_in_flight = cell_.max_in_flight;
    c.sink = sink_;
    return c;
  }
  // Each assembler gets its own slot (its index goes into `assembler`); it publishes after every window.
  CounterSink sink(uint32_t& assembler) {
    std::lock_guard guard(lock_);
    const size_t index = queues_.size();
    assembler = static_cast<uint32_t>(index);
    queues_.emplace_back();
    return [this, index](const PipelineCounters& c) {
      std::lock_guard g(lock_);
      queues_[index] = c;
    };
  }

  Cell cell_;
  DeviceInfo device_;
  NvmlSampler sampler_;
  RingShape ring_;  // the stream assemblers' (SPIRAL_GPU_STREAM_RING)
  bool ring_used_ = false;
  uint64_t window_bytes_ = 0;
  WindowSink* sink_ = nullptr;
  mutable std::mutex lock_;
  std::vector<PipelineCounters> queues_;
};

}  // namespace

std::unique_ptr<ReceivePath> open_receive_path(const Cell& cell) {
  std::string why;
  auto device = probe_device(why);
  if (!device) throw BadInput(std::string("workload ") + to_string(cell.workload) + " needs a GPU: " + why);
  return std::make_unique<CudaReceivePath>(cell, std::move(*device));
}

}  // namespace spiral::gpu
