#pragma once
// Helpers for tests of parse_cell: a cell with one key changed, and the one-line refusal it
// draws ("(accepted)" when parse_cell takes it).
#include <nlohmann/json.hpp>
#include <string>

#include "sys/errors.hpp"
#include "config/cell_parse.hpp"

namespace spiral::testing {

inline nlohmann::json with(nlohmann::json base, const std::string& key, nlohmann::json value) {
  base[key] = std::move(value);
  return base;
}

inline std::string refusal(const nlohmann::json& j) {
  try {
    parse_cell(j);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace spiral::testing
