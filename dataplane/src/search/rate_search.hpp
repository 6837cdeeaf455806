#pragma once
// The rate search (RFC 2544 throughput, NDR/PDR), independent of how a trial runs: the caller
// gives a function that runs one trial at an offered rate and reports its exact accounting; the
// run drivers (run/search_run.cpp) give one over real engines, the unit tests one over a
// simulated link. One mechanism for every paced kind.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/rate_search_spec.hpp"

namespace spiral {

// What one trial measured. sent = received + lost, exactly: trials whose counters disagree
// come back with consistent = false and count as lossy.
struct TrialMeasure {
  bool failed = false;            // the trial did not run to the end (the search stops)
  std::string reason;             // why failed, or why the trial does not count (not held, inconsistent)
  bool counts = true;             // false: the measurement is not trusted (the sender missed the rate)
  uint64_t sent = 0, received = 0, lost = 0;
  int64_t tx_mbps = 0, rx_mbps = 0;  // over the trial's window
};

enum class TrialPurpose { upper, probe, lower, verify };
const char* to_string(TrialPurpose p);

struct Trial {
  uint32_t index = 0;
  TrialPurpose purpose = TrialPurpose::probe;
  uint64_t offered_mbps = 0;   // 0 = unpaced (the first trial when the upper bound is measured)
  uint64_t rate_mbps = 0;      // the rate this trial stands for: offered, or tx_mbps when unpaced
  uint64_t duration_ms = 0;
  TrialMeasure measure;
  uint64_t loss_ppm = 0;       // lost per million sent (1'000'000 when nothing was sent)
  // "pass" (no loss), "pdr" (loss within the PDR tolerance), "loss", "not_held" (sender short of
  // the rate, or counters inconsistent), "failed"
  std::string verdict;
};

struct SearchOutcome {
  std::vector<Trial> trials;
  uint64_t lower_mbps = 0, upper_mbps = 0, resolution_mbps = 0, pdr_ppm = 0;
  std::optional<uint64_t> ndr_mbps;  // absent: no trial passed (below the lower bound, or failed)
  bool ndr_below_lower = false;      // even the lower bound lost
  bool ndr_at_upper = false;         // the upper bound held: the link may hold more
  std::optional<uint64_t> pdr_mbps;  // only with a tolerance
  bool pdr_below_lower = false;
  bool verified = false;             // the verification trial at the NDR was lossless
  std::optional<uint32_t> verify_trial;  // its index in trials
  std::string failure;               // a trial failed: the search stopped there

  uint32_t search_trials() const;    // trials before the verification
};

// Runs one trial at offered_mbps (0: unpaced) for duration_ms.
using TrialRunner = std::function<TrialMeasure(uint64_t offered_mbps, uint64_t duration_ms, TrialPurpose purpose)>;

// The search, then a verification trial of verify_ms at the NDR (none when no NDR was found).
SearchOutcome search_rate(const RateSearchSpec& spec, uint64_t verify_ms, const TrialRunner& run);

}  // namespace spiral
