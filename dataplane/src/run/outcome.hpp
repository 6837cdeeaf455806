#pragma once
#include <ostream>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

// Writes a run's outputs: the JSON record line on `out`, the CSV header and row when asked,
// the CSV file row and the summary file (repeat_index's line). False when a file could not be written.
bool emit_outputs(const Cell& cell, const RunResult& r, std::ostream& out, uint32_t repeat_index = 0);

// Failed, Valid or Invalid: the failure of either side first, then the verdict on the numbers.
void settle(const Cell& cell, RunResult& r, const std::string& failure);

// A result for a run that never started (failure before the first byte), with its reason.
RunResult failed_result(const Cell& cell, const std::string& reason);

}  // namespace spiral
