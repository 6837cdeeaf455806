#include "gpu/cuda/pipeline.hpp"

#include <algorithm>
#include <chrono>

namespace spiral::gpu {

Pipeline::Pipeline(PipelineConfig config) : config_(std::move(config)) {
  if (!config_.staging_bytes) config_.staging_bytes = config_.window_bytes;
  config_.sync_interval = std::max<uint32_t>(1, config_.sync_interval);
  config_.max_in_flight = std::max<uint32_t>(1, config_.max_in_flight);
  copy_ = make_stream();
  compute_ = make_stream();
  workload_ = make_workload(config_.workload, config_.window_bytes, compute_.get());
  // The workload may read more than the window holds (a GEMM's n*n floats): that tail stays zero.
  const uint64_t device_bytes = std::max(config_.window_bytes, workload_ ? workload_->input_bytes() : 0);
  if (config_.reorder) {
    owner_ = device_buffer(size_t{config_.slots} * sizeof(uint32_t));
    SPIRAL_CUDA(cudaMemset(owner_.data(), 0xff, owner_.size()));
  }
  // reorder: the datagram offsets sit in front of the datagrams, so one copy moves both
  if (config_.reorder) offsets_area_ = (uint64_t{config_.max_datagrams} * sizeof(uint32_t) + 255) / 256 * 256;
  slots_.resize(config_.max_in_flight + 1);
  for (Slot& s : slots_) {
    s.staging = pinned_buffer(offsets_area_ + config_.staging_bytes);
    s.window = device_buffer(device_bytes);
    SPIRAL_CUDA(cudaMemset(s.window.data(), 0, device_bytes));
    if (config_.reorder) s.staged = device_buffer(offsets_area_ + config_.staging_bytes);
    s.copied = make_event();
    s.done = make_event();
  }
  for (size_t i = 1; i < slots_.size(); ++i) free_.push_back(i);
  filling_ = 0;
  SPIRAL_CUDA(cudaDeviceSynchronize());  // the memsets above ran on the legacy stream
}

Pipeline::~Pipeline() {
  // Never throw from here: the buffers must outlive the GPU's use of them, errors are moot now.
  (void)cudaStreamSynchronize(copy_.get());
  (void)cudaStreamSynchronize(compute_.get());
}

void Pipeline::submit(uint64_t bytes, uint32_t datagrams, uint64_t base) {
  // The cap: at most max_in_flight windows on the GPU. Only a window that would exceed it waits
  // (a stall), so the GPU keeps max_in_flight windows while the receiver fills the next one.
  if (++calls_ % config_.sync_interval == 0 || in_flight_.size() >= config_.max_in_flight) reap();
  while (in_flight_.size() >= config_.max_in_flight) {
    const auto t0 = std::chrono::steady_clock::now();
    wait_oldest();
    ++counters_.stalls;
    counters_.stall_ns += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }

  Slot& s = slots_[filling_];
  const uint64_t window = config_.window_bytes;
  cudaStream_t copy = copy_.get(), compute = compute_.get();
  if (config_.reorder) {
    // one copy moves the offsets (in front of the datagrams) and the datagrams
    SPIRAL_CUDA(cudaMemcpyAsync(s.staged.data(), s.staging.data(), offsets_area_ + bytes, cudaMemcpyHostToDevice, copy));
  } else {
    bytes = std::min(bytes, window);
    SPIRAL_CUDA(cudaMemcpyAsync(s.window.data(), s.staging.data(), bytes, cudaMemcpyHostToDevice, copy));
    // a partial window (end of stream): the rest is zeros, not the previous window's bytes
    if (bytes < window) SPIRAL_CUDA(cudaMemsetAsync(s.window.data() + bytes, 0, window - bytes, copy));
  }
  SPIRAL_CUDA(cudaEventRecord(s.copied.get(), copy));
  SPIRAL_CUDA(cudaStreamWaitEvent(compute, s.copied.get(), 0));
  if (config_.reorder) {
    ReorderArgs a{s.staged.data() + offsets_area_, s.staged.as<uint32_t>(), datagrams, base, config_.slots,
                  config_.header_bytes, config_.slot_bytes, config_.seq_offset, owner_.as<uint32_t>(), s.window.data()};
    launch_reorder(a, compute);
  }
  if (config_.inspect_window) config_.inspect_window(s.window.data(), window, base, compute);
  if (workload_) {
    workload_->run(s.window.data());
    if (config_.inspect_output) config_.inspect_output(workload_->output(), compute);
  }
  SPIRAL_CUDA(cudaEventRecord(s.done.get(), compute));

  in_flight_.push_back(filling_);
  ++counters_.windows;
  counters_.bytes += config_.reorder ? uint64_t{datagrams} * config_.slot_bytes : bytes;
  // max_in_flight + 1 slots and at most max_in_flight in flight: one is free to fill
  filling_ = free_.back();
  free_.pop_back();
}

void Pipeline::reap() {
  while (!in_flight_.empty()) {
    const cudaError_t e = cudaEventQuery(slots_[in_flight_.front()].done.get());
    if (e == cudaErrorNotReady) return;
    SPIRAL_CUDA(e);
    free_.push_back(in_flight_.front());
    in_flight_.pop_front();
  }
}

void Pipeline::wait_oldest() {
  SPIRAL_CUDA(cudaEventSynchronize(slots_[in_flight_.front()].done.get()));
  free_.push_back(in_flight_.front());
  in_flight_.pop_front();
}

void Pipeline::finish() {
  while (!in_flight_.empty()) wait_oldest();
  SPIRAL_CUDA(cudaStreamSynchronize(copy_.get()));
  SPIRAL_CUDA(cudaStreamSynchronize(compute_.get()));
}

}  // namespace spiral::gpu
