#pragma once
#include <nlohmann/json.hpp>

#include "config/cell.hpp"

namespace spiral {

// The cell as the run understood it (defaults filled in), in the same keys parse_cell reads,
// so a record can be re-run from its own "cell" field.
nlohmann::json cell_to_json(const Cell& c);

}  // namespace spiral
