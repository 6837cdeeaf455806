#include "gpu/receiver.hpp"

namespace spiral::gpu {

GpuReceiver::~GpuReceiver() {
  for (auto& s : streams_) s->stop();
}

GpuReceiver GpuReceiver::streams(const Cell& cell, uint32_t queues, WindowSink* sink) {
  GpuReceiver g;
  if (cell.workload == Workload::none) return g;
  g.path_ = open_receive_path(cell);
  if (sink) g.path_->set_window_sink(sink);
  for (uint32_t q = 0; q < queues; ++q) g.streams_.push_back(g.path_->stream_assembler());
  return g;
}

GpuReceiver GpuReceiver::datagrams(const Cell& cell, uint32_t queues, const DatagramLayout& layout, size_t stride,
                                   uint32_t burst_buffers, WindowSink* sink, const InPlace* in_place) {
  GpuReceiver g;
  if (cell.workload == Workload::none) return g;
  g.path_ = open_receive_path(cell);
  if (sink) g.path_->set_window_sink(sink);
  for (uint32_t q = 0; q < queues; ++q) g.datagrams_.push_back(g.path_->datagram_assembler(layout, stride, burst_buffers, in_place));
  return g;
}

}  // namespace spiral::gpu
