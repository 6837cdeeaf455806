#include "gpu/report.hpp"

namespace spiral::gpu {

nlohmann::json to_json(const GpuReport& r) {
  const PipelineCounters& c = r.counters;
  return {{"workload", r.workload},     {"device", r.device},     {"window_bytes", r.window_bytes},
          {"windows", c.windows},       {"bytes", c.bytes},       {"stalls", c.stalls},
          {"stall_ms", c.stall_ns / 1'000'000}, {"stall_ns", c.stall_ns}, {"late", c.late},
          {"carried", c.carried},       {"submit_ns", c.submit_ns},
          {"graph_windows", c.graph_windows},
          {"sm_mpct", r.sm_mpct},       {"mem_mpct", r.mem_mpct},
          {"samples", r.samples},       {"nvml", r.nvml}};
}

GpuReport gpu_report_from_json(const nlohmann::json& j) {
  GpuReport r;
  j.at("workload").get_to(r.workload);
  j.at("device").get_to(r.device);
  j.at("window_bytes").get_to(r.window_bytes);
  j.at("windows").get_to(r.counters.windows);
  j.at("bytes").get_to(r.counters.bytes);
  j.at("stalls").get_to(r.counters.stalls);
  j.at("stall_ns").get_to(r.counters.stall_ns);
  j.at("late").get_to(r.counters.late);
  j.at("carried").get_to(r.counters.carried);
  r.counters.submit_ns = j.value("submit_ns", uint64_t{0});  // absent from peers older than the field
  r.counters.graph_windows = j.value("graph_windows", uint64_t{0});  // likewise
  j.at("sm_mpct").get_to(r.sm_mpct);
  j.at("mem_mpct").get_to(r.mem_mpct);
  j.at("samples").get_to(r.samples);
  j.at("nvml").get_to(r.nvml);
  return r;
}

}  // namespace spiral::gpu
