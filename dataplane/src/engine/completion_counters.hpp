#pragma once
// What a queue of a completion-based kind (ibverbs today) counts besides messages and bytes:
// completions, failed completions by ibv_wc_status (its drops), payload checks and retries (the
// latency percentiles are every kind's: QueueCounters::latency). Plain values without verbs types: they travel in the control
// reports and build without rdma-core.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace spiral {

// ibv_wc_status runs 0 (IBV_WC_SUCCESS) .. 23 (IBV_WC_TM_RNDV_INCOMPLETE); the last slot
// collects any status a newer rdma-core adds.
constexpr size_t kWcStatusSlots = 25;

// The status's name as rdma-core spells the enum (IBV_WC_RETRY_EXC_ERR), "IBV_WC_<n>" beyond.
std::string wc_status_name(size_t status);

struct CompletionCounters {
  uint64_t completions = 0;                          // work completions polled (every status)
  std::array<uint64_t, kWcStatusSlots> wc_errors{};  // failed completions by status
  uint64_t verified = 0;      // verify_payload: messages whose every byte was checked
  uint64_t corrupt = 0;       // ... and found wrong
  uint64_t out_of_order = 0;  // receiver: a message's sequence number (immediate) not the next one
  uint64_t retries = 0;       // device retry counters over the window (one side; on queue 0 only)

  uint64_t errors() const {
    uint64_t sum = 0;
    for (uint64_t n : wc_errors) sum += n;
    return sum;
  }
};

nlohmann::json to_json(const CompletionCounters& c);
// Throws nlohmann::json::exception when fields are missing or of the wrong type.
CompletionCounters completion_counters_from_json(const nlohmann::json& j);

}  // namespace spiral
