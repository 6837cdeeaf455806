#pragma once
// The compact summary for /dev/termination-log: one JSON object of integers (units in the
// names), at most 4096 bytes (Kubernetes' termination-message limit). A cell of N repeats in one
// process writes one line per finished repeat, each at most 4096 / N bytes, so the operator
// keeps the repeats that finished even when a later one fails or the process is killed.
#include <string>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

constexpr size_t kSummaryMaxBytes = 4096;

std::string summary_text(const Cell& cell, const RunResult& r, size_t max_bytes = kSummaryMaxBytes);
// Writes repeat `repeat_index`'s summary line to cell.summary_file when set: the first repeat
// truncates the file, later ones append. False (and a line on stderr) when it cannot.
bool write_summary(const Cell& cell, const RunResult& r, uint32_t repeat_index = 0);

}  // namespace spiral
