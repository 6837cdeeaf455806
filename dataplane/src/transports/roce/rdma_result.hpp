#pragma once
// The roce kind's figures of one run, both sides combined: RunResult::figures holds one.
#include <any>

#include "engine/completion_counters.hpp"
#include "engine/latency_histogram.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

struct RdmaResult {
  uint64_t messages_all = 0;     // messages (reads) the requester posted, warm-up and drain included
  uint64_t checks_expected = 0;  // with verify_payload: how many payload checks a complete run makes
  uint64_t completions = 0;
  std::array<uint64_t, kWcStatusSlots> wc_errors{};
  uint64_t verified = 0, corrupt = 0, out_of_order = 0;
  uint64_t tx_retries = 0, rx_retries = 0;  // requester's and responder's device counters
  LatencySummary latency;
};

// The run's figures; a default (all zero) when the run never got as far as accounting.
inline const RdmaResult& rdma_result(const RunResult& r) {
  static const RdmaResult none;
  return r.figures.has_value() ? std::any_cast<const RdmaResult&>(r.figures) : none;
}
inline RdmaResult& rdma_result(RunResult& r) {
  if (!r.figures.has_value()) r.figures = RdmaResult{};
  return std::any_cast<RdmaResult&>(r.figures);
}

}  // namespace spiral
