#pragma once
#include <nlohmann/json.hpp>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

// The full JSON record of one run (one line on stdout): every figure, per pair and per core,
// the cell as understood, and the labels. Keys in a fixed, readable order.
nlohmann::ordered_json result_record(const Cell& cell, const RunResult& r);

// The wire checks and the per-link results as the record and the summary write them.
nlohmann::ordered_json wire_checks_json(const std::vector<WireCheck>& checks);
nlohmann::ordered_json links_json(const std::vector<LinkResult>& links);

}  // namespace spiral
