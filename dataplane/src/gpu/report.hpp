#pragma once
// What the GPU receive path did in one run. CUDA-free: the record, the summary and the control
// protocol carry it whether or not this build has CUDA.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace spiral::gpu {

// One receive queue's pipeline; the run's figures are the sum over the queues.
struct PipelineCounters {
  uint64_t windows = 0;   // windows handed to the GPU
  uint64_t bytes = 0;     // received bytes assembled into them (zero-filled holes not counted)
  uint64_t stalls = 0;    // the receive loop waited because max_in_flight windows were on the GPU
  uint64_t stall_ns = 0;  // how long it waited, in total
  uint64_t submit_ns = 0; // time inside submit's CUDA calls (copy, event, workload launches), stalls excluded
  uint64_t graph_windows = 0;  // windows whose workload went as one CUDA graph launch (SPIRAL_GPU_GRAPH)
  uint64_t late = 0;      // datagrams that arrived after their window had gone to the GPU
  uint64_t carried = 0;   // datagrams of the next window received in the previous one's burst (copied over)

  PipelineCounters& operator+=(const PipelineCounters& o) {
    windows += o.windows;
    bytes += o.bytes;
    stalls += o.stalls;
    stall_ns += o.stall_ns;
    submit_ns += o.submit_ns;
    graph_windows += o.graph_windows;
    late += o.late;
    carried += o.carried;
    return *this;
  }
};

struct GpuReport {
  std::string workload = "none";
  std::string device;         // CUDA device name; empty when no GPU was used
  uint64_t window_bytes = 0;  // assembled bytes per window
  PipelineCounters counters;
  int64_t sm_mpct = -1;       // NVML utilisation.gpu over the measured window, milli-percent; -1 unknown
  int64_t mem_mpct = -1;      // NVML utilisation.memory (memory controller busy), likewise
  uint32_t samples = 0;       // NVML readings averaged
  std::string nvml;           // "ok", or why there are no utilisation figures

  bool used() const { return !device.empty(); }
};

nlohmann::json to_json(const GpuReport& r);
// Throws nlohmann::json::exception when a key is missing or has the wrong type.
GpuReport gpu_report_from_json(const nlohmann::json& j);

}  // namespace spiral::gpu
