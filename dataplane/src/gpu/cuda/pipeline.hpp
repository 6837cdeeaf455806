#pragma once
// One receive queue's path to the GPU. The receive thread fills a pinned staging buffer;
// submit() hands it over and returns at once:
//
//   copy stream:    H2D copy of the staging (async, copy engine) ---- event "copied"
//   compute stream: wait "copied" -> assemble (reorder kernel, or the copy already was the
//                   gather) -> workload -> event "done"
//
// The workload goes as one CUDA graph per slot, captured at construction on the slot's window
// and output (gpu/cuda/workload_graph.hpp): one launch per window instead of the library's
// calls. Where the capture is refused, or SPIRAL_GPU_GRAPH=off, the workload is called directly.
//
// One launch per window (stream ring, config.fill_signal): the ring's drain stores a flag in
// device memory once a window's last chunk is in, and each slot's graph is
//   window_wait(slot's flag) -> workload -> window_done(slot's flag in mapped host memory)
// so a window costs the receive thread one cudaGraphLaunch and no other CUDA call: no stream
// wait on the ring's count, no event record, and completion is a load from host memory instead
// of cudaEventQuery. SPIRAL_GPU_ONE_LAUNCH=off keeps the calls (a benchmark knob).
//
// max_in_flight windows may be on the GPU at once, each with its own staging and device
// window, plus one more staging buffer being filled, so a copy always overlaps compute of the
// window before it. Completed windows are collected every sync_interval submissions (a
// non-blocking query); only a submission that would put more than max_in_flight windows on the
// GPU waits for the oldest, and that stall is counted and timed.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "gpu/cuda/kernels.hpp"
#include "gpu/window_flight.hpp"
#include "gpu/window_sink.hpp"
#include "memory/region.hpp"
#include "gpu/cuda/resources.hpp"
#include "gpu/cuda/workload_graph.hpp"
#include "gpu/cuda/workloads.hpp"
#include "gpu/report.hpp"

namespace spiral::gpu {

struct PipelineConfig {
  WorkloadShape workload;
  uint64_t window_bytes = 8u << 20;  // assembled bytes per window
  uint64_t staging_bytes = 0;        // pinned bytes per staging buffer; 0 = window_bytes
  // Sequence reorder (datagrams) instead of in-order gather (stream bytes):
  bool reorder = false;
  uint32_t slots = 0;                // window_bytes = slots * slot_bytes
  uint32_t slot_bytes = 0, header_bytes = 0, seq_offset = 0;
  uint32_t max_datagrams = 0;        // offsets per staging buffer
  // reorder in place: the datagrams are read from this device address (mapped host memory, the
  // offsets relative to it) instead of from the staging; the staging carries only the offsets
  const std::byte* in_place_packets = nullptr;
  uint32_t sync_interval = 2;
  uint32_t max_in_flight = 2;
  // Tests: called on the compute stream after assembly and after the workload of each window
  // (base: the window's first sequence number, reorder only).
  std::function<void(const std::byte* window, uint64_t bytes, uint64_t base, cudaStream_t)> inspect_window;
  std::function<void(Workload::Output output, cudaStream_t)> inspect_output;
  // The output side: each processed window is handed on once its work completed (may be null).
  WindowSink* sink = nullptr;
  uint32_t assembler = 0;  // ProcessedWindow::assembler
  // Called when a window's work completed, before its slot is filled again, with the `token`
  // given to submit(): what the window read in place (raw mbufs) may be released now.
  std::function<void(uint64_t token)> on_complete;
  // Stream windows written straight into window() on the device (the stream ring) instead of
  // the staging: submit() copies nothing and first calls order_fill(compute stream), which makes
  // that stream wait until the window's bytes have arrived.
  std::function<void(cudaStream_t compute)> order_fill;
  // With order_fill: the filler can instead store a nonzero word at fill_flag() (device memory)
  // once the window's bytes have arrived, so that the window's work needs no host call to wait
  // for them (one launch per window, above).
  bool fill_signal = false;
};

// SPIRAL_GPU_ONE_LAUNCH: unset, empty or "on" = one launch per window where the filler signals;
// "off" = order_fill, the graph and an event record per window. Read once; else BadInput.
bool one_launch_on();

class Pipeline {
 public:
  explicit Pipeline(PipelineConfig config);  // allocates every buffer; throws CudaError
  ~Pipeline();                               // waits for what is in flight

