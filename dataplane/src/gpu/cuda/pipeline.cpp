#include "gpu/cuda/pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "gpu/cuda/ring_drain.hpp"
#include "sys/env_switch.hpp"
#include "sys/errors.hpp"

namespace spiral::gpu {

bool one_launch_on() {
  static const bool on = env_switch("SPIRAL_GPU_ONE_LAUNCH", true);
  return on;
}

bool Pipeline::EventCompletion::done(size_t slot) {
  if (pipe_.one_launch_) return std::atomic_ref<uint32_t>(*pipe_.done_flag(slot)).load(std::memory_order_acquire) != 0;
  const cudaError_t e = cudaEventQuery(pipe_.slots_[slot].done.get());
  if (e == cudaErrorNotReady) return false;
  SPIRAL_CUDA(e);
  return true;
}

void Pipeline::EventCompletion::wait(size_t slot) {
  if (!pipe_.one_launch_) {
    SPIRAL_CUDA(cudaEventSynchronize(pipe_.slots_[slot].done.get()));
    return;
  }
  for (uint32_t spins = 1; !done(slot); ++spins) {
    if (spins % 1024 == 0) {
      // work that failed never stores its flag: surface the stream's error instead of spinning
      const cudaError_t e = cudaStreamQuery(pipe_.compute_.get());
      if (e != cudaErrorNotReady && e != cudaSuccess) SPIRAL_CUDA(e);
      std::this_thread::yield();
    }
  }
}

Pipeline::Pipeline(PipelineConfig config) : config_(std::move(config)) {
  if (config_.order_fill) config_.staging_bytes = 256;  // nothing is staged
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
    // pinned and registered with CUDA, so the H2D copy runs on the copy engine without a bounce
    s.staging = memory::allocate({BufferMemory::host_pinned, offsets_area_ + config_.staging_bytes,
                                  "GPU staging buffer", memory::kRegisterCuda});
    s.window = device_buffer(device_bytes);
    SPIRAL_CUDA(cudaMemset(s.window.data(), 0, device_bytes));
    if (config_.reorder) s.staged = device_buffer(offsets_area_ + config_.staging_bytes);
    if (workload_) s.output = device_buffer(workload_->output().bytes);
    s.copied = make_event();
    s.done = make_event();
  }
  flight_ = std::make_unique<WindowFlight>(config_.max_in_flight, config_.sync_interval, completion_,
                                           [this](size_t slot) { retire(slot); });
  SPIRAL_CUDA(cudaDeviceSynchronize());  // the memsets above ran on the legacy stream
  if (workload_) {
    // One launch on a zero window before any traffic: the workload's kernels (cuBLAS, cuFFT, ours)
    // are loaded now. CUDA loads modules lazily at a kernel's first launch and may synchronise
    // the context to do so, which never returns while the stream ring's drain kernel runs.
    workload_->run_into(slots_[0].window.data(), slots_[0].output.data());
    SPIRAL_CUDA(cudaStreamSynchronize(compute_.get()));
  }
  one_launch_ = config_.order_fill && config_.fill_signal && one_launch_on();
  if (one_launch_) set_up_one_launch();
  // with one launch per window a graph holds the wait and the completion even without a workload
  if (workload_graphs_on() && (workload_ || (one_launch_ && !hooks()))) capture_workload_graphs();
}

void Pipeline::set_up_one_launch() {
  const size_t flag_bytes = slots_.size() * kFlagWords * sizeof(uint32_t);
  ready_ = device_buffer(flag_bytes);
  done_flags_ = pinned_buffer(flag_bytes, true);
  std::memset(done_flags_.data(), 0, flag_bytes);
  done_flags_device_ = reinterpret_cast<uint32_t*>(device_pointer(done_flags_));
  // Both kernels once now, before any drain runs (loaded at their first launch, as above).
  SPIRAL_CUDA(cudaMemsetAsync(ready_.data(), 1, flag_bytes, compute_.get()));  // every flag nonzero
  launch_window_wait(ready_flag(0), compute_.get());
  launch_window_done(done_flag_device(0), compute_.get());
  SPIRAL_CUDA(cudaMemsetAsync(ready_.data(), 0, flag_bytes, compute_.get()));
  SPIRAL_CUDA(cudaStreamSynchronize(compute_.get()));
  if (!done(0)) throw CudaError("window_done stored no flag in mapped host memory");
  *done_flag(0) = 0;
}

// the slot's window finished on the GPU (one launch per window)
bool Pipeline::done(size_t slot) { return completion_.done(slot); }

void Pipeline::capture_workload_graphs() {
  std::string why;
  // One launch per window without test hooks: the graph is the whole window (wait, workload,
  // completion); else the workload alone.
  const bool whole = one_launch_ && !hooks();
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    s.workload_graph = capture_graph(
        [&] {
          if (whole) launch_window_wait(ready_flag(i), compute_.get());
          if (workload_) workload_->run_into(s.window.data(), s.output.data());
          if (whole) launch_window_done(done_flag_device(i), compute_.get());
        },
        compute_.get(), why);
    if (!s.workload_graph) break;
  }
  if (why.empty()) {
    // Each graph runs once now, on the zero windows: uploaded before any traffic, and a fault
    // shows here rather than in the first window.
    if (whole) SPIRAL_CUDA(cudaMemsetAsync(ready_.data(), 1, ready_.size(), compute_.get()));
    for (Slot& s : slots_) SPIRAL_CUDA(cudaGraphLaunch(s.workload_graph.get(), compute_.get()));
    SPIRAL_CUDA(cudaStreamSynchronize(compute_.get()));
    if (whole) {
      for (size_t i = 0; i < slots_.size(); ++i) {
        if (!done(i)) throw CudaError("a window graph stored no completion flag");
        *done_flag(i) = 0;
      }
    }
    whole_graphs_ = whole;
    return;
  }
  for (Slot& s : slots_) s.workload_graph.reset();
  static std::once_flag told;
  std::call_once(told, [&] {
    std::fprintf(stderr, "gpu: %s workload not captured as a CUDA graph (%s): each window calls it directly\n",
                 workload_name(config_.workload.kind), why.c_str());
  });
}

