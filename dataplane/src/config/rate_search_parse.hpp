#pragma once
// The cell's "search" object (config/rate_search_spec.hpp) and the rules that tie it to the cell.
#include <nlohmann/json.hpp>

#include "config/cell.hpp"

namespace spiral {

// Reads cell["search"] into c.search; throws BadInput naming the key and what to change.
void parse_rate_search(const nlohmann::json& j, Cell& c);
// After the kind is known: only kinds whose trials have exact loss, not with a fixed target.
void check_rate_search(const Cell& c);
nlohmann::json rate_search_to_json(const RateSearchSpec& s);

}  // namespace spiral
