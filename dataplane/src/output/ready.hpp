#pragma once
#include <ostream>
#include <string>

#include "config/cell.hpp"

namespace spiral {

// The server's start barrier: once every port listens, one JSON line on `out` and the same
// line in cell.ready_file (written to a temporary name, then renamed, so readers never see half).
void announce_ready(const Cell& cell, std::ostream& out);

// Writes `line` to `path` through a temporary name and a rename. Throws BadInput.
void write_ready_file(const std::string& path, const std::string& line);

}  // namespace spiral
