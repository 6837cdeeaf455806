#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "config/cell.hpp"

namespace spiral {

// The keys every kind's cell may hold (the kinds' own keys are BenchKind::keys).
const std::set<std::string>& common_cell_keys();

// Validates a cell description (snake_case keys, see docs/dataplane.md) into a Cell.
// Throws BadInput with one line naming the offending key; unknown keys are errors.
Cell parse_cell(const nlohmann::json& j);

// Reads a JSON object from a file; throws BadInput when unreadable or not an object.
nlohmann::json read_cell_file(const std::string& path);

}  // namespace spiral
