#pragma once
// The compact summary for /dev/termination-log: one JSON object of integers (units in the
// names), at most 4096 bytes (Kubernetes' termination-message limit).
#include <string>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

constexpr size_t kSummaryMaxBytes = 4096;

std::string summary_text(const Cell& cell, const RunResult& r);
// Writes the summary to cell.summary_file when set; false (and a line on stderr) when it cannot.
bool write_summary(const Cell& cell, const RunResult& r);

}  // namespace spiral