Pipeline::~Pipeline() {
  // Never throw from here: the buffers must outlive the GPU's use of them, errors are moot now.
  (void)cudaStreamSynchronize(copy_.get());
  (void)cudaStreamSynchronize(compute_.get());
}

void Pipeline::submit(uint64_t bytes, uint32_t datagrams, uint64_t base, uint64_t token) {
  flight_->before_launch();  // waits (a stall) while max_in_flight windows are on the GPU
  const auto launch_start = std::chrono::steady_clock::now();

  const size_t slot = flight_->filling();
  Slot& s = slots_[slot];
  const uint64_t window = config_.window_bytes;
  cudaStream_t copy = copy_.get(), compute = compute_.get();
  if (config_.order_fill) {
    bytes = std::min(bytes, window);
    if (!one_launch_) config_.order_fill(compute);
    if (bytes < window) SPIRAL_CUDA(cudaMemsetAsync(s.window.data() + bytes, 0, window - bytes, compute));
  } else if (config_.reorder) {
    // one copy moves the offsets (in front of the datagrams) and the datagrams; in place, the
    // offsets only: the kernel reads the datagrams from mapped host memory
    const uint64_t copied = offsets_area_ + (config_.in_place_packets ? 0 : bytes);
    SPIRAL_CUDA(cudaMemcpyAsync(s.staged.data(), s.staging->data(), copied, cudaMemcpyHostToDevice, copy));
  } else {
    bytes = std::min(bytes, window);
    SPIRAL_CUDA(cudaMemcpyAsync(s.window.data(), s.staging->data(), bytes, cudaMemcpyHostToDevice, copy));
    // a partial window (end of stream): the rest is zeros, not the previous window's bytes
    if (bytes < window) SPIRAL_CUDA(cudaMemsetAsync(s.window.data() + bytes, 0, window - bytes, copy));
  }
  if (!config_.order_fill) {
    SPIRAL_CUDA(cudaEventRecord(s.copied.get(), copy));
    SPIRAL_CUDA(cudaStreamWaitEvent(compute, s.copied.get(), 0));
  }
  if (config_.reorder) {
    const std::byte* packets = config_.in_place_packets ? config_.in_place_packets : s.staged.data() + offsets_area_;
    ReorderArgs a{packets, s.staged.as<uint32_t>(), datagrams, base, config_.slots,
                  config_.header_bytes, config_.slot_bytes, config_.seq_offset, owner_.as<uint32_t>(), s.window.data()};
    launch_reorder(a, compute);
  }
  Workload::Output output{};
  if (workload_) output = {s.output.data(), s.output.size()};
  if (one_launch_) std::atomic_ref<uint32_t>(*done_flag(slot)).store(0, std::memory_order_relaxed);  // before the launch
  if (whole_graphs_) {
    // the window in one call: wait for its bytes, the workload, its completion flag
    SPIRAL_CUDA(cudaGraphLaunch(s.workload_graph.get(), compute));
    if (workload_) ++counters_.graph_windows;
  } else {
    if (one_launch_) launch_window_wait(fill_flag(), compute);
    if (config_.inspect_window) config_.inspect_window(s.window.data(), window, base, compute);
    if (workload_) {
      if (s.workload_graph) {
        SPIRAL_CUDA(cudaGraphLaunch(s.workload_graph.get(), compute));
        ++counters_.graph_windows;
      } else {
        workload_->run_into(s.window.data(), s.output.data());
      }
      if (config_.inspect_output) config_.inspect_output(output, compute);
    }
    if (one_launch_) {
      launch_window_done(done_flag_device(slot), compute);
    } else {
      SPIRAL_CUDA(cudaEventRecord(s.done.get(), compute));
    }
  }

  const uint64_t received = config_.reorder ? uint64_t{datagrams} * config_.slot_bytes : bytes;
  s.processed = ProcessedWindow{config_.assembler, counters_.windows, s.window.data(), window,
                                config_.reorder ? base : counters_.bytes, received, output.data, output.bytes};
  s.token = token;
  flight_->launched();
  ++counters_.windows;
  counters_.bytes += received;
  counters_.submit_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - launch_start).count());
}

void Pipeline::retire(size_t slot) {
  Slot& s = slots_[slot];
  if (config_.on_complete) config_.on_complete(s.token);
  if (config_.sink) config_.sink->window_processed(s.processed);
}

void Pipeline::finish() {
  flight_->drain();
  SPIRAL_CUDA(cudaStreamSynchronize(copy_.get()));
  SPIRAL_CUDA(cudaStreamSynchronize(compute_.get()));
}

}  // namespace spiral::gpu
