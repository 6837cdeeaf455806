#pragma once
#include <cstdint>
#include <memory>

#include "config/cell.hpp"
#include "engine/engine.hpp"

namespace spiral {

// The engine of the cell's kind for one direction (BenchKind::make_engine). run_id tags the
// traffic of this run. Throws BadInput when the kind has no engines of its own for a two-sided run.
std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction, uint32_t run_id);

}  // namespace spiral
