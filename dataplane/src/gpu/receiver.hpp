#pragma once
// The GPU side of a receiver, the one place a transport's receive engine wires the GPU path:
// opens the path when the cell has a workload, makes one assembler per receive queue, forwards
// the phase (NVML samples over the measure phase) and gives the report. Without a workload it
// is empty and every accessor returns null, so the hot loops test one pointer.
//
//   open:       gpu_ = gpu::GpuReceiver::streams(cell, queues);            // TCP, RoCE
//               gpu_ = gpu::GpuReceiver::datagrams(cell, queues, layout, stride, burst);  // UDP, raw
//   each queue: if (auto* a = gpu_.stream(q)) ... a->space(), a->commit(n), a->finish()
//   set_phase:  gpu_.set_phase(phase);    gpu_report(): return gpu_.report();
#include <cstdint>
#include <memory>
#include <vector>

#include "config/cell.hpp"
#include "engine/phase.hpp"
#include "gpu/receive_path.hpp"

namespace spiral::gpu {

class GpuReceiver {
 public:
  GpuReceiver() = default;  // no workload: inactive
  GpuReceiver(GpuReceiver&&) = default;
  GpuReceiver& operator=(GpuReceiver&&) = default;
  ~GpuReceiver();  // stops every stream assembler before destroying any (StreamAssembler::stop)
  // In-order streams, one assembler per queue; inactive when the cell's workload is none.
  static GpuReceiver streams(const Cell& cell, uint32_t queues, WindowSink* sink = nullptr);
  // Sequenced datagrams: `stride` bytes per receive buffer, `burst_buffers` buffers per burst.
  // `in_place`: the datagrams are read where they were received (raw's host_pinned mbufs).
  static GpuReceiver datagrams(const Cell& cell, uint32_t queues, const DatagramLayout& layout, size_t stride,
                               uint32_t burst_buffers, WindowSink* sink = nullptr, const InPlace* in_place = nullptr);

  bool active() const { return path_ != nullptr; }
  StreamAssembler* stream(size_t q) const { return q < streams_.size() ? streams_[q].get() : nullptr; }
  DatagramAssembler* datagram(size_t q) const { return q < datagrams_.size() ? datagrams_[q].get() : nullptr; }
  void set_phase(Phase phase) {
    if (path_) path_->set_phase(phase);
  }
  GpuReport report() const { return path_ ? path_->report() : GpuReport{}; }

 private:
  std::unique_ptr<ReceivePath> path_;  // declared first: the assemblers go before it
  std::vector<std::unique_ptr<StreamAssembler>> streams_;
  std::vector<std::unique_ptr<DatagramAssembler>> datagrams_;
};

}  // namespace spiral::gpu