  std::byte* staging() { return slots_[flight_->filling()].staging->data() + offsets_area_; }
  uint64_t staging_bytes() const { return config_.staging_bytes; }
  uint32_t* offsets() { return reinterpret_cast<uint32_t*>(slots_[flight_->filling()].staging->data()); }  // reorder: max_datagrams
  // The filling slot's device window (config.order_fill: where the stream's bytes go).
  std::byte* window() { return slots_[flight_->filling()].window.data(); }
  // One launch per window: where the filler stores nonzero once the filling window's bytes are
  // in (device memory); null when the pipeline waits through order_fill instead.
  uint32_t* fill_flag() { return one_launch_ ? ready_flag(flight_->filling()) : nullptr; }

  // Hands the filling buffer to the GPU: `bytes` of staging; for reorder, `datagrams` offsets
  // and the window's first sequence number. Then makes another buffer the filling one, waiting
  // (a stall) when max_in_flight windows are in flight.
  // `token` comes back to config.on_complete once the window's work completed.
  void submit(uint64_t bytes, uint32_t datagrams = 0, uint64_t base = 0, uint64_t token = 0);
  // Waits for every window in flight and checks for errors.
  void finish();

  const PipelineConfig& config() const { return config_; }
  const PipelineCounters& counters() const {
    counters_.stalls = flight_->stalls();
    counters_.stall_ns = flight_->stall_ns();
    return counters_;
  }
  Workload* workload() { return workload_.get(); }

 private:
  struct Slot {
    // [reorder: datagram offsets, offsets_area_ bytes][received bytes]: HostPinned memory from the
    // memory provider, registered with CUDA
    std::unique_ptr<memory::Region> staging;
    DeviceBuffer staged;   // reorder: the device copy of the staging
    DeviceBuffer window;
    DeviceBuffer output;   // the workload's result for this window (the sink reads it after later launches)
    Event copied, done;
    GraphExec workload_graph;  // run_into(window, output); empty: the workload is called directly
    ProcessedWindow processed;  // what the sink gets once `done`
    uint64_t token = 0;
  };
  // Completion of a slot's work: its "done" event, or with one launch per window its flag in
  // mapped host memory (stored by window_done, cleared before the slot's next launch).
  class EventCompletion final : public CompletionSource {
   public:
    explicit EventCompletion(Pipeline& pipe) : pipe_(pipe) {}
    bool done(size_t slot) override;
    void wait(size_t slot) override;

   private:
    Pipeline& pipe_;
  };
  static constexpr size_t kFlagWords = 16;  // one flag per 64-byte line
  void retire(size_t slot);
  void capture_workload_graphs();
  void set_up_one_launch();
  bool done(size_t slot);
  uint32_t* ready_flag(size_t slot) { return ready_.as<uint32_t>() + slot * kFlagWords; }
  uint32_t* done_flag(size_t slot) { return done_flags_.as<uint32_t>() + slot * kFlagWords; }
  uint32_t* done_flag_device(size_t slot) { return done_flags_device_ + slot * kFlagWords; }
  bool hooks() const { return config_.inspect_window || config_.inspect_output; }

  PipelineConfig config_;
  bool one_launch_ = false;
  bool whole_graphs_ = false;     // one launch: each slot's graph is the whole window
  DeviceBuffer ready_;            // one launch: the filler's flag per slot (device memory)
  PinnedBuffer done_flags_;       // one launch: window_done's flag per slot (mapped host memory)
  uint32_t* done_flags_device_ = nullptr;
  uint64_t offsets_area_ = 0;
  Stream copy_, compute_;
  std::unique_ptr<Workload> workload_;
  DeviceBuffer owner_;  // reorder: slot claims, kept all kNoOwner between windows
  std::vector<Slot> slots_;
  EventCompletion completion_{*this};
  std::unique_ptr<WindowFlight> flight_;
  mutable PipelineCounters counters_;
};

}  // namespace spiral::gpu
