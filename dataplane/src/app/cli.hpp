#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace spiral {

// Reads the command line into one cell description: the --cell file's object, then every flag
// given on top of it (flags win). Validation happens later, once, in parse_cell.
// Returns nullopt when --help, --version, --describe-kinds or --check-args (the checked cell)
// was printed to `out`. Throws BadInput (with --check-args, also for a cell parse_cell refuses).
std::optional<nlohmann::json> parse_command_line(int argc, const char* const* argv, std::ostream& out);

}  // namespace spiral
