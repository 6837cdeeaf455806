#pragma once
// A CSV row with DAQIRI's columns, so results line up with its published tables.
#include <string>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

std::string csv_header();
std::string csv_row(const Cell& cell, const RunResult& r);
// Appends the row to cell.csv_file (with the header when the file is new or empty).
bool append_csv(const Cell& cell, const RunResult& r);

}  // namespace spiral
